package cuda

import (
	"runtime"
	"unsafe"
)

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uint64

// Alloc allocates bytes of device memory.
func (o ops) Alloc(bytes uint64) (DevicePtr, error) {
	var p uint64
	err := o.run(func() error {
		n, err := sizeT("Alloc", bytes)
		if err != nil {
			return err
		}
		return check("cuMemAlloc_v2", o.c.drv.cuMemAlloc(&p, n))
	})
	if err != nil {
		return 0, err
	}
	return DevicePtr(p), nil
}

// Free frees device memory returned by Alloc.
func (o ops) Free(p DevicePtr) error {
	return o.run(func() error { return check("cuMemFree_v2", o.c.drv.cuMemFree(uint64(p))) })
}

// CopyToDevice copies bytes from host memory at src, normally the first
// element of a Go slice, to dst. The copy is synchronous, so src need only
// stay valid for the call.
func (o ops) CopyToDevice(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	return o.run(func() error {
		if bytes == 0 {
			return nil
		}
		n, err := sizeT("CopyToDevice", bytes)
		if err != nil {
			return err
		}
		err = check("cuMemcpyHtoD_v2", o.c.drv.cuMemcpyHtoD(uint64(dst), src, n))
		runtime.KeepAlive(src)
		return err
	})
}

// CopyFromDevice copies bytes from src to host memory at dst, normally the
// first element of a Go slice. The copy is synchronous.
func (o ops) CopyFromDevice(dst unsafe.Pointer, src DevicePtr, bytes uint64) error {
	return o.run(func() error {
		if bytes == 0 {
			return nil
		}
		n, err := sizeT("CopyFromDevice", bytes)
		if err != nil {
			return err
		}
		err = check("cuMemcpyDtoH_v2", o.c.drv.cuMemcpyDtoH(dst, uint64(src), n))
		runtime.KeepAlive(dst)
		return err
	})
}

// CopyDeviceToDevice copies bytes from src to dst, both device memory. It
// is ordered on the null stream, after the work queued before it.
func (o ops) CopyDeviceToDevice(dst, src DevicePtr, bytes uint64) error {
	return o.run(func() error {
		if bytes == 0 {
			return nil
		}
		n, err := sizeT("CopyDeviceToDevice", bytes)
		if err != nil {
			return err
		}
		return check("cuMemcpyDtoD_v2", o.c.drv.cuMemcpyDtoD(uint64(dst), uint64(src), n))
	})
}

// Memset32 sets count 32-bit words at dst to value.
func (o ops) Memset32(dst DevicePtr, value uint32, count uint64) error {
	return o.run(func() error {
		n, err := sizeT("Memset32", count)
		if err != nil {
			return err
		}
		return check("cuMemsetD32_v2", o.c.drv.cuMemsetD32(uint64(dst), value, n))
	})
}
