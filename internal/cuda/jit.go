package cuda

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"
)

// JIT compilation of PTX text by the driver, with its logs and the
// resources of the result: the per-model kernels are compiled this way at
// run time, with no CUDA toolkit on the machine.

// cuModuleLoadDataEx options (CUjit_option).
const (
	jitWallTime        = 2
	jitInfoLogBuffer   = 3
	jitInfoLogBytes    = 4
	jitErrorLogBuffer  = 5
	jitErrorLogBytes   = 6
	jitLogVerbose      = 12
	jitLogCapacity     = 64 << 10
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
// failed compile carries the driver's error log. The call holds no lock
// of c while the driver compiles, so other goroutines keep launching.
func (c *Context) LoadPTX(ptx []byte) (*Module, JITReport, error) {
	var rep JITReport
	if len(ptx) == 0 {
		return nil, rep, errors.New("gibbsrt: LoadPTX: empty PTX")
	}
	buf := make([]byte, len(ptx)+1) // the driver reads PTX up to a NUL
	copy(buf, ptx)
	info := make([]byte, jitLogCapacity)
	elog := make([]byte, jitLogCapacity)
	opts := []int32{jitWallTime, jitInfoLogBuffer, jitInfoLogBytes, jitErrorLogBuffer, jitErrorLogBytes, jitLogVerbose}
	vals := []uintptr{0, uintptr(unsafe.Pointer(&info[0])), jitLogCapacity, uintptr(unsafe.Pointer(&elog[0])), jitLogCapacity, 1}
	m := &Module{ctx: c, image: buf}
	err := c.do(func() error {
		return check("cuModuleLoadDataEx", c.drv.cuModuleLoadDataEx(&m.h, unsafe.Pointer(&buf[0]), uint32(len(opts)), &opts[0], &vals[0]))
	})
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
	return m, rep, nil
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
