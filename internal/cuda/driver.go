package cuda

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// driverLibrary is the soname of the driver: the unversioned libcuda.so is
// only present with development packages, and may be the toolkit's stub.
const driverLibrary = "libcuda.so.1"

// driver holds the bound driver entry points. Out-parameters are typed Go
// pointers: purego passes them as addresses and keeps the (heap) objects
// alive for the call.
type driver struct {
	cuInit                                      func(flags uint32) Result
	cuDriverGetVersion                          func(version *int32) Result
	cuGetErrorName                              func(r Result, name **byte) Result
	cuDeviceGetCount                            func(count *int32) Result
	cuDeviceGet                                 func(dev *int32, ordinal int32) Result
	cuDeviceGetName                             func(name *byte, length int32, dev int32) Result
	cuDeviceGetAttribute                        func(value *int32, attr int32, dev int32) Result
	cuDevicePrimaryCtxRetain                    func(ctx *uintptr, dev int32) Result
	cuDevicePrimaryCtxRelease                   func(dev int32) Result
	cuCtxSetCurrent                             func(ctx uintptr) Result
	cuCtxSynchronize                            func() Result
	cuModuleLoadData                            func(mod *uintptr, image unsafe.Pointer) Result
	cuCtxCreate                                 func(ctx *uintptr, flags uint32, dev int32) Result
	cuLinkCreate                                func(n uint32, opts *int32, vals *uintptr, state *uintptr) Result
	cuLinkAddData                               func(state uintptr, kind int32, data unsafe.Pointer, size uintptr, name *byte, n uint32, opts *int32, vals *uintptr) Result
	cuLinkComplete                              func(state uintptr, cubin *unsafe.Pointer, size *uintptr) Result
	cuLinkDestroy                               func(state uintptr) Result
	cuModuleUnload                              func(mod uintptr) Result
	cuModuleGetFunction                         func(f *uintptr, mod uintptr, name *byte) Result
	cuModuleGetGlobal                           func(ptr *uint64, bytes *uintptr, mod uintptr, name *byte) Result
	cuFuncGetAttribute                          func(value *int32, attr int32, f uintptr) Result
	cuFuncSetAttribute                          func(f uintptr, attr int32, value int32) Result
	cuOccupancyMaxActiveBlocksPerMultiprocessor func(n *int32, f uintptr, blockSize int32, dynamicShared uintptr) Result
	cuMemAlloc                                  func(ptr *uint64, bytes uintptr) Result
	cuMemFree                                   func(ptr uint64) Result
	cuMemcpyHtoD                                func(dst uint64, src unsafe.Pointer, bytes uintptr) Result
	cuMemcpyDtoH                                func(dst unsafe.Pointer, src uint64, bytes uintptr) Result
	cuMemcpyDtoD                                func(dst, src uint64, bytes uintptr) Result
	cuMemsetD32                                 func(dst uint64, value uint32, count uintptr) Result
	cuLaunchKernel                              func(f uintptr, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes uint32, stream uintptr, params, extra unsafe.Pointer) Result
	cuEventCreate                               func(e *uintptr, flags uint32) Result
	cuEventRecord                               func(e uintptr, stream uintptr) Result
	cuEventSynchronize                          func(e uintptr) Result
	cuEventElapsedTime                          func(ms *float32, start, end uintptr) Result
	cuEventDestroy                              func(e uintptr) Result
	cuStreamCreate                              func(s *uintptr, flags uint32) Result
	cuStreamDestroy                             func(s uintptr) Result
	cuStreamSynchronize                         func(s uintptr) Result
	cuMemHostAlloc                              func(p *unsafe.Pointer, bytes uintptr, flags uint32) Result
	cuMemFreeHost                               func(p unsafe.Pointer) Result
	cuMemHostGetDevicePointer                   func(d *uint64, p unsafe.Pointer, flags uint32) Result
	cuMemcpyHtoDAsync                           func(dst uint64, src unsafe.Pointer, bytes uintptr, stream uintptr) Result
	cuMemcpyDtoHAsync                           func(dst unsafe.Pointer, src uint64, bytes uintptr, stream uintptr) Result
	cuMemcpyDtoDAsync                           func(dst, src uint64, bytes uintptr, stream uintptr) Result

	// Symbol names actually bound where there is a choice, for messages.
	releaseName string
}

var (
	driverOnce   sync.Once
	driverErr    error
	loadedDriver atomic.Pointer[driver] // set once loading succeeded; read by Result.String
)

// loadDriver opens the driver once per process and remembers the outcome:
// retrying a failed dlopen would not help, and the handle is never closed
// because contexts may outlive any one caller.
func loadDriver() (*driver, error) {
	driverOnce.Do(func() {
		d, err := loadDriverFrom(driverLibrary)
		if err != nil {
			driverErr = err
			return
		}
		loadedDriver.Store(d)
	})
	if driverErr != nil {
		return nil, driverErr
	}
	return loadedDriver.Load(), nil
}

// loadDriverFrom opens library and binds every entry point this package
// uses, so that a driver too old for one of them fails here, clearly, rather
// than at first use. Separate from loadDriver so tests can point it at
// libraries that are missing or lack the symbols.
func loadDriverFrom(library string) (*driver, error) {
	h, err := dlopen(library)
	if err != nil {
		return nil, detail([]error{ErrNoDriver, err}, "%v: dlopen %s: %v", ErrNoDriver, library, err)
	}
	d := new(driver)
	// Where cuda.h #defines a name to a _v2 symbol, bind the _v2 one: the
	// unsuffixed symbols keep the old (32-bit CUdeviceptr or otherwise
	// changed) semantics for binary compatibility.
	syms := []struct {
		fptr  any
		names []string
		bound *string
	}{
		{&d.cuInit, []string{"cuInit"}, nil},
		{&d.cuDriverGetVersion, []string{"cuDriverGetVersion"}, nil},
		{&d.cuGetErrorName, []string{"cuGetErrorName"}, nil},
		{&d.cuDeviceGetCount, []string{"cuDeviceGetCount"}, nil},
		{&d.cuDeviceGet, []string{"cuDeviceGet"}, nil},
		{&d.cuDeviceGetName, []string{"cuDeviceGetName"}, nil},
		{&d.cuDeviceGetAttribute, []string{"cuDeviceGetAttribute"}, nil},
		{&d.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}, nil},
		// Same signature; _v2 (CUDA 11) only drops a no-op restriction.
		{&d.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, &d.releaseName},
		{&d.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}, nil},
		{&d.cuCtxSynchronize, []string{"cuCtxSynchronize"}, nil},
		{&d.cuModuleLoadData, []string{"cuModuleLoadData"}, nil},
		{&d.cuCtxCreate, []string{"cuCtxCreate_v2"}, nil},
		{&d.cuLinkCreate, []string{"cuLinkCreate_v2"}, nil},
		{&d.cuLinkAddData, []string{"cuLinkAddData_v2"}, nil},
		{&d.cuLinkComplete, []string{"cuLinkComplete"}, nil},
		{&d.cuLinkDestroy, []string{"cuLinkDestroy"}, nil},
		{&d.cuModuleUnload, []string{"cuModuleUnload"}, nil},
		{&d.cuModuleGetFunction, []string{"cuModuleGetFunction"}, nil},
		{&d.cuModuleGetGlobal, []string{"cuModuleGetGlobal_v2"}, nil},
		{&d.cuFuncGetAttribute, []string{"cuFuncGetAttribute"}, nil},
		{&d.cuFuncSetAttribute, []string{"cuFuncSetAttribute"}, nil},
		{&d.cuOccupancyMaxActiveBlocksPerMultiprocessor, []string{"cuOccupancyMaxActiveBlocksPerMultiprocessor"}, nil},
		{&d.cuMemAlloc, []string{"cuMemAlloc_v2"}, nil},
		{&d.cuMemFree, []string{"cuMemFree_v2"}, nil},
		{&d.cuMemcpyHtoD, []string{"cuMemcpyHtoD_v2"}, nil},
		{&d.cuMemcpyDtoH, []string{"cuMemcpyDtoH_v2"}, nil},
		{&d.cuMemcpyDtoD, []string{"cuMemcpyDtoD_v2"}, nil},
		{&d.cuMemsetD32, []string{"cuMemsetD32_v2"}, nil},
		{&d.cuLaunchKernel, []string{"cuLaunchKernel"}, nil},
		{&d.cuEventCreate, []string{"cuEventCreate"}, nil},
		{&d.cuEventRecord, []string{"cuEventRecord"}, nil},
		{&d.cuEventSynchronize, []string{"cuEventSynchronize"}, nil},
		{&d.cuEventElapsedTime, []string{"cuEventElapsedTime"}, nil},
		{&d.cuEventDestroy, []string{"cuEventDestroy_v2"}, nil},
		{&d.cuStreamCreate, []string{"cuStreamCreate"}, nil},
		{&d.cuStreamDestroy, []string{"cuStreamDestroy_v2"}, nil},
		{&d.cuStreamSynchronize, []string{"cuStreamSynchronize"}, nil},
		{&d.cuMemHostAlloc, []string{"cuMemHostAlloc"}, nil},
		{&d.cuMemFreeHost, []string{"cuMemFreeHost"}, nil},
		{&d.cuMemHostGetDevicePointer, []string{"cuMemHostGetDevicePointer_v2"}, nil},
		{&d.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}, nil},
		{&d.cuMemcpyDtoHAsync, []string{"cuMemcpyDtoHAsync_v2"}, nil},
		{&d.cuMemcpyDtoDAsync, []string{"cuMemcpyDtoDAsync_v2"}, nil},
	}
	for _, s := range syms {
		var addr uintptr
		var name string
		var lastErr error
		for _, n := range s.names {
			// Look the symbol up first: RegisterLibFunc would panic on a
			// missing one.
			if addr, lastErr = dlsym(h, n); lastErr == nil && addr != 0 {
				name = n
				break
			}
		}
		if addr == 0 {
			if lastErr == nil {
				lastErr = errors.New("address is 0")
			}
			return nil, detail([]error{ErrNoDriver, lastErr},
				"%v: it lacks the symbol %s (driver too old?): %v", ErrNoDriver, s.names[0], lastErr)
		}
		if err := register(s.fptr, addr); err != nil {
			return nil, detail([]error{ErrNoDriver, err}, "%v: binding %s: %v", ErrNoDriver, name, err)
		}
		if s.bound != nil {
			*s.bound = name
		}
	}
	return d, nil
}

// DriverVersion returns the CUDA version the driver supports, encoded as
// 1000*major + 10*minor (e.g. 12020 for 12.2). It needs no device.
func DriverVersion() (int, error) {
	d, err := loadDriver()
	if err != nil {
		return 0, err
	}
	var v int32
	if err := check("cuDriverGetVersion", d.cuDriverGetVersion(&v)); err != nil {
		return 0, err
	}
	return int(v), nil
}

// sizeT converts a byte or element count to size_t, which is narrower than
// uint64 on 32-bit platforms.
func sizeT(what string, n uint64) (uintptr, error) {
	if uint64(uintptr(n)) != n {
		return 0, fmt.Errorf("gibbsrt: %s: %d does not fit in size_t", what, n)
	}
	return uintptr(n), nil
}

// cString copies the NUL-terminated C string at p, reading at most limit
// bytes so that a missing terminator cannot run away.
func cString(p *byte, limit int) string {
	if p == nil {
		return ""
	}
	n := 0
	for n < limit && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}

// cName returns name as a NUL-terminated byte slice for the driver.
func cName(name string) ([]byte, error) {
	for i := 0; i < len(name); i++ {
		if name[i] == 0 {
			return nil, fmt.Errorf("gibbsrt: symbol name %q contains a NUL byte", name)
		}
	}
	b := make([]byte, len(name)+1)
	copy(b, name)
	return b, nil
}
