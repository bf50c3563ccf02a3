// Package cuda binds the CUDA driver API (libcuda.so.1) for gibbsrt and the
// benchmark. It is internal: generated packages reach the device only
// through gibbsrt's typed API.
//
// The library is opened at run time with purego rather than linked with
// cgo, so that programs build with CGO_ENABLED=0 and start (and report a
// clear error) on machines without the NVIDIA driver. Signatures follow
// cuda.h; the C types map to Go as: CUresult, int, CUdevice -> int32;
// unsigned int -> uint32; size_t -> uintptr; CUdeviceptr (unsigned long
// long) -> uint64; opaque handles (CUcontext, CUmodule, CUfunction,
// CUevent, CUstream) -> uintptr.
//
// The files split the binding by concern: driver.go loads the library and
// binds its symbols, errors.go holds result codes and errors, context.go
// the device's context and the locking every call goes through, memory.go
// device memory and copies, module.go code images and their symbols,
// launch.go kernel launches, event.go timing events, stream.go streams and
// page-locked host memory, jit.go the driver's compilation of PTX.
package cuda
