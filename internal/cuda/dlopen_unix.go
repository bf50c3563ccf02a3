//go:build darwin || freebsd || linux || netbsd

package cuda

import (
	"fmt"
	"runtime"

	"github.com/ebitengine/purego"
)

// These are the platforms where purego provides Dlopen; the driver library
// is loaded only there (dlopen_other.go says no elsewhere).

// dlerror's message is per OS thread: purego calls dlopen and then dlerror
// as two C calls, and a goroutine moved between them reads another thread's
// (empty) message. Locking the thread keeps the reason in the error.

func dlopen(library string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlopen(library, purego.RTLD_NOW|purego.RTLD_LOCAL)
}

func dlsym(h uintptr, name string) (uintptr, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return purego.Dlsym(h, name)
}

// register binds fptr to the C function at addr, turning purego's panic on
// an unsupported Go signature into an error.
func register(fptr any, addr uintptr) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	purego.RegisterFunc(fptr, addr)
	return nil
}
