// Package cuda binds the CUDA driver API (libcuda.so.1) for gibbsrt and the
// benchmark. It is internal: generated packages reach the device only
// through gibbsrt's typed API.
package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file wraps the CUDA driver API (libcuda.so.1). The library is opened
// at run time with purego rather than linked with cgo, so that programs build
// with CGO_ENABLED=0 and start (and report a clear error) on machines
// without the NVIDIA driver. Signatures follow cuda.h; the C types map to Go
// as: CUresult, int, CUdevice -> int32; unsigned int -> uint32; size_t ->
// uintptr; CUdeviceptr (unsigned long long) -> uint64; opaque handles
// (CUcontext, CUmodule, CUfunction, CUevent, CUstream) -> uintptr.

// driverLibrary is the soname of the driver: the unversioned libcuda.so is
// only present with development packages, and may be the toolkit's stub.
const driverLibrary = "libcuda.so.1"

// Result is a CUresult code.
type Result int32

// CUresult codes that this package treats specially.
const (
	resultSuccess     Result = 0
	resultStubLibrary Result = 34
	resultNoDevice    Result = 100
)

// resultNames names the common codes, for when the driver (and so
// cuGetErrorName) is unavailable. Values are from cuda.h.
var resultNames = map[Result]string{
	0:   "CUDA_SUCCESS",
	1:   "CUDA_ERROR_INVALID_VALUE",
	2:   "CUDA_ERROR_OUT_OF_MEMORY",
	3:   "CUDA_ERROR_NOT_INITIALIZED",
	4:   "CUDA_ERROR_DEINITIALIZED",
	34:  "CUDA_ERROR_STUB_LIBRARY",
	46:  "CUDA_ERROR_DEVICE_UNAVAILABLE",
	100: "CUDA_ERROR_NO_DEVICE",
	101: "CUDA_ERROR_INVALID_DEVICE",
	200: "CUDA_ERROR_INVALID_IMAGE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
	209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
	218: "CUDA_ERROR_INVALID_PTX",
	222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
	300: "CUDA_ERROR_INVALID_SOURCE",
	301: "CUDA_ERROR_FILE_NOT_FOUND",
	304: "CUDA_ERROR_OPERATING_SYSTEM",
	400: "CUDA_ERROR_INVALID_HANDLE",
	500: "CUDA_ERROR_NOT_FOUND",
	600: "CUDA_ERROR_NOT_READY",
	700: "CUDA_ERROR_ILLEGAL_ADDRESS",
	701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
	702: "CUDA_ERROR_LAUNCH_TIMEOUT",
	709: "CUDA_ERROR_CONTEXT_IS_DESTROYED",
	715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
	716: "CUDA_ERROR_MISALIGNED_ADDRESS",
	719: "CUDA_ERROR_LAUNCH_FAILED",
	801: "CUDA_ERROR_NOT_SUPPORTED",
	803: "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH",
	999: "CUDA_ERROR_UNKNOWN",
}

// String returns the code's name, e.g. "CUDA_ERROR_NO_DEVICE". It asks the
// driver when it is already loaded (it knows codes newer than this table)
// but never loads it, so it is cheap and safe to call anywhere.
func (r Result) String() string {
	if d := loadedDriver.Load(); d != nil {
		var p *byte
		if d.cuGetErrorName(r, &p) == resultSuccess && p != nil {
			if s := cString(p, 128); s != "" {
				return s
			}
		}
	}
	if s, ok := resultNames[r]; ok {
		return s
	}
	return "CUresult(" + strconv.Itoa(int(r)) + ")"
}

// DriverError is a failed driver call.
type DriverError struct {
	Call string // the driver function, e.g. "cuModuleLoadData"
	Code Result
}

func (e *DriverError) Error() string {
	return fmt.Sprintf("gibbsrt: %s failed: %s (%d)", e.Call, e.Code, int32(e.Code))
}

var (
	// ErrNoDriver is returned, wrapped with details, when libcuda.so.1 cannot
	// be opened or lacks a needed symbol.
	ErrNoDriver = errors.New("gibbsrt: libcuda.so.1 (the NVIDIA driver library) could not be loaded")
	// ErrNoDevice is returned, wrapped with details, when the driver finds no
	// CUDA device or fewer than the ordinal asked for.
	ErrNoDevice = errors.New("gibbsrt: no CUDA device found")
	// ErrContextClosed is returned by every method of a closed Context.
	ErrContextClosed = errors.New("gibbsrt: CUDA context is closed")
)

// detailError carries its own message while still matching the sentinels
// and causes it wraps with errors.Is and errors.As. fmt.Errorf("%w: %w")
// would repeat the "gibbsrt:" prefix of each part.
type detailError struct {
	msg    string
	causes []error
}

func (e *detailError) Error() string   { return e.msg }
func (e *detailError) Unwrap() []error { return e.causes }

func detail(causes []error, format string, args ...any) error {
	return &detailError{msg: fmt.Sprintf(format, args...), causes: causes}
}

// check turns a CUresult into an error naming the call.
func check(call string, r Result) error {
	if r == resultSuccess {
		return nil
	}
	return &DriverError{Call: call, Code: r}
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

// driver holds the bound driver entry points. Out-parameters are typed Go
// pointers: purego passes them as addresses and keeps the (heap) objects
// alive for the call.
type driver struct {
	cuInit                    func(flags uint32) Result
	cuDriverGetVersion        func(version *int32) Result
	cuGetErrorName            func(r Result, name **byte) Result
	cuDeviceGetCount          func(count *int32) Result
	cuDeviceGet               func(dev *int32, ordinal int32) Result
	cuDeviceGetName           func(name *byte, length int32, dev int32) Result
	cuDeviceGetAttribute      func(value *int32, attr int32, dev int32) Result
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) Result
	cuDevicePrimaryCtxRelease func(dev int32) Result
	cuCtxSetCurrent           func(ctx uintptr) Result
	cuCtxSynchronize          func() Result
	cuModuleLoadData          func(mod *uintptr, image unsafe.Pointer) Result
	cuCtxCreate               func(ctx *uintptr, flags uint32, dev int32) Result
	cuLinkCreate              func(n uint32, opts *int32, vals *uintptr, state *uintptr) Result
	cuLinkAddData             func(state uintptr, kind int32, data unsafe.Pointer, size uintptr, name *byte, n uint32, opts *int32, vals *uintptr) Result
	cuLinkComplete            func(state uintptr, cubin *unsafe.Pointer, size *uintptr) Result
	cuLinkDestroy             func(state uintptr) Result
	cuModuleUnload            func(mod uintptr) Result
	cuModuleGetFunction       func(f *uintptr, mod uintptr, name *byte) Result
	cuModuleGetGlobal         func(ptr *uint64, bytes *uintptr, mod uintptr, name *byte) Result
	cuFuncGetAttribute        func(value *int32, attr int32, f uintptr) Result
	cuFuncSetAttribute        func(f uintptr, attr int32, value int32) Result
	cuMemAlloc                func(ptr *uint64, bytes uintptr) Result
	cuMemFree                 func(ptr uint64) Result
	cuMemcpyHtoD              func(dst uint64, src unsafe.Pointer, bytes uintptr) Result
	cuMemcpyDtoH              func(dst unsafe.Pointer, src uint64, bytes uintptr) Result
	cuMemcpyDtoD              func(dst, src uint64, bytes uintptr) Result
	cuMemsetD32               func(dst uint64, value uint32, count uintptr) Result
	cuLaunchKernel            func(f uintptr, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes uint32, stream uintptr, params, extra unsafe.Pointer) Result
	cuEventCreate             func(e *uintptr, flags uint32) Result
	cuEventRecord             func(e uintptr, stream uintptr) Result
	cuEventSynchronize        func(e uintptr) Result
	cuEventElapsedTime        func(ms *float32, start, end uintptr) Result
	cuEventDestroy            func(e uintptr) Result
	cuStreamCreate            func(s *uintptr, flags uint32) Result
	cuStreamDestroy           func(s uintptr) Result
	cuStreamSynchronize       func(s uintptr) Result
	cuMemHostAlloc            func(p *unsafe.Pointer, bytes uintptr, flags uint32) Result
	cuMemFreeHost             func(p unsafe.Pointer) Result
	cuMemHostGetDevicePointer func(d *uint64, p unsafe.Pointer, flags uint32) Result
	cuMemcpyHtoDAsync         func(dst uint64, src unsafe.Pointer, bytes uintptr, stream uintptr) Result
	cuMemcpyDtoHAsync         func(dst unsafe.Pointer, src uint64, bytes uintptr, stream uintptr) Result

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

// DevicePtr is a device address (CUdeviceptr).
type DevicePtr uint64

// Function is a kernel handle (CUfunction), valid while its module is loaded.
type Function uintptr

// Event is a CUDA event handle (CUevent), for timing.
type Event uintptr

// Device attributes and function attributes used here (cuda.h enums).
const (
	attrMultiprocessorCount    = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
	attrComputeCapabilityMajor = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
	attrComputeCapabilityMinor = 76 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
	attrMaxSharedPerBlockOptin = 97 // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN

	funcAttrSharedSizeBytes     = 1 // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (static shared memory)
	funcAttrMaxDynamicSharedMem = 8 // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
)

// Context is the primary context of one device.
//
// The driver's current context is per OS thread, and goroutines migrate
// between threads, so every call runs inside do: it locks the goroutine to
// its thread, makes the context current, calls the driver and unlocks. That
// makes all methods except Close safe for concurrent use.
type Context struct {
	drv     *driver
	dev     int32
	ordinal int
	ctx     uintptr

	name         string
	major, minor int
	sms          int

	// mu guards closed and active. Close waits for active calls to drain
	// before releasing the context; it sets closed first so that calls
	// nested inside an active Do fail instead of deadlocking.
	mu     sync.Mutex
	idle   sync.Cond
	closed bool
	active int
}

// DeviceCount returns the number of CUDA devices the driver sees (0 when
// it reports none). The error wraps ErrNoDriver when the driver library is
// missing.
func DeviceCount() (int, error) {
	_, n, err := initDriver()
	if errors.Is(err, ErrNoDevice) {
		return 0, nil
	}
	return n, err
}

// initDriver loads the driver, initializes it and counts its devices.
func initDriver() (*driver, int, error) {
	d, err := loadDriver()
	if err != nil {
		return nil, 0, err
	}
	// cuInit is cheap after the first call and must precede everything else.
	switch r := d.cuInit(0); r {
	case resultSuccess:
	case resultNoDevice:
		de := &DriverError{Call: "cuInit", Code: r}
		return nil, 0, detail([]error{ErrNoDevice, de}, "%v (cuInit: %s (%d))", ErrNoDevice, r, int32(r))
	case resultStubLibrary:
		// The toolkit ships a stub libcuda.so for linking; it loads, but is
		// not a driver.
		de := &DriverError{Call: "cuInit", Code: r}
		return nil, 0, detail([]error{ErrNoDriver, de},
			"%v: the library found is the CUDA toolkit's stub, not the NVIDIA driver (cuInit: %s (%d))", ErrNoDriver, r, int32(r))
	default:
		return nil, 0, &DriverError{Call: "cuInit", Code: r}
	}
	var count int32
	if err := check("cuDeviceGetCount", d.cuDeviceGetCount(&count)); err != nil {
		return nil, 0, err
	}
	return d, int(count), nil
}

// OpenDevice retains the primary context of device ordinal (0-based).
// The error wraps ErrNoDriver when the driver library is missing, and
// ErrNoDevice when there is no such device.
func OpenDevice(ordinal int) (*Context, error) {
	if ordinal < 0 || ordinal > math.MaxInt32 {
		return nil, fmt.Errorf("gibbsrt: invalid CUDA device ordinal %d", ordinal)
	}
	d, count, err := initDriver()
	if err != nil {
		return nil, err
	}
	if count == 0 {
		return nil, detail([]error{ErrNoDevice}, "%v (the driver reports 0 devices)", ErrNoDevice)
	}
	if ordinal >= count {
		plural := "s"
		if count == 1 {
			plural = ""
		}
		return nil, detail([]error{ErrNoDevice}, "gibbsrt: device %d requested but only %d CUDA device%s", ordinal, count, plural)
	}
	c := &Context{drv: d, ordinal: ordinal}
	c.idle.L = &c.mu
	if err := check("cuDeviceGet", d.cuDeviceGet(&c.dev, int32(ordinal))); err != nil {
		return nil, err
	}
	var name [256]byte
	if err := check("cuDeviceGetName", d.cuDeviceGetName(&name[0], int32(len(name)), c.dev)); err != nil {
		return nil, err
	}
	c.name = cString(&name[0], len(name))
	for _, a := range []struct {
		attr int32
		dst  *int
	}{
		{attrComputeCapabilityMajor, &c.major},
		{attrComputeCapabilityMinor, &c.minor},
		{attrMultiprocessorCount, &c.sms},
	} {
		var v int32
		if err := check("cuDeviceGetAttribute", d.cuDeviceGetAttribute(&v, a.attr, c.dev)); err != nil {
			return nil, err
		}
		*a.dst = int(v)
	}
	if err := check("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain(&c.ctx, c.dev)); err != nil {
		return nil, err
	}
	return c, nil
}

// Close releases the primary context. It waits for calls in progress on
// other goroutines; it must not be called from inside Do. Calling it again
// does nothing. Device memory, modules and events still held are freed
// with the context when no other Context of the device retains it.
func (c *Context) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	for c.active > 0 {
		c.idle.Wait()
	}
	c.mu.Unlock()
	return check(c.drv.releaseName, c.drv.cuDevicePrimaryCtxRelease(c.dev))
}

// Locked is the context made current on a locked OS thread: the view that
// Do hands its function. Its methods skip Do's locking, so a sequence of
// calls pays for it once; it is valid only during that call of Do.
type Locked struct{ c *Context }

// Do runs f with the context current on a locked OS thread. Methods of c
// may be called from f; Close may not.
func (c *Context) Do(f func(Locked) error) error { return c.do(func() error { return f(Locked{c}) }) }

func (c *Context) do(f func() error) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return ErrContextClosed
	}
	c.active++
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		c.active--
		if c.active == 0 {
			c.idle.Broadcast()
		}
		c.mu.Unlock()
	}()

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check("cuCtxSetCurrent", c.drv.cuCtxSetCurrent(c.ctx)); err != nil {
		return err
	}
	return f()
}

// Ordinal returns the device ordinal the context was opened for.
func (c *Context) Ordinal() int { return c.ordinal }

// DeviceName returns the device's name, e.g. "NVIDIA H100 80GB HBM3".
func (c *Context) DeviceName() string { return c.name }

// ComputeCapability returns the device's compute capability, e.g. 9, 0.
func (c *Context) ComputeCapability() (major, minor int) { return c.major, c.minor }

// MultiprocessorCount returns the number of streaming multiprocessors.
func (c *Context) MultiprocessorCount() int { return c.sms }

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

// CopyDeviceToDevice is a copy of bytes from src to dst, both device
// memory, inside Do. It is ordered on the null stream, after the work
// queued before it.
func (l Locked) CopyDeviceToDevice(dst, src DevicePtr, bytes uint64) error {
	if bytes == 0 {
		return nil
	}
	n, err := sizeT("CopyDeviceToDevice", bytes)
	if err != nil {
		return err
	}
	return check("cuMemcpyDtoD_v2", l.c.drv.cuMemcpyDtoD(uint64(dst), uint64(src), n))
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

// Module is a loaded code image (fatbin, cubin or PTX), a CUmodule. It
// belongs to the Context that loaded it.
type Module struct {
	ctx *Context

	mu    sync.Mutex // guards h and image
	h     uintptr    // 0 once unloaded
	image []byte     // the NUL-terminated copy handed to the driver
}

var errModuleUnloaded = errors.New("gibbsrt: CUDA module is unloaded")

// LoadModule loads image, a fatbin, cubin or PTX text, with cuModuleLoadData.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, errors.New("gibbsrt: LoadModule: empty image")
	}
	// cuModuleLoadData recognises fatbins and cubins by their headers, but
	// reads PTX up to a NUL byte, which a Go slice need not have. A copy
	// with a NUL appended is safe for all three. The driver is not known to
	// keep the pointer, but the copy is kept until Unload anyway, which
	// costs little and keeps it valid (Go does not move heap objects) should
	// lazy loading read it later. It is not pinned: a runtime.Pinner still
	// holding pins when collected panics, and modules are often never
	// unloaded explicitly.
	buf := make([]byte, len(image)+1)
	copy(buf, image)
	m := &Module{ctx: c, image: buf}
	err := c.do(func() error {
		return check("cuModuleLoadData", c.drv.cuModuleLoadData(&m.h, unsafe.Pointer(&buf[0])))
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Function returns the kernel called name; kernels should be declared
// extern "C" so that name is not mangled.
func (m *Module) Function(name string) (Function, error) {
	cname, err := cName(name)
	if err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h == 0 {
		return 0, errModuleUnloaded
	}
	var f uintptr
	err = m.ctx.do(func() error {
		return check("cuModuleGetFunction", m.ctx.drv.cuModuleGetFunction(&f, m.h, &cname[0]))
	})
	var de *DriverError
	if errors.As(err, &de) && de.Code == 500 { // CUDA_ERROR_NOT_FOUND
		return 0, detail([]error{err}, "gibbsrt: kernel %q not found in module (cuModuleGetFunction: %s (%d))", name, de.Code, int32(de.Code))
	}
	if err != nil {
		return 0, err
	}
	return Function(f), nil
}

// Global returns the address and size in bytes of the module-scope
// __device__ or __constant__ variable called name.
func (m *Module) Global(name string) (DevicePtr, uint64, error) {
	cname, err := cName(name)
	if err != nil {
		return 0, 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h == 0 {
		return 0, 0, errModuleUnloaded
	}
	var p uint64
	var size uintptr
	err = m.ctx.do(func() error {
		return check("cuModuleGetGlobal_v2", m.ctx.drv.cuModuleGetGlobal(&p, &size, m.h, &cname[0]))
	})
	var de *DriverError
	if errors.As(err, &de) && de.Code == 500 { // CUDA_ERROR_NOT_FOUND
		return 0, 0, detail([]error{err}, "gibbsrt: global %q not found in module (cuModuleGetGlobal_v2: %s (%d))", name, de.Code, int32(de.Code))
	}
	if err != nil {
		return 0, 0, err
	}
	return DevicePtr(p), uint64(size), nil
}

// Unload unloads the module; its Functions become invalid. Calling it again
// does nothing. After the Context is closed it returns ErrContextClosed.
func (m *Module) Unload() error {
	m.mu.Lock()
	unloaded := m.h == 0
	m.mu.Unlock()
	if unloaded {
		return nil
	}
	return m.ctx.do(func() error { return Locked{m.ctx}.Unload(m) })
}

// Unload is Module.Unload inside Do.
func (l Locked) Unload(m *Module) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.h == 0 {
		return nil
	}
	if err := check("cuModuleUnload", m.ctx.drv.cuModuleUnload(m.h)); err != nil {
		return err
	}
	m.h = 0
	m.image = nil
	return nil
}

// kernelParams builds cuLaunchKernel's kernelParams: one pointer per
// argument to a copy of its value. Each value gets its own 8-byte slot of
// vals (8-byte aligned, so fine for every supported type), and is written
// through a pointer of its own type so the layout is right on any byte
// order. It rejects types whose C counterpart would be ambiguous (int,
// uintptr) or that the kernels do not take.
func kernelParams(args []any) (vals []uint64, ptrs []unsafe.Pointer, err error) {
	if len(args) == 0 {
		return nil, nil, nil
	}
	vals = make([]uint64, len(args))
	ptrs = make([]unsafe.Pointer, len(args))
	for i, a := range args {
		p := unsafe.Pointer(&vals[i])
		switch v := a.(type) {
		case DevicePtr:
			*(*uint64)(p) = uint64(v)
		case uint64:
			*(*uint64)(p) = v
		case int64:
			*(*int64)(p) = v
		case uint32:
			*(*uint32)(p) = v
		case int32:
			*(*int32)(p) = v
		case float32:
			*(*float32)(p) = v
		case float64:
			*(*float64)(p) = v
		default:
			return nil, nil, fmt.Errorf("gibbsrt: kernel argument %d has unsupported type %T (want DevicePtr, uint64, int64, uint32, int32, float32 or float64)", i, a)
		}
		ptrs[i] = p
	}
	return vals, ptrs, nil
}

// Launch launches f on the null stream with the given grid and block
// dimensions and dynamic shared memory. args are the kernel arguments in
// order, each a DevicePtr, uint64, int64, uint32, int32, float32 or float64, passed
// by value as the matching C type. The launch is asynchronous: errors in
// the kernel itself surface at the next synchronizing call.
func (c *Context) Launch(f Function, grid, block [3]uint32, sharedBytes uint32, args ...any) error {
	// Bad arguments are reported before the context is touched.
	vals, ptrs, err := launchParams(f, args)
	if err != nil {
		return err
	}
	return c.do(func() error { return c.launchPacked(0, f, grid, block, sharedBytes, vals, ptrs) })
}

// Launch is Context.Launch inside Do.
func (l Locked) Launch(f Function, grid, block [3]uint32, sharedBytes uint32, args ...any) error {
	vals, ptrs, err := launchParams(f, args)
	if err != nil {
		return err
	}
	return l.c.launchPacked(0, f, grid, block, sharedBytes, vals, ptrs)
}

func launchParams(f Function, args []any) (vals []uint64, ptrs []unsafe.Pointer, err error) {
	if f == 0 {
		return nil, nil, errors.New("gibbsrt: Launch: nil Function")
	}
	return kernelParams(args)
}

func (c *Context) launchPacked(stream Stream, f Function, grid, block [3]uint32, sharedBytes uint32, vals []uint64, ptrs []unsafe.Pointer) error {
	// The driver reads the array and the values it points to during the
	// call. The array holds Go pointers, so both are pinned, as the cgo
	// rules require for Go memory containing Go pointers.
	var params unsafe.Pointer
	var pin runtime.Pinner
	defer pin.Unpin()
	if len(ptrs) > 0 {
		pin.Pin(&vals[0])
		pin.Pin(&ptrs[0])
		params = unsafe.Pointer(&ptrs[0])
	}
	r := c.drv.cuLaunchKernel(uintptr(f),
		grid[0], grid[1], grid[2], block[0], block[1], block[2],
		sharedBytes, uintptr(stream), params, nil)
	runtime.KeepAlive(vals)
	runtime.KeepAlive(ptrs)
	return check("cuLaunchKernel", r)
}

// SetMaxDynamicShared sets CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
// which launches asking for more than the default 48 KiB of dynamic shared
// memory require.
func (c *Context) SetMaxDynamicShared(f Function, bytes int) error {
	if bytes < 0 || bytes > math.MaxInt32 {
		return fmt.Errorf("gibbsrt: SetMaxDynamicShared: invalid size %d", bytes)
	}
	return c.do(func() error {
		err := check("cuFuncSetAttribute", c.drv.cuFuncSetAttribute(uintptr(f), funcAttrMaxDynamicSharedMem, int32(bytes)))
		if err == nil {
			return nil
		}
		// The usual cause is asking for more than the device allows;
		// say what the limit is.
		var optin, static int32
		if c.drv.cuDeviceGetAttribute(&optin, attrMaxSharedPerBlockOptin, c.dev) != resultSuccess ||
			c.drv.cuFuncGetAttribute(&static, funcAttrSharedSizeBytes, uintptr(f)) != resultSuccess {
			return err
		}
		return detail([]error{err}, "%v: requested %d bytes of dynamic shared memory; the device allows %d bytes per block and the kernel uses %d statically",
			err, bytes, optin, static)
	})
}

// NewEvent creates an event with default flags (timing enabled).
func (c *Context) NewEvent() (Event, error) {
	var e uintptr
	err := c.do(func() error {
		return check("cuEventCreate", c.drv.cuEventCreate(&e, 0)) // CU_EVENT_DEFAULT
	})
	if err != nil {
		return 0, err
	}
	return Event(e), nil
}

// Record records e on the null stream.
func (c *Context) Record(e Event) error {
	return c.do(func() error {
		return check("cuEventRecord", c.drv.cuEventRecord(uintptr(e), 0))
	})
}

// ElapsedMillis waits for end to complete and returns the time in
// milliseconds between the recordings of start and end.
func (c *Context) ElapsedMillis(start, end Event) (float32, error) {
	var ms float32
	err := c.do(func() error {
		if err := check("cuEventSynchronize", c.drv.cuEventSynchronize(uintptr(end))); err != nil {
			return err
		}
		return check("cuEventElapsedTime", c.drv.cuEventElapsedTime(&ms, uintptr(start), uintptr(end)))
	})
	if err != nil {
		return 0, err
	}
	return ms, nil
}

// DestroyEvent destroys e.
func (c *Context) DestroyEvent(e Event) error {
	return c.do(func() error {
		return check("cuEventDestroy_v2", c.drv.cuEventDestroy(uintptr(e)))
	})
}
