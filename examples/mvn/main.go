// Command mvn samples a Gaussian N(mu, Q⁻¹) whose precision matrix Q is
// read from a Matrix Market file, with the dim-8 package out/gibbs8: it
// burns in from a cold start (by default with BurninAuto's Chebyshev
// iterations, as many as the closed form needs), samples with a trace,
// reporting the progress of both on stderr when stderr is a terminal (a
// log file gets none), and prints, for each coordinate, the mean and the
// variance with their Monte Carlo standard errors, the bulk effective
// sample size and R̂, next to the exact values, and then the covariances.
// Coordinates are numbered from 1 everywhere: in that table, in
// -plot-coords, in the charts and in the errors about the file's entries.
// With -plot DIR it also draws trace.png (the first 4 traced chains of
// each chosen coordinate, beside the exact mean ± 2 sd) and
// autocorrelation.png (the traced chains' combined autocorrelation by lag
// in sweeps, beside the closed form of plain Gibbs sweeps) of the
// coordinates -plot-coords names, by default 1, 4 and 8: the two ends and
// an inner coordinate of the chain the AR(1) example file describes. Exit
// status 0 on success, 1 on failure (the file's errors name its line and
// 1-based entries), 2 for invalid flags.
//
//	go run ./examples/mvn -model testdata/ar1-8.mtx [-plot DIR]
//
// It runs on GPU 0 (-device picks another); without a CUDA driver or
// device (gibbs8.Open) it says so and runs the bit-identical CPU twin
// instead, with the same results: one code path, on gibbs8.Chains.
package main

import (
	"context"
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

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/chart"
	"github.com/gibbsgen/gibbsgen/mcstat"
	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

const dim = gibbs8.Dim

type options struct {
	model, mu             string
	chains, traced        int
	burnin, samples, thin int
	auto                  bool // -burnin auto
	seed                  uint64
	device                int
	cpu                   bool
	plotDir, coordsFlag   string
	plotCoords            []int // 0-based, from the 1-based -plot-coords
	// progress receives the burn-in's and sampling's progress lines,
	// redrawn in place with \r; nil (none) unless stderr is a terminal.
	progress io.Writer
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is mvn: its exit status. Progress goes to stderr only when stderr
// is a terminal.
func run(args []string, stdout, stderr io.Writer) int {
	return runProgress(args, stdout, stderr, isTerminal(stderr))
}

// isTerminal reports whether w is a character device (a terminal; also
// /dev/null), where lines redrawn with \r make sense: not a file, a pipe
// or a buffer.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// runProgress is run with progress on stderr or not.
func runProgress(args []string, stdout, stderr io.Writer, progress bool) int {
	fs := flag.NewFlagSet("mvn", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	if progress {
		o.progress = stderr
	}
	fs.StringVar(&o.model, "model", "", "Matrix Market file of the 8×8 precision matrix Q (required)")
	fs.StringVar(&o.mu, "mu", "", "comma-separated mean, 8 values (default 0)")
	fs.IntVar(&o.chains, "chains", 4096, "chains")
	fs.IntVar(&o.traced, "traced", 64, "chains whose states are recorded, for the diagnostics")
	o.auto = true
	fs.Var(burninFlag{&o}, "burnin", "burn-in: auto (Chebyshev iterations, as many as the closed form needs to cut the mean error 1000-fold) or a number of plain sweeps")
	fs.IntVar(&o.samples, "samples", 2000, "recorded states per traced chain")
	fs.IntVar(&o.thin, "thin", 5, "sweeps between recorded states")
	fs.Uint64Var(&o.seed, "seed", 1, "stream seed")
	fs.IntVar(&o.device, "device", 0, "CUDA device ordinal")
	fs.BoolVar(&o.cpu, "cpu", false, "run the CPU twin even when a GPU is there")
	fs.StringVar(&o.plotDir, "plot", "", "also write trace.png and autocorrelation.png into this directory (created if missing)")
	fs.StringVar(&o.coordsFlag, "plot-coords", "1,4,8", "comma-separated 1-based coordinates that -plot draws (at most 8)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	mu, err := o.check(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "mvn:", err)
		return 2
	}
	if err := sample(o, mu, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "mvn:", err)
		return 1
	}
	return 0
}

// burninFlag is -burnin: "auto", or a count of sweeps.
type burninFlag struct{ o *options }

func (f burninFlag) String() string {
	if f.o == nil || f.o.auto {
		return "auto"
	}
	return strconv.Itoa(f.o.burnin)
}

func (f burninFlag) Set(v string) error {
	if v == "auto" {
		f.o.auto, f.o.burnin = true, 0
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return errors.New("must be auto or a number of sweeps")
	}
	f.o.auto, f.o.burnin = false, n
	return nil
}

// check validates the flags (a usage error, exit 2), sets plotCoords and
// returns the mean.
func (o *options) check(args []string) ([]float64, error) {
	switch {
	case len(args) > 0:
		return nil, fmt.Errorf("unexpected argument %q: mvn takes flags only (see -h)", args[0])
	case o.model == "":
		return nil, errors.New("-model is required: a Matrix Market file of the 8×8 precision matrix")
	case o.chains < 1:
		return nil, fmt.Errorf("-chains %d: must be at least 1", o.chains)
	case o.traced < 2 || o.traced > o.chains:
		return nil, fmt.Errorf("-traced %d: must be from 2 to -chains (%d)", o.traced, o.chains)
	case !o.auto && o.burnin < 0:
		return nil, fmt.Errorf("-burnin %d: must be auto or at least 0", o.burnin)
	case o.samples < 8:
		return nil, fmt.Errorf("-samples %d: must be at least 8", o.samples)
	case o.thin < 1:
		return nil, fmt.Errorf("-thin %d: must be at least 1", o.thin)
	}
	if o.plotDir != "" {
		var err error
		if o.plotCoords, err = parseCoords(o.coordsFlag); err != nil {
			return nil, err
		}
		// A bad directory fails now, not after sampling.
		if err := chart.Dir(o.plotDir); err != nil {
			return nil, fmt.Errorf("-plot: %w", err)
		}
	}
	mu := make([]float64, dim)
	if o.mu == "" {
		return mu, nil
	}
	parts := strings.Split(o.mu, ",")
	if len(parts) != dim {
		return nil, fmt.Errorf("-mu %q has %d values; it must have %d", o.mu, len(parts), dim)
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("-mu value %d of %d, %q: must be a finite number", i+1, dim, p)
		}
		mu[i] = v
	}
	return mu, nil
}

// draws is what sampling produces: the records of the traced chains, a
// row-major [samples][traced][dim] array, and their moments.
type draws struct {
	records []float32
	moments *mcstat.Moments
	where   string
	burnin  gibbs8.RunResult // what the burn-in ran, before the records
}

// burnt describes d's burn-in, for the report and the charts.
func (d draws) burnt() string {
	if d.burnin.Burnin > 0 {
		return fmt.Sprintf("%d Chebyshev burn-in iterations", d.burnin.Burnin)
	}
	return fmt.Sprintf("%d burn-in sweeps", d.burnin.Sweeps)
}

func sample(o options, mu []float64, stdout, stderr io.Writer) error {
	f, err := os.Open(o.model)
	if err != nil {
		return err
	}
	q, err := readMatrixMarket(f, maxDim)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", o.model, err)
	}
	if len(q) != dim {
		return fmt.Errorf("%s is %d×%d; this example's package is gibbs8 (dim %d)", o.model, len(q), len(q), dim)
	}
	if err := checkModel(q); err != nil {
		return fmt.Errorf("%s: %w", o.model, err)
	}
	s, where, err := open(o, stderr)
	if err != nil {
		return err
	}
	d, err := draw(o, s, q, mu)
	s.Close()
	if err != nil {
		return err
	}
	d.where = where
	exact, err := exactCovariance(q)
	if err != nil {
		return err
	}
	if err := report(stdout, o, mu, exact, d); err != nil {
		return err
	}
	if o.plotDir == "" {
		return nil
	}
	files, err := charts(o, q, mu, exact, d)
	if err != nil {
		return err
	}
	if err := chart.Write(o.plotDir, files); err != nil {
		return fmt.Errorf("-plot: %w", err)
	}
	for _, f := range files {
		fmt.Fprintf(stderr, "wrote %s\n", filepath.Join(o.plotDir, f.Name))
	}
	return nil
}

// parseCoords reads -plot-coords: distinct 1-based coordinates, returned
// 0-based.
func parseCoords(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || i < 1 || i > dim {
			return nil, fmt.Errorf("-plot-coords %q: %q is not a coordinate from 1 to %d", s, f, dim)
		}
		if slices.Contains(out, i-1) {
			return nil, fmt.Errorf("-plot-coords %q: coordinate %d is named twice", s, i)
		}
		out = append(out, i-1)
	}
	return out, nil
}

// start is the cold start: every coordinate of every chain at 10, far
// from the mean, so that burn-in shows.
func start(chains int) []float32 {
	x := make([]float32, chains*dim)
	for i := range x {
		x[i] = 10
	}
	return x
}

// open returns the sampler the flags ask for and where it runs: the twin
// with -cpu, GPU -device when it is not 0, and otherwise what gibbs8.Open
// chooses, GPU 0 or, without a driver or device, the twin (said on
// stderr).
func open(o options, stderr io.Writer) (gibbs8.Chains, string, error) {
	switch {
	case o.cpu:
		return gibbs8.NewReference(), "the CPU twin", nil
	case o.device != 0:
		s, err := gibbs8.New(o.device)
		if err != nil {
			return nil, "", err
		}
		return s, gibbsrt.Choice{Backend: gibbs8.OnGPU, Device: s.Device()}.String(), nil
	}
	s, c, err := gibbs8.Open()
	if err != nil {
		return nil, "", err
	}
	if c.Backend == gibbs8.OnTwin {
		fmt.Fprintf(stderr, "mvn: no GPU (%v); running the CPU twin\n", c.Reason)
		return s, "the CPU twin", nil
	}
	return s, c.String(), nil
}

// draw burns in and samples on s, the same code on a GPU and on the twin,
// with the same bits. The burn-in is one Run: BurninAuto's Chebyshev
// iterations (-burnin auto) or -burnin plain sweeps. Sampling runs in
// chunks: after each, the chunk's records are merged into the moments
// (gibbsrt.TraceMoments, whose bits the device's reduction also gives),
// and progress is reported to o.progress, if any.
func draw(o options, s gibbs8.Chains, q [][]float64, mu []float64) (draws, error) {
	if err := s.SetModel(q, mu); err != nil {
		return draws{}, err
	}
	progress := func(format string, a ...any) {
		if o.progress != nil {
			fmt.Fprintf(o.progress, format, a...)
		}
	}
	x := start(o.chains)
	st := gibbs8.Stream{Seed: o.seed}
	ro := gibbs8.RunOptions{Chunk: max(1, o.burnin/10), Progress: func(done, total gibbs8.RunResult) {
		progress("\rburn-in: %d/%d sweeps", done.Sweeps, total.Sweeps)
	}}
	if o.auto {
		ro = gibbs8.RunOptions{Burnin: gibbs8.BurninAuto, Progress: func(done, total gibbs8.RunResult) {
			progress("\rburn-in: %d/%d Chebyshev iterations", done.Burnin, total.Burnin)
		}}
	}
	burnt, err := s.RunHost(context.Background(), x, o.burnin, st, ro)
	if err != nil {
		return draws{}, err
	}
	progress("\n")
	st = burnt.Next(st)
	sweeps, per := o.samples*o.thin, sampleChunk(o)
	d, err := newDraws(o, st)
	if err != nil {
		return draws{}, err
	}
	d.burnin = burnt
	off := 0
	for done := 0; done < sweeps; done += per {
		n := min(per, sweeps-done)
		part := st
		part.Sweep += uint64(done)
		k := gibbsrt.Records(o.thin, part.Sweep, n) * o.traced * dim
		if _, err := s.SweepTrace(x, n, part, gibbs8.Trace{Thin: o.thin, Chains: o.traced}, d.records[off:off+k]); err != nil {
			return draws{}, err
		}
		if k > 0 {
			m, err := gibbsrt.TraceMoments(d.records[off:off+k], dim)
			if err != nil {
				return draws{}, err
			}
			if err := d.moments.Merge(m); err != nil {
				return draws{}, err
			}
		}
		off += k
		progress("\rsampling: %d/%d sweeps", done+n, sweeps)
	}
	progress("\n")
	return d, nil
}

// sampleChunk is the sweeps of a sampling chunk: a tenth of them, in whole
// records.
func sampleChunk(o options) int { return max(1, o.samples/10) * o.thin }

// newDraws allocates the records of sampling from st on, and empty moments.
func newDraws(o options, st gibbs8.Stream) (draws, error) {
	m, err := mcstat.NewMoments(dim)
	if err != nil {
		return draws{}, err
	}
	n := gibbsrt.Records(o.thin, st.Sweep, o.samples*o.thin)
	return draws{records: make([]float32, n*o.traced*dim), moments: m}, nil
}

// series returns coordinate i's draws per traced chain, f applied.
func series(d draws, traced, i int, f func(float64) float64) [][]float64 {
	n := len(d.records) / (traced * dim)
	out := make([][]float64, traced)
	for c := range out {
		out[c] = make([]float64, n)
		for r := 0; r < n; r++ {
			out[c][r] = f(float64(d.records[(r*traced+c)*dim+i]))
		}
	}
	return out
}

// exactCovariance is Σ = Q⁻¹, of Q's symmetric part.
func exactCovariance(q [][]float64) (*mat.SymDense, error) {
	qs := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			qs.SetSym(i, j, 0.5*(q[i][j]+q[j][i]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(qs) {
		return nil, errors.New("the precision matrix Q is not positive definite")
	}
	var exact mat.SymDense
	if err := ch.InverseTo(&exact); err != nil {
		return nil, err
	}
	return &exact, nil
}

func report(w io.Writer, o options, mu []float64, exact *mat.SymDense, d draws) error {
	cov, err := d.moments.Covariance()
	if err != nil {
		return err
	}
	mean := d.moments.Mean()
	fmt.Fprintf(w, "%s: %d chains, %s; %d chains traced every %d sweeps, %.0f states\n",
		d.where, o.chains, d.burnt(), o.traced, o.thin, d.moments.Count())
	fmt.Fprintf(w, "%5s %10s %9s %8s %10s %9s %8s %8s %7s\n", "coord", "mean", "MCSE", "exact", "variance", "MCSE", "exact", "ESS", "R̂")
	for i := 0; i < dim; i++ {
		xs := series(d, o.traced, i, func(v float64) float64 { return v })
		sq := series(d, o.traced, i, func(v float64) float64 { return (v - mean[i]) * (v - mean[i]) })
		seMean, err := mcstat.MCSEMean(xs)
		if err != nil {
			return err
		}
		seVar, err := mcstat.MCSEMean(sq)
		if err != nil {
			return err
		}
		ess, err := mcstat.BulkESS(xs)
		if err != nil {
			return err
		}
		bulk, tail, err := mcstat.Rhat(xs)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%5d %10.4f %9.4f %8.4f %10.4f %9.4f %8.4f %8.0f %7.4f\n", i+1, mean[i], seMean, mu[i],
			cov.At(i, i), seVar, exact.At(i, i), ess.ESS, max(bulk, tail))
	}
	fmt.Fprintln(w, "covariance (upper: estimate, lower: exact)")
	for i := 0; i < dim; i++ {
		for j := 0; j < dim; j++ {
			v := cov.At(i, j)
			if j < i {
				v = exact.At(i, j)
			}
			fmt.Fprintf(w, " %7.3f", v)
		}
		fmt.Fprintln(w)
	}
	return nil
}
