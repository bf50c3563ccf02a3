//go:build !(darwin || freebsd || linux || netbsd)

package cuda

import (
	"errors"
	"runtime"
)

// On other platforms (Windows among them) the driver is never loaded: the
// package builds, and OpenDevice and DriverVersion return ErrNoDriver.

var errNoLoader = errors.New("loading " + driverLibrary + " is not supported on " + runtime.GOOS + "/" + runtime.GOARCH)

func dlopen(string) (uintptr, error) { return 0, errNoLoader }

func dlsym(uintptr, string) (uintptr, error) { return 0, errNoLoader }

func register(any, uintptr) error { return errNoLoader }
