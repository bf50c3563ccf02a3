// Command gibbsbench measures the generated Gibbs samplers on a GPU against
// an unspecialized baseline kernel and against ceilings measured in the same
// run. See bench/README.md for the columns.
//
// Build: CGO_ENABLED=0 go build -o bin/gibbsbench ./bench
// Run:   bin/gibbsbench [-device N] [-dims 8,32,64] [-batches 4096,1048576]
//
//	[-sweeps 1,100] [-repeats 20] [-json FILE] ...
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// Exit statuses.
const (
	exitError    = 1 // a CUDA call or a file write failed
	exitUsage    = 2 // bad flags (the flag package uses 2 as well)
	exitNoGPU    = 3 // no driver library or no CUDA device
	exitMismatch = 4 // a kernel disagreed with gibbsrt.Reference (the run still completes)
)

// benchSeed is the Philox key of every timed launch.
const benchSeed = 0x5eed_0f_b3_9c4a_11

// checkStream exercises the high words of every counter field, as the
// generated packages' GPU tests do.
var checkStream = gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}

// maxGridX is CUDA's limit on gridDim.x.
const maxGridX = 1<<31 - 1

// explicitStrategies are measured after Auto, in this order.
var explicitStrategies = []gibbsrt.Strategy{gibbsrt.ConstMemory, gibbsrt.SharedMemory, gibbsrt.WarpPerChain}

type options struct {
	device      int
	dims        []int
	batches     []int
	sweeps      []int
	repeats     int
	warmup      int
	jsonPath    string
	checkChains int
	checkSweeps int
	copyMiB     int
	calls       int
	callDim     int
	callBatch   int
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	opt, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
		return exitUsage
	}
	b, err := newBench(opt, stdout, stderr)
	if err != nil {
		if errors.Is(err, gibbsrt.ErrNoDriver) || errors.Is(err, gibbsrt.ErrNoDevice) {
			fmt.Fprintf(stderr, "gibbsbench: no GPU to benchmark on: %v\n", err)
			fmt.Fprintln(stderr, "gibbsbench: run it on a machine with an NVIDIA GPU and driver (libcuda.so.1); -device picks the ordinal.")
			return exitNoGPU
		}
		fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
		return exitError
	}
	defer b.close()
	if err := b.runAll(); err != nil {
		fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
		return exitError
	}
	if opt.jsonPath != "" {
		if err := writeJSON(opt.jsonPath, b.rep); err != nil {
			fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "\nwrote %s\n", opt.jsonPath)
	}
	if b.mismatch {
		fmt.Fprintln(stderr, "gibbsbench: FAIL: a kernel's results differ from gibbsrt.Reference (see the checks above); timings of a wrong kernel mean nothing")
		return exitMismatch
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var opt options
	fs := flag.NewFlagSet("gibbsbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dims := fs.String("dims", "8,32,64", "comma-separated dims to measure; each needs a generated package in bench/dims.go (others are skipped with a note)")
	batches := fs.String("batches", "4096,1048576", "comma-separated batch sizes B (chains)")
	sweeps := fs.String("sweeps", "1,100", "comma-separated sweeps per launch")
	fs.IntVar(&opt.device, "device", 0, "CUDA device ordinal")
	fs.IntVar(&opt.repeats, "repeats", 20, "timed launches per measurement (the median is reported)")
	fs.IntVar(&opt.warmup, "warmup", 3, "untimed launches before each measurement")
	fs.StringVar(&opt.jsonPath, "json", "", "also write all results to this JSON file")
	fs.IntVar(&opt.checkChains, "check-chains", 1000, "chains of the correctness check against gibbsrt.Reference")
	fs.IntVar(&opt.checkSweeps, "check-sweeps", 3, "sweeps of the correctness check")
	fs.IntVar(&opt.copyMiB, "copy-mib", 1024, "MiB copied per launch by the bandwidth ceiling (read and written: 2x this moves)")
	fs.IntVar(&opt.calls, "calls", 2000, "calls N of the per-call overhead test (0 skips it)")
	fs.IntVar(&opt.callDim, "call-dim", 32, "dim of the per-call overhead test")
	fs.IntVar(&opt.callBatch, "call-batch", 4096, "batch size of the per-call overhead test")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: gibbsbench [flags]")
		fmt.Fprintln(stderr, "Times the generated Gibbs kernels against a generic baseline kernel and measured ceilings.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return opt, err
	}
	if fs.NArg() > 0 {
		return opt, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if opt.dims, err = intList("-dims", *dims, 1, genericMaxDim); err != nil {
		return opt, err
	}
	if opt.batches, err = intList("-batches", *batches, 1, math.MaxInt32); err != nil {
		return opt, err
	}
	if opt.sweeps, err = intList("-sweeps", *sweeps, 1, math.MaxUint32); err != nil {
		return opt, err
	}
	switch {
	case opt.device < 0:
		return opt, fmt.Errorf("-device %d: must be >= 0", opt.device)
	case opt.repeats < 1:
		return opt, fmt.Errorf("-repeats %d: must be >= 1", opt.repeats)
	case opt.warmup < 0:
		return opt, fmt.Errorf("-warmup %d: must be >= 0", opt.warmup)
	case opt.checkChains < 1 || opt.checkSweeps < 1:
		return opt, errors.New("-check-chains and -check-sweeps must be >= 1")
	case opt.copyMiB < 1:
		return opt, fmt.Errorf("-copy-mib %d: must be >= 1", opt.copyMiB)
	case opt.calls < 0:
		return opt, fmt.Errorf("-calls %d: must be >= 0", opt.calls)
	case opt.callBatch < 1:
		return opt, fmt.Errorf("-call-batch %d: must be >= 1", opt.callBatch)
	}
	return opt, nil
}

// intList parses a comma-separated list of integers in [lo, hi], dropping
// duplicates and keeping the order given.
func intList(name, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an integer", name, f)
		}
		if v < lo || v > hi {
			return nil, fmt.Errorf("%s: %d is out of range [%d, %d]", name, v, lo, hi)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty list", name)
	}
	return out, nil
}

// bench holds the device, the baseline module and the results.
type bench struct {
	opt      options
	out      io.Writer
	errOut   io.Writer
	ctx      *gibbsrt.Context
	mod      *gibbsrt.CUModule
	fn       map[string]gibbsrt.Function
	ev0, ev1 gibbsrt.Event
	rep      *Report
	mismatch bool

	// Ceilings.
	bw         float64         // bytes/s
	fmaRate    float64         // FMAs/s
	normalRate map[int]float64 // normals/s, by dim
}

func newBench(opt options, stdout, stderr io.Writer) (*bench, error) {
	ctx, err := gibbsrt.OpenDevice(opt.device)
	if err != nil {
		return nil, err
	}
	b := &bench{opt: opt, out: stdout, errOut: stderr, ctx: ctx, fn: map[string]gibbsrt.Function{}, normalRate: map[int]float64{}}
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
	for _, k := range []string{kernelGeneric, kernelCopy, kernelFMA, kernelNormals, kernelEmpty} {
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

func (b *bench) runAll() error {
	r := b.rep
	b.printf("gibbsbench: %s (device %d, compute capability %s, %d SMs), driver CUDA %s, %s\n",
		r.Device, r.Ordinal, r.ComputeCapability, r.Multiprocessors, r.DriverCUDAVersion, r.GoVersion)
	b.printf("timing: CUDA events around each launch; median of %d launches after %d warm-up launches\n", b.opt.repeats, b.opt.warmup)

	var entries []dimEntry
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
	}
	if len(entries) == 0 {
		return errors.New("none of the requested dims has a generated package compiled in")
	}

	if err := b.measureCeilings(entries); err != nil {
		return fmt.Errorf("measuring ceilings: %w", err)
	}
	for _, e := range entries {
		if err := b.runDim(e); err != nil {
			return fmt.Errorf("dim %d: %w", e.dim, err)
		}
	}
	if b.opt.calls > 0 {
		if err := b.runCalls(); err != nil {
			return fmt.Errorf("per-call overhead: %w", err)
		}
	}
	return nil
}

// ---------------------------------------------------------------- timing

// Stats summarizes one measurement's launch times, in milliseconds.
type Stats struct {
	MedianMs float64 `json:"median_ms"`
	MinMs    float64 `json:"min_ms"`
	MaxMs    float64 `json:"max_ms"`
	N        int     `json:"n"`
}

func summarize(ms []float64) Stats {
	s := slices.Clone(ms)
	slices.Sort(s)
	return Stats{MedianMs: median(s), MinMs: s[0], MaxMs: s[len(s)-1], N: len(s)}
}

// median of sorted s.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// timeLaunches calls launch warmup times, then repeats times with an event
// recorded on the null stream before and after each, and returns the
// summary of the elapsed times. Errors from the kernels surface at the
// final synchronization.
func (b *bench) timeLaunches(launch func() error) (Stats, error) {
	for range b.opt.warmup {
		if err := launch(); err != nil {
			return Stats{}, err
		}
	}
	if err := b.ctx.Synchronize(); err != nil {
		return Stats{}, err
	}
	ms := make([]float64, 0, b.opt.repeats)
	for range b.opt.repeats {
		if err := b.ctx.Record(b.ev0); err != nil {
			return Stats{}, err
		}
		if err := launch(); err != nil {
			return Stats{}, err
		}
		if err := b.ctx.Record(b.ev1); err != nil {
			return Stats{}, err
		}
		t, err := b.ctx.ElapsedMillis(b.ev0, b.ev1)
		if err != nil {
			return Stats{}, err
		}
		ms = append(ms, float64(t))
	}
	if err := b.ctx.Synchronize(); err != nil {
		return Stats{}, err
	}
	return summarize(ms), nil
}

// blocks returns ceil(n/per), or an error past CUDA's grid limit.
func blocks(n, per int) (uint32, error) {
	g := (n + per - 1) / per
	if g > maxGridX {
		return 0, fmt.Errorf("%d elements need %d blocks of %d, over CUDA's grid limit", n, g, per)
	}
	return uint32(g), nil
}

// ---------------------------------------------------------------- ceilings

// Ceilings are the hardware rates measured in this run.
type Ceilings struct {
	CopyBytesPerLaunch uint64          `json:"copy_bytes_per_launch"` // read + written
	CopyBytesPerSec    float64         `json:"copy_bytes_per_sec"`
	Copy               Stats           `json:"copy"`
	FMAsPerLaunch      float64         `json:"fmas_per_launch"`
	FMAsPerSec         float64         `json:"fmas_per_sec"`
	FMA                Stats           `json:"fma"`
	NormalsPerSec      map[int]float64 `json:"normals_per_sec"` // by dim
	Normals            map[int]Stats   `json:"normals"`
}

func (b *bench) measureCeilings(entries []dimEntry) error {
	c := &Ceilings{NormalsPerSec: map[int]float64{}, Normals: map[int]Stats{}}
	b.rep.Ceilings = c

	// (a) Device-to-device copy: copy_kernel over copy-mib MiB of float4s.
	n := uint64(b.opt.copyMiB) << 20
	src, err := b.ctx.Alloc(n)
	if err != nil {
		return err
	}
	defer b.ctx.Free(src)
	dst, err := b.ctx.Alloc(n)
	if err != nil {
		return err
	}
	defer b.ctx.Free(dst)
	if err := b.ctx.Memset32(src, math.Float32bits(1), n/4); err != nil {
		return err
	}
	if err := b.ctx.Memset32(dst, 0, n/4); err != nil {
		return err
	}
	nf4 := n / 16
	g, err := blocks(int(nf4), 256)
	if err != nil {
		return err
	}
	st, err := b.timeLaunches(func() error {
		return b.ctx.Launch(b.fn[kernelCopy], [3]uint32{g, 1, 1}, [3]uint32{256, 1, 1}, 0, src, dst, nf4)
	})
	if err != nil {
		return fmt.Errorf("copy_kernel: %w", err)
	}
	c.Copy, c.CopyBytesPerLaunch = st, 2*n
	c.CopyBytesPerSec = float64(2*n) / (st.MedianMs * 1e-3)
	b.bw = c.CopyBytesPerSec

	// (b) FP32 FMA: 4 waves of fully occupied SMs (2048 threads each), each
	// thread fmaChains independent chains of fmaIters FMAs.
	const fmaThreads, fmaIters = 256, 1 << 14
	fg := uint32(b.ctx.MultiprocessorCount() * 8 * 4)
	out, err := b.ctx.Alloc(uint64(fg) * fmaThreads * 4)
	if err != nil {
		return err
	}
	defer b.ctx.Free(out)
	st, err = b.timeLaunches(func() error {
		return b.ctx.Launch(b.fn[kernelFMA], [3]uint32{fg, 1, 1}, [3]uint32{fmaThreads, 1, 1}, 0,
			out, uint32(fmaIters), float32(0.9999), float32(1e-4))
	})
	if err != nil {
		return fmt.Errorf("fma_kernel: %w", err)
	}
	c.FMA = st
	c.FMAsPerLaunch = float64(fg) * fmaThreads * fmaIters * fmaChains
	c.FMAsPerSec = c.FMAsPerLaunch / (st.MedianMs * 1e-3)
	b.fmaRate = c.FMAsPerSec

	// (c) Normals: normals_kernel draws dim normals per chain-sweep, as the
	// samplers do, for about 2^28 Philox calls per launch.
	const rngChains = 1 << 20
	nout, err := b.ctx.Alloc(rngChains * 4)
	if err != nil {
		return err
	}
	defer b.ctx.Free(nout)
	rg, _ := blocks(rngChains, genericBlock)
	for _, e := range entries {
		groups := (e.dim + 3) / 4
		sweeps := max(1, (1<<28)/(rngChains*groups))
		sweep0 := uint64(0)
		st, err := b.timeLaunches(func() error {
			err := b.ctx.Launch(b.fn[kernelNormals], [3]uint32{rg, 1, 1}, [3]uint32{genericBlock, 1, 1}, 0,
				nout, uint64(rngChains), uint32(sweeps), uint64(benchSeed), sweep0, uint64(0), int32(e.dim))
			sweep0 += uint64(sweeps)
			return err
		})
		if err != nil {
			return fmt.Errorf("normals_kernel dim %d: %w", e.dim, err)
		}
		c.Normals[e.dim] = st
		c.NormalsPerSec[e.dim] = float64(rngChains) * float64(sweeps) * float64(e.dim) / (st.MedianMs * 1e-3)
		b.normalRate[e.dim] = c.NormalsPerSec[e.dim]
	}

	b.printf("\nCeilings (measured in this run):\n")
	b.printf("  copy bandwidth  %9.1f GB/s      copy_kernel, %d MiB read + %d MiB written per launch\n",
		c.CopyBytesPerSec/1e9, b.opt.copyMiB, b.opt.copyMiB)
	b.printf("  FP32 FMA rate   %9.2f T FMA/s   fma_kernel, %d independent chains per thread\n", c.FMAsPerSec/1e12, fmaChains)
	for _, e := range entries {
		b.printf("  normals, dim %-3d%9.2f G/s       normals_kernel, %d chains, gg_normals4 as in the samplers\n",
			e.dim, c.NormalsPerSec[e.dim]/1e9, rngChains)
	}
	return nil
}

// floor returns the lower bound on the time of one sweep (seconds) and which
// term sets it: max(B·D²/FMA_rate + B·D/normal_rate, 2·B·D·4/sweeps / BW).
func (b *bench) floor(dim, batch, sweeps int) (float64, string) {
	B, D := float64(batch), float64(dim)
	compute := B*D*D/b.fmaRate + B*D/b.normalRate[dim]
	mem := 2 * B * D * 4 / float64(sweeps) / b.bw
	if mem > compute {
		return mem, "mem"
	}
	return compute, "fma+rng"
}

// ---------------------------------------------------------------- per dim

// Row is one timed configuration.
type Row struct {
	Dim               int     `json:"dim"`
	Batch             int     `json:"batch"`
	SweepsPerLaunch   int     `json:"sweeps_per_launch"`
	Kernel            string  `json:"kernel"`   // "generic", "auto", "const", "shared", "warp"
	Resolved          string  `json:"resolved"` // the strategy Auto chose; else as Kernel
	Launch            Stats   `json:"launch"`
	SecPerSweep       float64 `json:"sec_per_sweep"`
	ChainSweepsPerSec float64 `json:"chain_sweeps_per_sec"`
	SpeedupVsGeneric  float64 `json:"speedup_vs_generic"` // generic time / this time
	FloorSecPerSweep  float64 `json:"floor_sec_per_sweep"`
	FractionOfFloor   float64 `json:"fraction_of_floor"` // floor / time
	Bound             string  `json:"bound"`             // the floor term that dominates
}

// Check is one comparison of a kernel's results with gibbsrt.Reference.
type Check struct {
	Dim        int    `json:"dim"`
	Kernel     string `json:"kernel"`
	Chains     int    `json:"chains"`
	Sweeps     int    `json:"sweeps"`
	Pass       bool   `json:"pass"`
	Mismatches int    `json:"mismatches"`
	First      string `json:"first_mismatch,omitempty"`
}

// dimRun is what one dim's measurements share.
type dimRun struct {
	e       dimEntry
	s       *gibbsrt.Sampler
	model   gibbstest.Model
	rows    [][]float64
	co      *gibbsrt.Coefficients
	w, o, k gibbsrt.DevicePtr // weight, offset, scale tables of the generic kernel
}

func (b *bench) runDim(e dimEntry) (err error) {
	s, err := e.newSampler(b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Dim() != e.dim {
		return fmt.Errorf("the table's sampler has dim %d", s.Dim())
	}
	rng := rand.New(rand.NewPCG(uint64(e.dim), 2024))
	model := gibbstest.RandomSPD(e.dim, 100, rng, gibbstest.NonzeroMean(e.dim))
	d := &dimRun{e: e, s: s, model: model, rows: model.Rows()}
	if err := s.SetModel(d.rows, model.Mu); err != nil {
		return err
	}
	// The generic kernel reads the same tables SetModel uploads, from
	// buffers of its own in global memory.
	if d.co, err = gibbsrt.NewCoefficients(e.dim, d.rows, model.Mu); err != nil {
		return err
	}
	for _, t := range []struct {
		p    *gibbsrt.DevicePtr
		data []float32
	}{{&d.w, d.co.Weight}, {&d.o, d.co.Offset}, {&d.k, d.co.Scale}} {
		if *t.p, err = b.upload(t.data); err != nil {
			return err
		}
		defer b.ctx.Free(*t.p)
	}

	if err := b.check(d); err != nil {
		return err
	}

	b.printf("\nDim %d, model %s; time per sweep = median launch time / sweeps per launch\n", e.dim, model.Name)
	b.printf("%4s %8s %6s  %-13s %12s %14s %10s %12s %7s  %s\n",
		"dim", "B", "sweeps", "kernel", "us/sweep", "chain-sweeps/s", "x generic", "floor us/sw", "%floor", "bound")
	for _, batch := range b.opt.batches {
		if err := b.runBatch(d, batch); err != nil {
			return fmt.Errorf("B=%d: %w", batch, err)
		}
	}
	return s.SetStrategy(gibbsrt.Auto)
}

// upload copies data to a new device buffer.
func (b *bench) upload(data []float32) (gibbsrt.DevicePtr, error) {
	n := uint64(len(data)) * 4
	p, err := b.ctx.Alloc(n)
	if err != nil {
		return 0, err
	}
	if err := b.ctx.CopyToDevice(p, unsafe.Pointer(&data[0]), n); err != nil {
		b.ctx.Free(p)
		return 0, err
	}
	return p, nil
}

func (b *bench) download(dst []float32, p gibbsrt.DevicePtr) error {
	return b.ctx.CopyFromDevice(unsafe.Pointer(&dst[0]), p, uint64(len(dst))*4)
}

// launchGeneric queues generic_sweep over chains chains at x.
func (b *bench) launchGeneric(d *dimRun, x gibbsrt.DevicePtr, chains, sweeps int, st gibbsrt.Stream) error {
	g, err := blocks(chains, genericBlock)
	if err != nil {
		return err
	}
	return b.ctx.Launch(b.fn[kernelGeneric], [3]uint32{g, 1, 1}, [3]uint32{genericBlock, 1, 1}, 0,
		x, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain,
		int32(d.e.dim), int32(d.co.Stride), d.w, d.o, d.k)
}

// randomStart returns chains draws of mu + diag(Σ)^½ · N(0, I): a random
// start in the target's range (not the zeros of a fresh buffer).
func randomStart(m gibbstest.Model, chains int, rng *rand.Rand) []float32 {
	dim := len(m.Mu)
	sd := make([]float64, dim)
	for i := range sd {
		sd[i] = math.Sqrt(m.Sigma.At(i, i))
	}
	x := make([]float32, chains*dim)
	for c := 0; c < chains; c++ {
		for i := 0; i < dim; i++ {
			x[c*dim+i] = float32(m.Mu[i] + sd[i]*rng.NormFloat64())
		}
	}
	return x
}

// check runs the generic kernel and every strategy on a small batch and
// compares the states with gibbsrt.Reference bit for bit.
func (b *bench) check(d *dimRun) error {
	dim, chains, sweeps := d.e.dim, b.opt.checkChains, b.opt.checkSweeps
	rng := rand.New(rand.NewPCG(uint64(dim), 7))
	x0 := randomStart(d.model, chains, rng)
	ref := gibbsrt.NewReference()
	if err := ref.SetModel(dim, d.rows, d.model.Mu); err != nil {
		return err
	}
	want := slices.Clone(x0)
	if err := ref.Sweep(want, sweeps, checkStream); err != nil {
		return err
	}
	xd, err := b.upload(x0)
	if err != nil {
		return err
	}
	defer b.ctx.Free(xd)

	kernels := []string{"generic"}
	for _, s := range explicitStrategies {
		kernels = append(kernels, s.String())
	}
	b.printf("\nCheck, dim %d: %d chains x %d sweeps from a random start vs gibbsrt.Reference (bit-exact):", dim, chains, sweeps)
	got := make([]float32, len(x0))
	for i, k := range kernels {
		if err := b.ctx.CopyToDevice(xd, unsafe.Pointer(&x0[0]), uint64(len(x0))*4); err != nil {
			return err
		}
		if i == 0 {
			err = b.launchGeneric(d, xd, chains, sweeps, checkStream)
		} else {
			if err = d.s.SetStrategy(explicitStrategies[i-1]); err == nil {
				err = d.s.SweepDevice(xd, chains, sweeps, checkStream)
			}
		}
		if err == nil {
			err = b.ctx.Synchronize()
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", k, err)
		}
		if err := b.download(got, xd); err != nil {
			return err
		}
		c := compare(dim, k, chains, sweeps, got, want)
		b.rep.Checks = append(b.rep.Checks, c)
		verdict := "PASS"
		if !c.Pass {
			verdict = fmt.Sprintf("FAIL (%d of %d values differ; first: %s)", c.Mismatches, len(got), c.First)
			b.mismatch = true
		}
		b.printf(" %s %s", k, verdict)
		if i < len(kernels)-1 {
			b.printf(",")
		}
	}
	b.printf("\n")
	return d.s.SetStrategy(gibbsrt.Auto)
}

func compare(dim int, kernel string, chains, sweeps int, got, want []float32) Check {
	c := Check{Dim: dim, Kernel: kernel, Chains: chains, Sweeps: sweeps}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			if c.Mismatches == 0 {
				c.First = fmt.Sprintf("chain %d coordinate %d: got %g, want %g", i/dim, i%dim, got[i], want[i])
			}
			c.Mismatches++
		}
	}
	c.Pass = c.Mismatches == 0
	return c
}

func (b *bench) runBatch(d *dimRun, batch int) error {
	dim := d.e.dim
	rng := rand.New(rand.NewPCG(uint64(dim)<<32|uint64(batch), 11))
	x0 := randomStart(d.model, batch, rng)
	bytes := uint64(len(x0)) * 4
	xd, err := b.ctx.Alloc(bytes)
	if err != nil {
		return err
	}
	defer b.ctx.Free(xd)

	for _, sweeps := range b.opt.sweeps {
		var genericSec float64
		kernels := append([]gibbsrt.Strategy{-1, gibbsrt.Auto}, explicitStrategies...) // -1: generic
		for _, strat := range kernels {
			// Every measurement starts from the same random state.
			if err := b.ctx.CopyToDevice(xd, unsafe.Pointer(&x0[0]), bytes); err != nil {
				return err
			}
			st := gibbsrt.Stream{Seed: benchSeed}
			row := Row{Dim: dim, Batch: batch, SweepsPerLaunch: sweeps}
			var launch func() error
			if strat < 0 {
				row.Kernel, row.Resolved = "generic", "generic"
				launch = func() error {
					err := b.launchGeneric(d, xd, batch, sweeps, st)
					st.Sweep += uint64(sweeps)
					return err
				}
			} else {
				if err := d.s.SetStrategy(strat); err != nil {
					return err
				}
				row.Kernel, row.Resolved = strat.String(), d.s.Choose(batch, sweeps).String()
				launch = func() error {
					err := d.s.SweepDevice(xd, batch, sweeps, st)
					st.Sweep += uint64(sweeps)
					return err
				}
			}
			stats, err := b.timeLaunches(launch)
			if err != nil {
				return fmt.Errorf("%s, %d sweeps: %w", row.Kernel, sweeps, err)
			}
			row.Launch = stats
			row.SecPerSweep = stats.MedianMs * 1e-3 / float64(sweeps)
			row.ChainSweepsPerSec = float64(batch) / row.SecPerSweep
			if strat < 0 {
				genericSec = row.SecPerSweep
			}
			row.SpeedupVsGeneric = genericSec / row.SecPerSweep
			row.FloorSecPerSweep, row.Bound = b.floor(dim, batch, sweeps)
			row.FractionOfFloor = row.FloorSecPerSweep / row.SecPerSweep
			b.rep.Rows = append(b.rep.Rows, row)
			b.printRow(row)
		}
	}
	return nil
}

func (b *bench) printRow(r Row) {
	k := r.Kernel
	if r.Kernel == "auto" {
		k = "auto(" + r.Resolved + ")"
	}
	b.printf("%4d %8d %6d  %-13s %12.3f %14.3e %9.2fx %12.3f %6.1f%%  %s\n",
		r.Dim, r.Batch, r.SweepsPerLaunch, k, r.SecPerSweep*1e6, r.ChainSweepsPerSec,
		r.SpeedupVsGeneric, r.FloorSecPerSweep*1e6, 100*r.FractionOfFloor, r.Bound)
}

// ---------------------------------------------------------------- per call

// Calls is the per-call overhead test: one sweep per call from Go.
type Calls struct {
	Dim      int    `json:"dim"`
	Batch    int    `json:"batch"`
	N        int    `json:"n"`
	Strategy string `json:"strategy"` // what Auto chose
	// Back to back, one Synchronize at the end: total wall time / N.
	SweepAsyncSec float64 `json:"sweep_async_sec_per_call"`
	EmptyAsyncSec float64 `json:"empty_async_sec_per_call"`
	// Synchronize after each call: median of the per-call wall times.
	SweepSyncSec float64 `json:"sweep_sync_sec_per_call"`
	EmptySyncSec float64 `json:"empty_sync_sec_per_call"`
	// SweepSyncSec / EmptySyncSec.
	SyncRatio float64 `json:"sync_ratio"`
}

func (b *bench) runCalls() error {
	dim, batch, n := b.opt.callDim, b.opt.callBatch, b.opt.calls
	e, ok := lookupDim(dim)
	if !ok {
		msg := fmt.Sprintf("per-call overhead test: dim %d has no generated package in bench/dims.go; skipped", dim)
		b.rep.Skipped = append(b.rep.Skipped, msg)
		b.printf("\nnote: %s\n", msg)
		return nil
	}
	s, err := e.newSampler(b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(uint64(dim), 99))
	model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
	if err := s.SetModel(model.Rows(), model.Mu); err != nil {
		return err
	}
	xd, err := b.upload(randomStart(model, batch, rng))
	if err != nil {
		return err
	}
	defer b.ctx.Free(xd)

	sctx := s.Context()
	st := gibbsrt.Stream{Seed: benchSeed}
	sweep := func() error {
		err := s.SweepDevice(xd, batch, 1, st)
		st.Sweep++
		return err
	}
	empty := func() error {
		return b.ctx.Launch(b.fn[kernelEmpty], [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0)
	}
	c := &Calls{Dim: dim, Batch: batch, N: n, Strategy: s.Choose(batch, 1).String()}
	b.rep.Calls = c
	if c.SweepAsyncSec, c.SweepSyncSec, err = b.timeCalls(n, sweep, sctx); err != nil {
		return fmt.Errorf("SweepDevice: %w", err)
	}
	if c.EmptyAsyncSec, c.EmptySyncSec, err = b.timeCalls(n, empty, b.ctx); err != nil {
		return fmt.Errorf("empty_kernel: %w", err)
	}
	c.SyncRatio = c.SweepSyncSec / c.EmptySyncSec

	b.printf("\nPer-call overhead: one sweep per call from Go, dim %d, B %d, strategy auto(%s), N = %d calls (host wall clock)\n",
		dim, batch, c.Strategy, n)
	b.printf("  %-34s %22s %28s\n", "", "back to back (wall/N)", "sync each (median per call)")
	b.printf("  %-34s %19.2f us %25.2f us\n", "SweepDevice(x, B, 1 sweep)", c.SweepAsyncSec*1e6, c.SweepSyncSec*1e6)
	b.printf("  %-34s %19.2f us %25.2f us\n", "empty_kernel via Context.Launch", c.EmptyAsyncSec*1e6, c.EmptySyncSec*1e6)
	b.printf("  ratio sync-call / empty-sync: %.2f\n", c.SyncRatio)
	return nil
}

// timeCalls returns call's wall time per call issued n times back to back
// with one synchronization at the end, and the median wall time of n calls
// each followed by ctx.Synchronize.
func (b *bench) timeCalls(n int, call func() error, ctx *gibbsrt.Context) (async, sync float64, err error) {
	for range max(b.opt.warmup, 10) {
		if err := call(); err != nil {
			return 0, 0, err
		}
	}
	if err := ctx.Synchronize(); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	for range n {
		if err := call(); err != nil {
			return 0, 0, err
		}
	}
	if err := ctx.Synchronize(); err != nil {
		return 0, 0, err
	}
	async = time.Since(t0).Seconds() / float64(n)

	per := make([]float64, n)
	for i := range per {
		t := time.Now()
		if err := call(); err != nil {
			return 0, 0, err
		}
		if err := ctx.Synchronize(); err != nil {
			return 0, 0, err
		}
		per[i] = time.Since(t).Seconds()
	}
	slices.Sort(per)
	return async, median(per), nil
}
