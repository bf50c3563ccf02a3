package cuda

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// kernelParams builds cuLaunchKernel's kernelParams: one pointer per
// argument to a copy of its value. Each value gets its own 8-byte slot of
// vals (8-byte aligned, so fine for every supported type), and is written
// through a pointer of its own type so the layout is right on any byte
// order. It rejects types whose C counterpart would be ambiguous (int,
// uintptr) or that the kernels do not take.
func kernelParams(args []any) (vals []uint64, ptrs []unsafe.Pointer, err error) {
	if len(args) == 0 {
		return nil, nil, nil
	}
	vals = make([]uint64, len(args))
	ptrs = make([]unsafe.Pointer, len(args))
	for i, a := range args {
		p := unsafe.Pointer(&vals[i])
		switch v := a.(type) {
		case DevicePtr:
			*(*uint64)(p) = uint64(v)
		case uint64:
			*(*uint64)(p) = v
		case int64:
			*(*int64)(p) = v
		case uint32:
			*(*uint32)(p) = v
		case int32:
			*(*int32)(p) = v
		case float32:
			*(*float32)(p) = v
		case float64:
			*(*float64)(p) = v
		default:
			return nil, nil, fmt.Errorf("gibbsrt: kernel argument %d has unsupported type %T (want DevicePtr, uint64, int64, uint32, int32, float32 or float64)", i, a)
		}
		ptrs[i] = p
	}
	return vals, ptrs, nil
}

// Launch launches f on the null stream with the given grid and block
// dimensions and dynamic shared memory. args are the kernel arguments in
// order, each a DevicePtr, uint64, int64, uint32, int32, float32 or float64, passed
// by value as the matching C type. The launch is asynchronous: errors in
// the kernel itself surface at the next synchronizing call.
func (o ops) Launch(f Function, grid, block [3]uint32, sharedBytes uint32, args ...any) error {
	// Bad arguments are reported before the context is touched.
	vals, ptrs, err := launchParams(f, args)
	if err != nil {
		return err
	}
	return o.run(func() error { return o.c.launchPacked(0, f, grid, block, sharedBytes, vals, ptrs) })
}

func launchParams(f Function, args []any) (vals []uint64, ptrs []unsafe.Pointer, err error) {
	if f == 0 {
		return nil, nil, errors.New("gibbsrt: Launch: nil Function")
	}
	return kernelParams(args)
}

func (c *Context) launchPacked(stream Stream, f Function, grid, block [3]uint32, sharedBytes uint32, vals []uint64, ptrs []unsafe.Pointer) error {
	// The driver reads the array and the values it points to during the
	// call. The array holds Go pointers, so both are pinned, as the cgo
	// rules require for Go memory containing Go pointers.
	var params unsafe.Pointer
	var pin runtime.Pinner
	defer pin.Unpin()
	if len(ptrs) > 0 {
		pin.Pin(&vals[0])
		pin.Pin(&ptrs[0])
		params = unsafe.Pointer(&ptrs[0])
	}
	r := c.drv.cuLaunchKernel(uintptr(f),
		grid[0], grid[1], grid[2], block[0], block[1], block[2],
		sharedBytes, uintptr(stream), params, nil)
	runtime.KeepAlive(vals)
	runtime.KeepAlive(ptrs)
	return check("cuLaunchKernel", r)
}

// ResidentBlocks returns how many blocks of f, of threads threads and
// shared bytes of dynamic shared memory, a multiprocessor holds at once
// (cuOccupancyMaxActiveBlocksPerMultiprocessor): a grid that loops over
// its work is sized by it, so that no block waits for a second wave.
func (o ops) ResidentBlocks(f Function, threads, shared int) (int, error) {
	var n int32
	err := o.run(func() error {
		return check("cuOccupancyMaxActiveBlocksPerMultiprocessor",
			o.c.drv.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, uintptr(f), int32(threads), uintptr(shared)))
	})
	return int(n), err
}

// AllowDynamicShared lets f's launches ask for bytes of dynamic shared
// memory, where a block of f may have that much beside its static shared
// memory on this device, and reports whether it may. Where it may not, it
// changes nothing: the caller launches with less.
func (c *Context) AllowDynamicShared(f Function, bytes int) (bool, error) {
	var static int
	err := c.do(func() (err error) {
		static, err = c.staticShared(f)
		return err
	})
	if err != nil || static+bytes > c.sharedOptin {
		return false, err
	}
	return true, c.SetMaxDynamicShared(f, bytes)
}

// staticShared returns f's static shared memory per block. It must run
// inside do.
func (c *Context) staticShared(f Function) (int, error) {
	var v int32
	err := check("cuFuncGetAttribute", c.drv.cuFuncGetAttribute(&v, funcAttrSharedSizeBytes, uintptr(f)))
	return int(v), err
}

// SetMaxDynamicShared sets CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
// which launches asking for more than the default 48 KiB of dynamic shared
// memory require.
func (c *Context) SetMaxDynamicShared(f Function, bytes int) error {
	if bytes < 0 || bytes > math.MaxInt32 {
		return fmt.Errorf("gibbsrt: SetMaxDynamicShared: invalid size %d", bytes)
	}
	return c.do(func() error {
		err := check("cuFuncSetAttribute", c.drv.cuFuncSetAttribute(uintptr(f), funcAttrMaxDynamicSharedMem, int32(bytes)))
		if err == nil {
			return nil
		}
		// The usual cause is asking for more than the device allows;
		// say what the limit is.
		static, serr := c.staticShared(f)
		if serr != nil {
			return err
		}
		return detail([]error{err}, "%v: requested %d bytes of dynamic shared memory; the device allows %d bytes per block and the kernel uses %d statically",
			err, bytes, c.sharedOptin, static)
	})
}
