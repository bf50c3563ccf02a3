//go:build !(darwin || freebsd || linux || netbsd)

package cuda

import (
	"errors"
	"testing"
)

// TestNoDriverHere: where the driver is never loaded, opening a device and
// asking its version both fail with ErrNoDriver.
func TestNoDriverHere(t *testing.T) {
	if _, err := OpenDevice(0); !errors.Is(err, ErrNoDriver) {
		t.Errorf("OpenDevice: %v, want ErrNoDriver", err)
	}
	if _, err := DriverVersion(); !errors.Is(err, ErrNoDriver) {
		t.Errorf("DriverVersion: %v, want ErrNoDriver", err)
	}
}
