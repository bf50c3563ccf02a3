package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
)

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
	ops // the device calls it shares with Locked; ops.c is this Context

	drv     *driver
	dev     int32
	ordinal int
	ctx     uintptr

	name         string
	major, minor int
	sms          int
	sharedOptin  int // the most shared memory a block may have, static and dynamic

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
	c := newContext(d, ordinal)
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
		{attrMaxSharedPerBlockOptin, &c.sharedOptin},
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

// newContext is the Context of device ordinal before it is opened.
func newContext(d *driver, ordinal int) *Context {
	c := &Context{drv: d, ordinal: ordinal}
	c.ops = ops{c: c}
	c.idle.L = &c.mu
	return c
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
// calls pays for it once; it is valid only during that call of Do. It has
// the device calls of a Context (Alloc, Free, CopyToDevice,
// CopyFromDevice, Memset32, Launch, Synchronize) and those that are made
// inside Do only (streams, host memory, Unload).
type Locked struct{ ops }

// Do runs f with the context current on a locked OS thread. Methods of c
// may be called from f; Close may not.
func (c *Context) Do(f func(Locked) error) error {
	return c.do(func() error { return f(Locked{ops{c: c, inDo: true}}) })
}

// ops are the device calls of both a Context and a Locked, each written
// once: on a Context each call runs in a Do of its own, on a Locked, inside
// Do already, directly.
type ops struct {
	c    *Context
	inDo bool
}

// run runs f with the context current on a locked OS thread.
func (o ops) run(f func() error) error {
	if o.inDo {
		return f()
	}
	return o.c.do(f)
}

// Synchronize waits for all work on the context to finish. Errors from
// kernels (illegal address, ...) surface here, since launches are
// asynchronous.
func (o ops) Synchronize() error {
	return o.run(func() error { return check("cuCtxSynchronize", o.c.drv.cuCtxSynchronize()) })
}

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
