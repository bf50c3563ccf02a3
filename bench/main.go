// Command gibbsbench measures the generated Gibbs samplers on a GPU against
// an unspecialized baseline kernel and against ceilings measured in the same
// run. See bench/README.md for the columns.
//
// Build: CGO_ENABLED=0 go build -o bin/gibbsbench ./bench
// Run:   bin/gibbsbench [-device N] [-dims 8,32,64] [-batches 4096,1048576]
//
//	[-sweeps 1,100] [-repeats 20] [-json FILE] [-plot DIR] ...
//
// Charts of a run written with -json, on any machine: gibbsbench -from FILE -plot DIR
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/chart"
)

// Exit statuses.
const (
	exitError    = 1 // a CUDA call or a file write failed
	exitUsage    = 2 // bad flags (the flag package uses 2 as well)
	exitNoGPU    = 3 // no driver library or no CUDA device
	exitMismatch = 4 // a kernel disagreed with gibbsrt.Reference (the run still completes)
)

type options struct {
	device       int
	dims         []int
	batches      []int
	sweeps       []int
	modelBatches []int
	repeats      int
	warmup       int
	jsonPath     string
	plotDir      string // -plot: PNG charts of the results
	plotLabel    string
	fromPath     string // -from: plot these -json reports (comma list); measure nothing
	checkChains  int
	checkSweeps  int
	copyMiB      int
	calls        int
	callDim      int
	callBatch    int
	packages     []string

	mixing           []string // models of the mixing section (9)
	mixingChains     int
	mixingMaxSweeps  int
	mixingESSChains  int
	mixingESSRecords int
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
	if opt.plotDir != "" {
		// A bad directory fails now, not after the run.
		if err := chart.Dir(opt.plotDir); err != nil {
			fmt.Fprintf(stderr, "gibbsbench: -plot: %v\n", err)
			return exitUsage
		}
	}
	if opt.fromPath != "" {
		rep, err := readReports(strings.Split(opt.fromPath, ","))
		if err == nil {
			err = writeCharts(opt, rep, stdout)
		}
		if err != nil {
			fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
			return exitError
		}
		return 0
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
	// -dims none with no -packages measures only the mixing section.
	if len(opt.mixing) == 0 || len(opt.dims) > 0 || len(opt.packages) > 0 {
		if err := b.runAll(); err != nil {
			fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
			return exitError
		}
	}
	if err := b.runMixing(); err != nil {
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
	if opt.plotDir != "" {
		if err := writeCharts(opt, b.rep, stdout); err != nil {
			fmt.Fprintf(stderr, "gibbsbench: %v\n", err)
			return exitError
		}
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
	dims := fs.String("dims", "8,32,64", "comma-separated dims to measure; each needs a generated package in bench/dims.go (others are skipped with a note); \"none\" measures only -packages")
	packages := fs.String("packages", "", "comma-separated directories of generated packages to check and time, loaded at run time from their manifests (any dim and dtype)")
	batches := fs.String("batches", "4096,1048576", "comma-separated batch sizes B (chains)")
	sweeps := fs.String("sweeps", "1,100", "comma-separated sweeps per launch")
	modelBatches := fs.String("model-batches", "4096,65536,1048576", "comma-separated batch sizes of the per-model kernel's table (\"none\" skips it)")
	fs.IntVar(&opt.device, "device", 0, "CUDA device ordinal")
	fs.IntVar(&opt.repeats, "repeats", 20, "timed launches per measurement (the median is reported)")
	fs.IntVar(&opt.warmup, "warmup", 3, "untimed launches before each measurement")
	fs.StringVar(&opt.jsonPath, "json", "", "also write all results to this JSON file")
	fs.StringVar(&opt.plotDir, "plot", "", "also write PNG charts of the results into this directory (created if missing): us per sweep by batch and kernel, and the mixing section's burn-in curves against the closed form")
	fs.StringVar(&opt.plotLabel, "plot-label", "", "text added to each chart's caption (e.g. the run's name), after the device, commit and date")
	fs.StringVar(&opt.fromPath, "from", "", "measure nothing: draw the charts of -plot from this file written by -json, or from a comma list of such files as one run (e.g. the small and the large dims, measured by two calls)")
	fs.IntVar(&opt.checkChains, "check-chains", 1000, "chains of the correctness check against gibbsrt.Reference")
	fs.IntVar(&opt.checkSweeps, "check-sweeps", 3, "sweeps of the correctness check")
	fs.IntVar(&opt.copyMiB, "copy-mib", 1024, "MiB copied per launch by the bandwidth ceiling (read and written: 2x this moves)")
	fs.IntVar(&opt.calls, "calls", 2000, "calls N of the per-call overhead test (0 skips it)")
	fs.IntVar(&opt.callDim, "call-dim", 32, "dim of the per-call overhead test")
	fs.IntVar(&opt.callBatch, "call-batch", 4096, "batch size of the per-call overhead test")
	mixingModels := fs.String("mixing", "none", "models of the mixing section (burn-in and ESS/s of the sweep schemes): \"all\", or a comma list of ar1, spd, lattice, seed; \"none\" skips it")
	fs.IntVar(&opt.mixingChains, "mixing-chains", 1048576, "chains B of the mixing section's burn-in and timing")
	fs.IntVar(&opt.mixingMaxSweeps, "mixing-max-sweeps", 40000, "most sweeps of a burn-in in the mixing section (\"> cap\" beyond)")
	fs.IntVar(&opt.mixingESSChains, "mixing-ess-chains", 1024, "chains of the mixing section's ESS traces")
	fs.IntVar(&opt.mixingESSRecords, "mixing-ess-records", 1000, "recorded states per chain of the mixing section's ESS traces")
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
	if *dims != "none" {
		if opt.dims, err = intList("-dims", *dims, 1, genericMaxDim); err != nil {
			return opt, err
		}
	}
	for _, p := range strings.Split(*packages, ",") {
		if p = strings.TrimSpace(p); p != "" {
			opt.packages = append(opt.packages, p)
		}
	}
	if opt.batches, err = intList("-batches", *batches, 1, math.MaxInt32); err != nil {
		return opt, err
	}
	if opt.sweeps, err = intList("-sweeps", *sweeps, 1, math.MaxUint32); err != nil {
		return opt, err
	}
	if *modelBatches != "none" {
		if opt.modelBatches, err = intList("-model-batches", *modelBatches, 1, math.MaxInt32); err != nil {
			return opt, err
		}
	}
	if opt.mixing, err = mixingNames(*mixingModels); err != nil {
		return opt, err
	}
	switch {
	case opt.fromPath != "" && opt.plotDir == "":
		return opt, fmt.Errorf("-from %s: needs -plot DIR, the directory to draw the charts in", opt.fromPath)
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
	case opt.mixingChains < 2 || opt.mixingChains > math.MaxInt32:
		return opt, fmt.Errorf("-mixing-chains %d: must be in [2, %d]", opt.mixingChains, math.MaxInt32)
	case opt.mixingMaxSweeps < 1 || opt.mixingMaxSweeps > 1<<30:
		return opt, fmt.Errorf("-mixing-max-sweeps %d: must be in [1, %d]", opt.mixingMaxSweeps, 1<<30)
	case opt.mixingESSChains < 2 || opt.mixingESSRecords < 4 || opt.mixingESSRecords > essMaxSweeps:
		return opt, fmt.Errorf("-mixing-ess-chains %d, -mixing-ess-records %d: need at least 2 chains and 4 to %d records", opt.mixingESSChains, opt.mixingESSRecords, essMaxSweeps)
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

// writeCharts draws rep's charts into opt.plotDir and lists them.
func writeCharts(opt options, rep *Report, stdout io.Writer) error {
	files, err := charts(rep, opt.plotLabel)
	if err != nil {
		return err
	}
	if err := chart.Write(opt.plotDir, files); err != nil {
		return fmt.Errorf("-plot: %w", err)
	}
	for _, f := range files {
		fmt.Fprintf(stdout, "wrote %s\n", filepath.Join(opt.plotDir, f.Name))
	}
	return nil
}
