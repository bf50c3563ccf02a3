//go:build darwin || freebsd || linux || netbsd

package cuda

import (
	"errors"
	"math"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
)

func TestResultStringKnownCodes(t *testing.T) {
	want := map[Result]string{
		0:   "CUDA_SUCCESS",
		1:   "CUDA_ERROR_INVALID_VALUE",
		2:   "CUDA_ERROR_OUT_OF_MEMORY",
		3:   "CUDA_ERROR_NOT_INITIALIZED",
		4:   "CUDA_ERROR_DEINITIALIZED",
		100: "CUDA_ERROR_NO_DEVICE",
		101: "CUDA_ERROR_INVALID_DEVICE",
		200: "CUDA_ERROR_INVALID_IMAGE",
		201: "CUDA_ERROR_INVALID_CONTEXT",
		209: "CUDA_ERROR_NO_BINARY_FOR_GPU",
		218: "CUDA_ERROR_INVALID_PTX",
		222: "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
		300: "CUDA_ERROR_INVALID_SOURCE",
		301: "CUDA_ERROR_FILE_NOT_FOUND",
		400: "CUDA_ERROR_INVALID_HANDLE",
		500: "CUDA_ERROR_NOT_FOUND",
		700: "CUDA_ERROR_ILLEGAL_ADDRESS",
		701: "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
		702: "CUDA_ERROR_LAUNCH_TIMEOUT",
		715: "CUDA_ERROR_ILLEGAL_INSTRUCTION",
		716: "CUDA_ERROR_MISALIGNED_ADDRESS",
		719: "CUDA_ERROR_LAUNCH_FAILED",
		999: "CUDA_ERROR_UNKNOWN",
	}
	for r, name := range want {
		// The built-in table must hold them whether or not a driver is loaded.
		if got := resultNames[r]; got != name {
			t.Errorf("resultNames[%d] = %q, want %q", int32(r), got, name)
		}
		if got := r.String(); got != name {
			t.Errorf("Result(%d).String() = %q, want %q", int32(r), got, name)
		}
	}
}

func TestResultStringUnknownCodes(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{12345, "CUresult(12345)"},
		{-1, "CUresult(-1)"},
		{99, "CUresult(99)"},
	} {
		if got := tc.r.String(); got != tc.want {
			t.Errorf("Result(%d).String() = %q, want %q", int32(tc.r), got, tc.want)
		}
	}
}

func TestDriverErrorMessage(t *testing.T) {
	var err error = &DriverError{Call: "cuModuleLoadData", Code: 200}
	const want = "gibbsrt: cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (200)"
	if got := err.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var de *DriverError
	if !errors.As(err, &de) || de.Code != 200 {
		t.Errorf("errors.As(%v) failed", err)
	}
	err = &DriverError{Call: "cuInit", Code: 4242}
	if got := err.Error(); got != "gibbsrt: cuInit failed: CUresult(4242) (4242)" {
		t.Errorf("Error() = %q", got)
	}
}

func TestDriverLoadMissingLibrary(t *testing.T) {
	const lib = "libgibbsrt-no-such-library.so.1"
	// dlerror's message is per thread: repeat from many goroutines so that
	// a goroutine moved between dlopen and dlerror would show up as an
	// empty reason (as it once did in CI).
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = loadDriverFrom(lib)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err == nil {
			t.Fatalf("loadDriverFrom(%q) succeeded; want an error", lib)
		}
		if !errors.Is(err, ErrNoDriver) {
			t.Errorf("error %q does not wrap ErrNoDriver", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "libcuda.so.1 (the NVIDIA driver library) could not be loaded: dlopen "+lib+": ") {
			t.Errorf("error %q does not say which library could not be loaded", msg)
		}
		var dl purego.Dlerror
		if !errors.As(err, &dl) {
			t.Fatalf("error %q does not wrap the purego.Dlerror", msg)
		}
		if !strings.Contains(dl.Error(), lib) { // dlerror names the file
			t.Errorf("the dlopen error %q lacks dlerror's reason", dl.Error())
		}
	}
}

func TestDriverLoadMissingSymbol(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses libc.so.6")
	}
	// libc opens fine but is no driver: the first symbol must be reported.
	if _, err := purego.Dlopen("libc.so.6", purego.RTLD_NOW); err != nil {
		t.Skipf("libc.so.6 not loadable: %v", err)
	}
	_, err := loadDriverFrom("libc.so.6")
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("loadDriverFrom(libc.so.6) error = %v, want ErrNoDriver", err)
	}
	if !strings.Contains(err.Error(), "lacks the symbol cuInit") {
		t.Errorf("error %q does not name the missing symbol", err)
	}
}

func TestDriverVersion(t *testing.T) {
	v, err := DriverVersion()
	if err != nil {
		if !errors.Is(err, ErrNoDriver) {
			t.Fatalf("DriverVersion error = %v, want one wrapping ErrNoDriver", err)
		}
		t.Logf("no driver: %v", err)
		return
	}
	if v < 1000 {
		t.Errorf("DriverVersion = %d, implausible", v)
	}
	t.Logf("driver supports CUDA %d.%d", v/1000, v%1000/10)
}

// TestOpenDeviceWithoutGPU checks the errors on a machine without a usable
// GPU: no libcuda.so.1 (ErrNoDriver) or a driver but no device (ErrNoDevice).
func TestOpenDeviceWithoutGPU(t *testing.T) {
	c, err := OpenDevice(0)
	if err == nil {
		name := c.DeviceName()
		if cerr := c.Close(); cerr != nil {
			t.Errorf("Close: %v", cerr)
		}
		t.Skipf("a CUDA device is present (%s)", name)
	}
	if c != nil {
		t.Errorf("OpenDevice returned a Context with error %v", err)
	}
	t.Logf("OpenDevice(0): %v", err)
	switch {
	case errors.Is(err, ErrNoDriver):
		if !strings.Contains(err.Error(), "libcuda.so.1 (the NVIDIA driver library) could not be loaded") {
			t.Errorf("ErrNoDriver error %q lacks the explanation", err)
		}
	case errors.Is(err, ErrNoDevice):
		if !strings.Contains(err.Error(), "no CUDA device found") {
			t.Errorf("ErrNoDevice error %q lacks the explanation", err)
		}
	default:
		t.Fatalf("OpenDevice(0) error = %v, want one wrapping ErrNoDriver or ErrNoDevice", err)
	}
	// The outcome is stable: the driver is loaded (or not) once per process.
	_, err2 := OpenDevice(0)
	if errors.Is(err, ErrNoDriver) != errors.Is(err2, ErrNoDriver) || errors.Is(err, ErrNoDevice) != errors.Is(err2, ErrNoDevice) {
		t.Errorf("second OpenDevice(0) error %v differs from first %v", err2, err)
	}
	if _, err := OpenDevice(3); !errors.Is(err, ErrNoDriver) && !errors.Is(err, ErrNoDevice) {
		t.Errorf("OpenDevice(3) error = %v", err)
	}
}

func TestOpenDeviceNegativeOrdinal(t *testing.T) {
	if _, err := OpenDevice(-1); err == nil || !strings.Contains(err.Error(), "invalid CUDA device ordinal -1") {
		t.Errorf("OpenDevice(-1) error = %v", err)
	}
}

func TestOpenContextClosedErrors(t *testing.T) {
	// A closed Context never reaches the driver, so this runs anywhere.
	c := newContext(nil, 0)
	c.closed = true
	var buf [4]byte
	check := func(name string, err error) {
		t.Helper()
		if !errors.Is(err, ErrContextClosed) {
			t.Errorf("%s on a closed context: %v, want ErrContextClosed", name, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	check("Do", c.Do(func(Locked) error { t.Error("Do ran f"); return nil }))
	_, err := c.Alloc(16)
	check("Alloc", err)
	check("Free", c.Free(1))
	check("CopyToDevice", c.CopyToDevice(1, unsafe.Pointer(&buf[0]), 4))
	check("CopyToDevice(0 bytes)", c.CopyToDevice(1, nil, 0))
	check("CopyFromDevice", c.CopyFromDevice(unsafe.Pointer(&buf[0]), 1, 4))
	check("Memset32", c.Memset32(1, 0, 1))
	check("Synchronize", c.Synchronize())
	_, err = c.LoadModule([]byte("x"))
	check("LoadModule", err)
	check("Launch", c.Launch(1, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, DevicePtr(1), int32(2)))
	check("SetMaxDynamicShared", c.SetMaxDynamicShared(1, 1024))
	_, err = c.AllowDynamicShared(1, 1024)
	check("AllowDynamicShared", err)
	_, err = c.NewEvent()
	check("NewEvent", err)
	check("Record", c.Record(1))
	_, err = c.ElapsedMillis(1, 2)
	check("ElapsedMillis", err)
	check("DestroyEvent", c.DestroyEvent(1))

	m := &Module{ctx: c, h: 1}
	_, err = m.Function("k")
	check("Module.Function", err)
	_, _, err = m.Global("g")
	check("Module.Global", err)
	check("Module.Unload", m.Unload())
	m.h = 0
	if err := m.Unload(); err != nil {
		t.Errorf("Unload of an unloaded module: %v", err)
	}
	if _, err := m.Function("k"); !errors.Is(err, errModuleUnloaded) {
		t.Errorf("Function of an unloaded module: %v", err)
	}
}

func TestLaunchArgumentPacking(t *testing.T) {
	args := []any{DevicePtr(0xdead_beef_0000), uint64(math.MaxUint64), int64(-2), uint32(7), int32(-3), float32(1.5), -0.1}
	vals, ptrs, err := kernelParams(args)
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != len(args) || len(ptrs) != len(args) {
		t.Fatalf("got %d values, %d pointers for %d args", len(vals), len(ptrs), len(args))
	}
	for i, p := range ptrs {
		if p != unsafe.Pointer(&vals[i]) {
			t.Errorf("pointer %d does not point at its value slot", i)
		}
		if uintptr(p)%8 != 0 {
			t.Errorf("value %d is not 8-byte aligned", i)
		}
	}
	if got := *(*uint64)(ptrs[0]); got != 0xdead_beef_0000 {
		t.Errorf("DevicePtr packed as %#x", got)
	}
	if got := *(*uint64)(ptrs[1]); got != math.MaxUint64 {
		t.Errorf("uint64 packed as %#x", got)
	}
	if got := *(*int64)(ptrs[2]); got != -2 {
		t.Errorf("int64 packed as %d", got)
	}
	if got := *(*uint32)(ptrs[3]); got != 7 {
		t.Errorf("uint32 packed as %d", got)
	}
	if got := *(*int32)(ptrs[4]); got != -3 {
		t.Errorf("int32 packed as %d", got)
	}
	if got := *(*float32)(ptrs[5]); got != 1.5 {
		t.Errorf("float32 packed as %v", got)
	}
	if got := *(*float64)(ptrs[6]); got != -0.1 {
		t.Errorf("float64 packed as %v", got)
	}
	if v, p, err := kernelParams(nil); v != nil || p != nil || err != nil {
		t.Errorf("kernelParams(nil) = %v, %v, %v", v, p, err)
	}
}

func TestLaunchRejectsUnsupportedArgumentTypes(t *testing.T) {
	type myUint32 uint32
	var f float32
	for _, bad := range []any{
		int(1), uint(1), uintptr(1), complex64(1), int16(1), uint8(1), true, "s",
		nil, &f, []float32{1}, unsafe.Pointer(&f), myUint32(1), Function(1),
	} {
		_, _, err := kernelParams([]any{DevicePtr(1), bad})
		if err == nil {
			t.Errorf("kernelParams accepted %T", bad)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "kernel argument 1 has unsupported type") || !strings.Contains(msg, "DevicePtr, uint64, int64, uint32, int32, float32 or float64") {
			t.Errorf("error for %T = %q", bad, msg)
		}
	}
	// Launch reports the bad argument before touching the context.
	c := newContext(nil, 0)
	c.closed = true
	err := c.Launch(1, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, DevicePtr(1), 3)
	if err == nil || !strings.Contains(err.Error(), "kernel argument 1 has unsupported type int") {
		t.Errorf("Launch with an int argument: %v", err)
	}
	if err := c.Launch(0, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0); err == nil {
		t.Error("Launch accepted a nil Function")
	}
	// So does Locked.Launch, used inside Do.
	err = Locked{ops{c: c, inDo: true}}.Launch(1, [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0, complex64(1))
	if err == nil || !strings.Contains(err.Error(), "kernel argument 0 has unsupported type complex64") {
		t.Errorf("launch with a complex64 argument: %v", err)
	}
}

// argcheckPTX is k.cu below compiled with nvcc 11.8 -ptx -arch=compute_60; the
// driver JIT-compiles it for the device at hand. It has no trailing NUL, so
// it also checks that LoadModule terminates the image.
//
//	__constant__ float bias;
//	extern "C" __global__ void argcheck(unsigned long long* out, unsigned long long u64, long long i64,
//	                                    unsigned int u32, int i32, float f32, unsigned int shwords) {
//	    extern __shared__ unsigned int sh[];
//	    for (unsigned int k = threadIdx.x; k < shwords; k += blockDim.x) sh[k] = k;
//	    __syncthreads();
//	    if (blockIdx.x == 0 && threadIdx.x == 0) {
//	        out[0] = u64; out[1] = (unsigned long long)i64; out[2] = u32;
//	        out[3] = (unsigned long long)(long long)i32; out[4] = __float_as_uint(f32);
//	        out[5] = __float_as_uint(bias); out[6] = shwords ? sh[shwords - 1] : 0;
//	        out[7] = gridDim.x * blockDim.x;
//	    }
//	}
const argcheckPTX = `
.version 7.8
.target sm_60
.address_size 64

	// .globl	argcheck
.const .align 4 .f32 bias;
.extern .shared .align 16 .b8 sh[];

.visible .entry argcheck(
	.param .u64 argcheck_param_0,
	.param .u64 argcheck_param_1,
	.param .u64 argcheck_param_2,
	.param .u32 argcheck_param_3,
	.param .u32 argcheck_param_4,
	.param .f32 argcheck_param_5,
	.param .u32 argcheck_param_6
)
{
	.reg .pred 	%p<5>;
	.reg .f32 	%f<2>;
	.reg .b32 	%r<21>;
	.reg .b64 	%rd<14>;


	ld.param.u64 	%rd6, [argcheck_param_0];
	ld.param.u64 	%rd4, [argcheck_param_1];
	ld.param.u64 	%rd5, [argcheck_param_2];
	ld.param.u32 	%r5, [argcheck_param_3];
	ld.param.u32 	%r6, [argcheck_param_4];
	ld.param.f32 	%f1, [argcheck_param_5];
	ld.param.u32 	%r7, [argcheck_param_6];
	cvta.to.global.u64 	%rd1, %rd6;
	mov.u32 	%r1, %tid.x;
	setp.ge.u32 	%p1, %r1, %r7;
	@%p1 bra 	$L__BB0_3;

	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r20, %r1;

$L__BB0_2:
	shl.b32 	%r8, %r20, 2;
	mov.u32 	%r9, sh;
	add.s32 	%r10, %r9, %r8;
	st.shared.u32 	[%r10], %r20;
	add.s32 	%r20, %r20, %r2;
	setp.lt.u32 	%p2, %r20, %r7;
	@%p2 bra 	$L__BB0_2;

$L__BB0_3:
	bar.sync 	0;
	mov.u32 	%r11, %ctaid.x;
	or.b32  	%r12, %r11, %r1;
	setp.ne.s32 	%p3, %r12, 0;
	@%p3 bra 	$L__BB0_7;

	mov.u64 	%rd13, 0;
	st.global.u64 	[%rd1], %rd4;
	st.global.u64 	[%rd1+8], %rd5;
	cvt.u64.u32 	%rd8, %r5;
	st.global.u64 	[%rd1+16], %rd8;
	cvt.s64.s32 	%rd9, %r6;
	st.global.u64 	[%rd1+24], %rd9;
	mov.b32 	%r13, %f1;
	cvt.u64.u32 	%rd10, %r13;
	st.global.u64 	[%rd1+32], %rd10;
	ld.const.u32 	%rd11, [bias];
	st.global.u64 	[%rd1+40], %rd11;
	setp.eq.s32 	%p4, %r7, 0;
	@%p4 bra 	$L__BB0_6;

	shl.b32 	%r14, %r7, 2;
	mov.u32 	%r15, sh;
	add.s32 	%r16, %r15, %r14;
	ld.shared.u32 	%rd13, [%r16+-4];

$L__BB0_6:
	st.global.u64 	[%rd1+48], %rd13;
	mov.u32 	%r17, %ntid.x;
	mov.u32 	%r18, %nctaid.x;
	mul.lo.s32 	%r19, %r18, %r17;
	cvt.u64.u32 	%rd12, %r19;
	st.global.u64 	[%rd1+56], %rd12;

$L__BB0_7:
	ret;

}

`

// TestLaunchOnDevice exercises the whole API on a real GPU; it is skipped
// where there is none.
func TestLaunchOnDevice(t *testing.T) {
	c, err := OpenDevice(0)
	if err != nil {
		t.Skipf("no usable CUDA device: %v", err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if _, err := c.Alloc(4); !errors.Is(err, ErrContextClosed) {
			t.Errorf("Alloc after Close: %v", err)
		}
	}()
	major, minor := c.ComputeCapability()
	v, _ := DriverVersion()
	t.Logf("device %q, compute capability %d.%d, %d SMs, driver CUDA %d", c.DeviceName(), major, minor, c.MultiprocessorCount(), v)
	if c.DeviceName() == "" || major < 1 || c.MultiprocessorCount() < 1 {
		t.Errorf("implausible device properties")
	}
	if _, err := OpenDevice(1 << 20); !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "device 1048576 requested but only") {
		t.Errorf("OpenDevice(1<<20) error = %v", err)
	}
	if got := Result(100).String(); got != "CUDA_ERROR_NO_DEVICE" {
		t.Errorf("Result(100).String() with the driver loaded = %q", got)
	}
	if got := Result(12345).String(); got != "CUresult(12345)" {
		t.Errorf("Result(12345).String() with the driver loaded = %q", got)
	}

	if _, err := c.LoadModule([]byte("not a module")); err == nil {
		t.Error("LoadModule accepted garbage")
	} else {
		t.Logf("LoadModule(garbage): %v", err)
	}
	m, err := c.LoadModule([]byte(argcheckPTX))
	if err != nil {
		t.Fatalf("LoadModule: %v", err)
	}
	defer func() {
		if err := m.Unload(); err != nil {
			t.Errorf("Unload: %v", err)
		}
		if err := m.Unload(); err != nil {
			t.Errorf("second Unload: %v", err)
		}
	}()
	f, err := m.Function("argcheck")
	if err != nil {
		t.Fatalf("Function: %v", err)
	}
	if _, err := m.Function("no_such_kernel"); err == nil || !strings.Contains(err.Error(), `"no_such_kernel" not found`) {
		t.Errorf("Function(no_such_kernel) error = %v", err)
	} else if !errors.As(err, new(*DriverError)) {
		t.Errorf("Function(no_such_kernel) error %v does not wrap a DriverError", err)
	}
	bias, size, err := m.Global("bias")
	if err != nil || size != 4 {
		t.Fatalf("Global(bias) = %v, %d, %v", bias, size, err)
	}
	if _, _, err := m.Global("no_such_global"); err == nil || !strings.Contains(err.Error(), `"no_such_global" not found`) {
		t.Errorf("Global(no_such_global) error = %v", err)
	}
	b := []float32{2.25}
	if err := c.CopyToDevice(bias, unsafe.Pointer(&b[0]), 4); err != nil {
		t.Fatalf("CopyToDevice(bias): %v", err)
	}

	out, err := c.Alloc(8 * 8)
	if err != nil {
		t.Fatalf("Alloc: %v", err)
	}
	defer func() {
		if err := c.Free(out); err != nil {
			t.Errorf("Free: %v", err)
		}
	}()
	if err := c.Memset32(out, 0xdeadbeef, 16); err != nil {
		t.Fatalf("Memset32: %v", err)
	}
	got := make([]uint64, 8)
	if err := c.CopyFromDevice(unsafe.Pointer(&got[0]), out, 64); err != nil {
		t.Fatalf("CopyFromDevice: %v", err)
	}
	for i, w := range got {
		if w != 0xdeadbeef_deadbeef {
			t.Fatalf("after Memset32, word %d = %#x", i, w)
		}
	}

	// 100 000 bytes of dynamic shared memory needs the opt-in attribute.
	const shBytes = 100000
	if err := c.SetMaxDynamicShared(f, 1<<30); err == nil {
		t.Error("SetMaxDynamicShared(1 GiB) succeeded")
	} else {
		t.Logf("SetMaxDynamicShared(1 GiB): %v", err)
	}
	// AllowDynamicShared refuses what no block may have, without an
	// error, and allows what it may.
	if ok, err := c.AllowDynamicShared(f, 1<<30); ok || err != nil {
		t.Errorf("AllowDynamicShared(1 GiB) = %v, %v; want false, nil", ok, err)
	}
	if ok, err := c.AllowDynamicShared(f, shBytes); !ok || err != nil {
		t.Fatalf("AllowDynamicShared(%d) = %v, %v; want true, nil", shBytes, ok, err)
	}
	if err := c.SetMaxDynamicShared(f, shBytes); err != nil {
		t.Fatalf("SetMaxDynamicShared: %v", err)
	}
	start, err := c.NewEvent()
	if err != nil {
		t.Fatalf("NewEvent: %v", err)
	}
	end, err := c.NewEvent()
	if err != nil {
		t.Fatalf("NewEvent: %v", err)
	}
	if err := c.Record(start); err != nil {
		t.Fatalf("Record: %v", err)
	}
	err = c.Launch(f, [3]uint32{3, 1, 1}, [3]uint32{128, 1, 1}, shBytes,
		out, uint64(0x0123_4567_89ab_cdef), int64(-5), uint32(0xfedc_ba98), int32(-7), float32(-0.375), uint32(shBytes/4))
	if err != nil {
		t.Fatalf("Launch: %v", err)
	}
	if err := c.Record(end); err != nil {
		t.Fatalf("Record: %v", err)
	}
	ms, err := c.ElapsedMillis(start, end)
	if err != nil || ms < 0 {
		t.Errorf("ElapsedMillis = %v, %v", ms, err)
	}
	t.Logf("kernel took %.3f ms", ms)
	for _, e := range []Event{start, end} {
		if err := c.DestroyEvent(e); err != nil {
			t.Errorf("DestroyEvent: %v", err)
		}
	}
	if err := c.Synchronize(); err != nil {
		t.Fatalf("Synchronize: %v", err)
	}
	if err := c.CopyFromDevice(unsafe.Pointer(&got[0]), out, 64); err != nil {
		t.Fatalf("CopyFromDevice: %v", err)
	}
	want := []uint64{
		0x0123_4567_89ab_cdef,
		uint64(math.MaxUint64 - 4), // -5
		0xfedc_ba98,
		uint64(math.MaxUint64 - 6), // -7
		uint64(math.Float32bits(-0.375)),
		uint64(math.Float32bits(2.25)),
		shBytes/4 - 1,
		3 * 128,
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("out[%d] = %#x, want %#x", i, got[i], want[i])
		}
	}

	// Concurrent calls from many goroutines each make the context current
	// on whatever thread they run on.
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.Alloc(1024)
			if err != nil {
				errs <- err
				return
			}
			defer c.Free(p)
			src := make([]uint32, 256)
			for i := range src {
				src[i] = uint32(g*1000 + i)
			}
			dst := make([]uint32, 256)
			if err := c.CopyToDevice(p, unsafe.Pointer(&src[0]), 1024); err != nil {
				errs <- err
				return
			}
			if err := c.CopyFromDevice(unsafe.Pointer(&dst[0]), p, 1024); err != nil {
				errs <- err
				return
			}
			for i := range dst {
				if dst[i] != src[i] {
					errs <- errors.New("round trip mismatch")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent use: %v", err)
	}
}
