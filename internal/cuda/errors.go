package cuda

import (
	"errors"
	"fmt"
	"strconv"
)

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
