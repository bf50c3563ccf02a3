package cuda

import (
	"runtime"
	"unsafe"
)

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uint64

// Each Context method below runs its Locked counterpart inside Do.

// Alloc allocates bytes of device memory.
func (c *Context) Alloc(bytes uint64) (DevicePtr, error) {
	var p DevicePtr
	err := c.do(func() (err error) {
		p, err = Locked{c}.Alloc(bytes)
		return err
	})
	return p, err
}

// Alloc is Context.Alloc inside Do.
func (l Locked) Alloc(bytes uint64) (DevicePtr, error) {
	n, err := sizeT("Alloc", bytes)
	if err != nil {
		return 0, err
	}
	var p uint64
	if err := check("cuMemAlloc_v2", l.c.drv.cuMemAlloc(&p, n)); err != nil {
		return 0, err
	}
	return DevicePtr(p), nil
}

// Free frees device memory returned by Alloc.
func (c *Context) Free(p DevicePtr) error {
	return c.do(func() error { return Locked{c}.Free(p) })
}

// Free is Context.Free inside Do.
func (l Locked) Free(p DevicePtr) error {
	return check("cuMemFree_v2", l.c.drv.cuMemFree(uint64(p)))
}

// CopyToDevice copies bytes from host memory at src, normally the first
// element of a Go slice, to dst. The copy is synchronous, so src need only
// stay valid for the call.
func (c *Context) CopyToDevice(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	return c.do(func() error { return Locked{c}.CopyToDevice(dst, src, bytes) })
}

// CopyToDevice is Context.CopyToDevice inside Do.
func (l Locked) CopyToDevice(dst DevicePtr, src unsafe.Pointer, bytes uint64) error {
	if bytes == 0 {
		return nil
	}
	n, err := sizeT("CopyToDevice", bytes)
	if err != nil {
		return err
	}
	err = check("cuMemcpyHtoD_v2", l.c.drv.cuMemcpyHtoD(uint64(dst), src, n))
	runtime.KeepAlive(src)
	return err
}

// CopyFromDevice copies bytes from src to host memory at dst, normally the
// first element of a Go slice. The copy is synchronous.
func (c *Context) CopyFromDevice(dst unsafe.Pointer, src DevicePtr, bytes uint64) error {
	return c.do(func() error { return Locked{c}.CopyFromDevice(dst, src, bytes) })
}

// CopyFromDevice is Context.CopyFromDevice inside Do.
func (l Locked) CopyFromDevice(dst unsafe.Pointer, src DevicePtr, bytes uint64) error {
	if bytes == 0 {
		return nil
	}
	n, err := sizeT("CopyFromDevice", bytes)
	if err != nil {
		return err
	}
	err = check("cuMemcpyDtoH_v2", l.c.drv.cuMemcpyDtoH(dst, uint64(src), n))
	runtime.KeepAlive(dst)
	return err
}

// Memset32 sets count 32-bit words at dst to value.
func (c *Context) Memset32(dst DevicePtr, value uint32, count uint64) error {
	return c.do(func() error { return Locked{c}.Memset32(dst, value, count) })
}

// Memset32 is Context.Memset32 inside Do.
func (l Locked) Memset32(dst DevicePtr, value uint32, count uint64) error {
	n, err := sizeT("Memset32", count)
	if err != nil {
		return err
	}
	return check("cuMemsetD32_v2", l.c.drv.cuMemsetD32(uint64(dst), value, n))
}

// Synchronize waits for all work on the context to finish. Errors from
// kernels (illegal address, ...) surface here, since launches are
// asynchronous.
func (c *Context) Synchronize() error {
	return c.do(Locked{c}.Synchronize)
}

// Synchronize is Context.Synchronize inside Do.
func (l Locked) Synchronize() error {
	return check("cuCtxSynchronize", l.c.drv.cuCtxSynchronize())
}
