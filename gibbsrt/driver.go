package gibbsrt

import "github.com/gibbsgen/gibbsgen/internal/cuda"

// The CUDA driver binding is internal (internal/cuda); these are the parts a
// caller needs to tell why a sampler could not start.

var (
	// ErrNoDriver is wrapped by New's error when libcuda.so.1 cannot be
	// loaded: it is missing, lacks a needed symbol, is the toolkit's stub,
	// or the platform cannot load it (Windows, for one).
	ErrNoDriver = cuda.ErrNoDriver
	// ErrNoDevice is wrapped when the driver finds no CUDA device or fewer
	// than the ordinal asked for.
	ErrNoDevice = cuda.ErrNoDevice
)

// DriverError is a failed driver call, with the call and its CUresult.
type DriverError = cuda.DriverError

// DriverVersion returns the CUDA version the driver supports, encoded as
// 1000*major + 10*minor (e.g. 12020 for 12.2). It needs no device.
func DriverVersion() (int, error) { return cuda.DriverVersion() }
