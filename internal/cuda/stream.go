package cuda

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Streams and page-locked host memory: what lets a sampler's copies and
// launches overlap with other samplers' and skip the driver's staging of
// pageable memory.

// Stream is a CUstream; 0 is the legacy null stream.
type Stream uintptr

// NewStream creates a stream that synchronizes with the null stream
// (CU_STREAM_DEFAULT), so that work queued on the null stream, such as
// event timing, stays ordered with it, while streams of different samplers
// run concurrently.
func (c *Context) NewStream() (Stream, error) {
	var s uintptr
	err := c.do(func() error { return check("cuStreamCreate", c.drv.cuStreamCreate(&s, 0)) })
	return Stream(s), err
}

// DestroyStream destroys s once its work is done.
func (l Locked) DestroyStream(s Stream) error {
	return check("cuStreamDestroy_v2", l.c.drv.cuStreamDestroy(uintptr(s)))
}

// StreamSynchronize waits for the work queued on s.
func (l Locked) StreamSynchronize(s Stream) error {
	return check("cuStreamSynchronize", l.c.drv.cuStreamSynchronize(uintptr(s)))
}

// LaunchOn is Launch on stream s.
func (l Locked) LaunchOn(s Stream, f Function, grid, block [3]uint32, sharedBytes uint32, args ...any) error {
	vals, ptrs, err := launchParams(f, args)
	if err != nil {
		return err
	}
	return l.c.launchPacked(s, f, grid, block, sharedBytes, vals, ptrs)
}

// CopyToDeviceAsync queues a copy of bytes from host memory at src to dst
// on s. From page-locked memory it returns at once; src must then stay
// valid until the copy is done.
func (l Locked) CopyToDeviceAsync(dst DevicePtr, src unsafe.Pointer, bytes uint64, s Stream) error {
	if bytes == 0 {
		return nil
	}
	n, err := sizeT("CopyToDeviceAsync", bytes)
	if err != nil {
		return err
	}
	err = check("cuMemcpyHtoDAsync_v2", l.c.drv.cuMemcpyHtoDAsync(uint64(dst), src, n, uintptr(s)))
	runtime.KeepAlive(src)
	return err
}

// CopyDeviceAsync queues a copy of bytes from device memory at src to dst
// on s.
func (l Locked) CopyDeviceAsync(dst, src DevicePtr, bytes uint64, s Stream) error {
	if bytes == 0 {
		return nil
	}
	n, err := sizeT("CopyDeviceAsync", bytes)
	if err != nil {
		return err
	}
	return check("cuMemcpyDtoDAsync_v2", l.c.drv.cuMemcpyDtoDAsync(uint64(dst), uint64(src), n, uintptr(s)))
}

// CopyFromDeviceAsync queues a copy of bytes from src to host memory at dst
// on s.
func (l Locked) CopyFromDeviceAsync(dst unsafe.Pointer, src DevicePtr, bytes uint64, s Stream) error {
	if bytes == 0 {
		return nil
	}
	n, err := sizeT("CopyFromDeviceAsync", bytes)
	if err != nil {
		return err
	}
	err = check("cuMemcpyDtoHAsync_v2", l.c.drv.cuMemcpyDtoHAsync(dst, uint64(src), n, uintptr(s)))
	runtime.KeepAlive(dst)
	return err
}

// HostMemory is page-locked host memory that the device can also address
// directly (CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP).
type HostMemory struct {
	Host   unsafe.Pointer // for the host; not Go memory, so never moved or collected
	Device DevicePtr      // the same memory, for kernels
	Bytes  uint64
}

// Contains reports whether the bytes [p, p+n) lie inside m.
func (m HostMemory) Contains(p unsafe.Pointer, n uint64) bool {
	lo, hi := uintptr(m.Host), uintptr(m.Host)+uintptr(m.Bytes)
	return uintptr(p) >= lo && uintptr(p) <= hi && uint64(hi-uintptr(p)) >= n
}

const (
	hostAllocPortable  = 1 // CU_MEMHOSTALLOC_PORTABLE
	hostAllocDeviceMap = 2 // CU_MEMHOSTALLOC_DEVICEMAP
)

// AllocHost allocates bytes of page-locked, device-mapped host memory.
func (l Locked) AllocHost(bytes uint64) (HostMemory, error) {
	n, err := sizeT("AllocHost", bytes)
	if err != nil {
		return HostMemory{}, err
	}
	if n == 0 {
		return HostMemory{}, fmt.Errorf("gibbsrt: AllocHost of 0 bytes")
	}
	var p unsafe.Pointer
	if err := check("cuMemHostAlloc", l.c.drv.cuMemHostAlloc(&p, n, hostAllocPortable|hostAllocDeviceMap)); err != nil {
		return HostMemory{}, err
	}
	var d uint64
	if err := check("cuMemHostGetDevicePointer_v2", l.c.drv.cuMemHostGetDevicePointer(&d, p, 0)); err != nil {
		l.c.drv.cuMemFreeHost(p)
		return HostMemory{}, err
	}
	return HostMemory{Host: p, Device: DevicePtr(d), Bytes: bytes}, nil
}

// FreeHost frees memory from AllocHost.
func (l Locked) FreeHost(m HostMemory) error {
	return check("cuMemFreeHost", l.c.drv.cuMemFreeHost(m.Host))
}
