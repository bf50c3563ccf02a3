package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// JIT compilation of PTX text by the driver, with its logs and the
// resources of the result: the per-model kernels are compiled this way at
// run time, with no CUDA toolkit on the machine.

// JIT options of cuLinkCreate (CUjit_option), the PTX input type
// (CUjitInputType) and function attributes (CUfunction_attribute).
const (
	jitWallTime        = 2
	jitInfoLogBuffer   = 3
	jitInfoLogBytes    = 4
	jitErrorLogBuffer  = 5
	jitErrorLogBytes   = 6
	jitLogVerbose      = 12
	jitLogCapacity     = 64 << 10
	jitInputPTX        = 1
	funcAttrLocalBytes = 3
	funcAttrNumRegs    = 4
)

// JITReport is what the driver said about one compilation.
type JITReport struct {
	Wall     time.Duration // the driver's own measure of the compile
	InfoLog  string        // ptxas's informational output (registers, spills)
	ErrorLog string
}

// LoadPTX JIT-compiles PTX text and loads the result. The error of a
// failed compile carries the driver's error log.
//
// The driver holds a context's lock while it compiles PTX loaded into it,
// and launches on that context wait meanwhile
// (docs/log/BENCHMARKS-runs.md, run 10b). So the PTX is compiled in a context of its own (cuLinkCreate …
// cuLinkComplete, which yields a cubin there), and only the cubin is
// loaded into c, which takes milliseconds.
func (c *Context) LoadPTX(ptx []byte) (*Module, JITReport, error) {
	cubin, rep, err := c.compilePTX(ptx)
	if err != nil {
		return nil, rep, err
	}
	m, err := c.LoadModule(cubin)
	return m, rep, err
}

// The JIT contexts, one per device, made on first use and kept for the
// process (as the driver handle is): a context costs device memory and
// time to make, and every sampler of a device can compile in the same one.
// jitMu serializes the compiles; the driver runs them one at a time anyway.
var (
	jitMu       sync.Mutex
	jitContexts = map[int32]uintptr{}
)

// compilePTX compiles ptx to a cubin for c's device in its JIT context.
func (c *Context) compilePTX(ptx []byte) ([]byte, JITReport, error) {
	var rep JITReport
	if len(ptx) == 0 {
		return nil, rep, errors.New("gibbsrt: LoadPTX: empty PTX")
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return nil, rep, ErrContextClosed
	}
	jitMu.Lock()
	defer jitMu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if jit, ok := jitContexts[c.dev]; ok {
		if err := check("cuCtxSetCurrent", c.drv.cuCtxSetCurrent(jit)); err != nil {
			return nil, rep, err
		}
	} else {
		var jit uintptr // made current by its creation
		if err := check("cuCtxCreate_v2", c.drv.cuCtxCreate(&jit, 0, c.dev)); err != nil {
			return nil, rep, err
		}
		jitContexts[c.dev] = jit
	}
	buf := make([]byte, len(ptx)+1) // the driver reads PTX up to a NUL
	copy(buf, ptx)
	info := make([]byte, jitLogCapacity)
	elog := make([]byte, jitLogCapacity)
	opts := []int32{jitWallTime, jitInfoLogBuffer, jitInfoLogBytes, jitErrorLogBuffer, jitErrorLogBytes, jitLogVerbose}
	vals := []uintptr{0, uintptr(unsafe.Pointer(&info[0])), jitLogCapacity, uintptr(unsafe.Pointer(&elog[0])), jitLogCapacity, 1}
	var state uintptr
	if err := check("cuLinkCreate_v2", c.drv.cuLinkCreate(uint32(len(opts)), &opts[0], &vals[0], &state)); err != nil {
		return nil, rep, err
	}
	defer c.drv.cuLinkDestroy(state)
	name := []byte("model.ptx\x00")
	err := check("cuLinkAddData_v2", c.drv.cuLinkAddData(state, jitInputPTX, unsafe.Pointer(&buf[0]), uintptr(len(buf)), &name[0], 0, nil, nil))
	var cubin []byte
	if err == nil {
		var p unsafe.Pointer
		var size uintptr
		if err = check("cuLinkComplete", c.drv.cuLinkComplete(state, &p, &size)); err == nil {
			cubin = append([]byte(nil), unsafe.Slice((*byte)(p), size)...) // owned by state until cuLinkDestroy
		}
	}
	// The size options now hold the bytes written; the wall time option
	// holds a float32 of milliseconds in its low bytes.
	rep.Wall = time.Duration(float64(math.Float32frombits(uint32(vals[0]))) * float64(time.Millisecond))
	rep.InfoLog = cString(&info[0], int(min(vals[2], jitLogCapacity)))
	rep.ErrorLog = cString(&elog[0], int(min(vals[4], jitLogCapacity)))
	if err != nil {
		if rep.ErrorLog != "" {
			err = detail([]error{err}, "%v:\n%s", err, rep.ErrorLog)
		}
		return nil, rep, err
	}
	return cubin, rep, nil
}

// FuncResources are a compiled kernel's registers and local memory per
// thread (local memory is where ptxas spills).
type FuncResources struct {
	Registers, LocalBytes int
}

// Resources returns f's resources.
func (c *Context) Resources(f Function) (FuncResources, error) {
	var r FuncResources
	err := c.do(func() error {
		for _, a := range []struct {
			attr int32
			dst  *int
		}{{funcAttrNumRegs, &r.Registers}, {funcAttrLocalBytes, &r.LocalBytes}} {
			var v int32
			if err := check("cuFuncGetAttribute", c.drv.cuFuncGetAttribute(&v, a.attr, uintptr(f))); err != nil {
				return err
			}
			*a.dst = int(v)
		}
		return nil
	})
	if err != nil {
		return r, fmt.Errorf("gibbsrt: reading a kernel's resources: %w", err)
	}
	return r, nil
}
