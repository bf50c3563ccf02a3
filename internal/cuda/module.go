package cuda

import (
	"errors"
	"sync"
	"unsafe"
)

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
	return m.ctx.Do(func(l Locked) error { return l.Unload(m) })
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

// Function is a kernel handle (CUfunction), valid while its module is loaded.
type Function uintptr
