package main

// The bench's own hold on the device: the baseline module, the timing
// events and the report header, and the order of a run. The samplers open
// the same device themselves; this context is the device's primary context
// too, so its events on the null stream order with their launches.

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// benchSeed is the Philox key of every timed launch.
const benchSeed = 0x5eed_0f_b3_9c4a_11

// bench holds the device, the baseline module and the results.
type bench struct {
	opt      options
	out      io.Writer
	errOut   io.Writer
	ctx      *cuda.Context
	mod      *cuda.Module
	fn       map[string]cuda.Function
	ev0, ev1 cuda.Event
	rep      *Report
	mismatch bool

	// Ceilings.
	bw         float64         // bytes/s
	fmaRate    float64         // FP32 FMAs/s
	dfmaRate   float64         // FP64 FMAs/s
	normalRate map[int]float64 // normals/s, by dim
}

func newBench(opt options, stdout, stderr io.Writer) (*bench, error) {
	ctx, err := cuda.OpenDevice(opt.device)
	if err != nil {
		return nil, err
	}
	b := &bench{opt: opt, out: stdout, errOut: stderr, ctx: ctx, fn: map[string]cuda.Function{}, normalRate: map[int]float64{}}
	if err := b.init(); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) init() error {
	mod, err := b.ctx.LoadModule(baselineFatbin)
	if err != nil {
		return fmt.Errorf("loading baseline.fatbin: %w", err)
	}
	b.mod = mod
	for _, k := range []string{kernelGeneric, kernelCopy, kernelFMA, kernelDFMA, kernelNormals, kernelEmpty} {
		f, err := mod.Function(k)
		if err != nil {
			return err
		}
		b.fn[k] = f
	}
	if b.ev0, err = b.ctx.NewEvent(); err != nil {
		return err
	}
	if b.ev1, err = b.ctx.NewEvent(); err != nil {
		return err
	}
	major, minor := b.ctx.ComputeCapability()
	drv, _ := gibbsrt.DriverVersion()
	b.rep = &Report{
		Device:            b.ctx.DeviceName(),
		Ordinal:           b.opt.device,
		ComputeCapability: fmt.Sprintf("%d.%d", major, minor),
		Multiprocessors:   b.ctx.MultiprocessorCount(),
		DriverCUDAVersion: fmt.Sprintf("%d.%d", drv/1000, drv%1000/10),
		GoVersion:         runtime.Version(),
		Commit:            buildCommit(),
		Start:             time.Now().UTC().Format(time.RFC3339),
		Repeats:           b.opt.repeats,
		Warmup:            b.opt.warmup,
	}
	return nil
}

func (b *bench) close() {
	if b.ev0 != 0 {
		b.ctx.DestroyEvent(b.ev0)
	}
	if b.ev1 != 0 {
		b.ctx.DestroyEvent(b.ev1)
	}
	if b.mod != nil {
		b.mod.Unload()
	}
	b.ctx.Close()
}

func (b *bench) printf(format string, args ...any) { fmt.Fprintf(b.out, format, args...) }

// runAll prints the header, then measures the ceilings (every row's floor
// needs them), each dim, the per-model kernel and the per-call overhead.
func (b *bench) runAll() error {
	r := b.rep
	b.printf("gibbsbench: %s (device %d, compute capability %s, %d SMs), driver CUDA %s, %s\n",
		r.Device, r.Ordinal, r.ComputeCapability, r.Multiprocessors, r.DriverCUDAVersion, r.GoVersion)
	b.printf("timing: CUDA events around each launch; median of %d launches after %d warm-up launches\n", b.opt.repeats, b.opt.warmup)

	var entries []dimEntry
	var dims []int
	for _, d := range b.opt.dims {
		e, ok := lookupDim(d)
		if !ok {
			msg := fmt.Sprintf("dim %d: no generated package in the table of bench/dims.go; skipped", d)
			if d == 64 {
				msg += " (generate out/gibbs64, then uncomment the two DIM64 lines there)"
			}
			r.Skipped = append(r.Skipped, msg)
			b.printf("note: %s\n", msg)
			continue
		}
		entries = append(entries, e)
		dims = append(dims, d)
	}
	pdims, err := packageDims(b.opt.packages)
	if err != nil {
		return err
	}
	for _, d := range pdims {
		if !slices.Contains(dims, d) {
			dims = append(dims, d)
		}
	}
	if len(dims) == 0 {
		return errors.New("none of the requested dims has a generated package compiled in, and -packages names none")
	}

	if err := b.measureCeilings(dims); err != nil {
		return fmt.Errorf("measuring ceilings: %w", err)
	}
	for _, dir := range b.opt.packages {
		if err := b.runPackage(dir); err != nil {
			return fmt.Errorf("package %s: %w", dir, err)
		}
	}
	for _, e := range entries {
		if err := b.runDim(e); err != nil {
			return fmt.Errorf("dim %d: %w", e.dim, err)
		}
	}
	if len(b.opt.modelBatches) > 0 {
		for _, e := range entries {
			if err := b.runModels(e); err != nil {
				return fmt.Errorf("dim %d, per-model kernel: %w", e.dim, err)
			}
		}
	}
	if b.opt.calls > 0 {
		if err := b.runCalls(); err != nil {
			return fmt.Errorf("per-call overhead: %w", err)
		}
	}
	return nil
}

// upload copies data to a new buffer of the bench's context. The baseline
// kernels run on such buffers; the samplers run on their DeviceStates.
func (b *bench) upload(data []float32) (cuda.DevicePtr, error) {
	p, err := b.ctx.Alloc(uint64(len(data)) * 4)
	if err != nil {
		return 0, err
	}
	if err := b.copyTo(p, data); err != nil {
		b.ctx.Free(p)
		return 0, err
	}
	return p, nil
}

// copyTo copies data to the buffer at p.
func (b *bench) copyTo(p cuda.DevicePtr, data []float32) error {
	return b.ctx.CopyToDevice(p, unsafe.Pointer(&data[0]), uint64(len(data))*4)
}

// download copies the buffer at p into dst.
func (b *bench) download(dst []float32, p cuda.DevicePtr) error {
	return b.ctx.CopyFromDevice(unsafe.Pointer(&dst[0]), p, uint64(len(dst))*4)
}
