// Command regression samples the posterior of a Bayesian linear
// regression with an unknown noise precision φ and prior precision τ,
// thousands of chains at once: the Gaussian block of a larger Gibbs
// sampler, which is what a precision per chain is for (docs/GUIDE.md, "A
// precision per chain").
//
// The model, on the ANES 1996 data (testdata/README.md; an intercept and
// 7 scaled regressors, y = party identification):
//
//	y = Xβ + ε, ε ~ N(0, φ⁻¹I);  β | τ ~ N(0, τ⁻¹I)
//	φ ~ Gamma(a0, rate b0),  τ ~ Gamma(c0, rate d0)
//
// Chain c's β block has precision Q_c = φ_c·XᵀX + τ_c·I and linear term
// h_c = φ_c·Xᵀy, both new at every iteration. The package holds XᵀX once
// (SetModel, mu = 0); each iteration sets the scales φ_c and diagonals τ_c
// (SetPrecision) and h_c (SetLinear), runs -sweeps Gibbs sweeps on every
// chain's β (or, with -exact, draws it exactly from its conditional:
// DrawExact factors each chain's Q_c), and then draws φ_c and τ_c from
// their Gamma conditionals on the host:
//
//	φ | β ~ Gamma(a0 + n/2, b0 + ‖y − Xβ‖²/2),  τ | β ~ Gamma(c0 + 4, d0 + ‖β‖²/2)
//
//	regression -chains 4096 -iters 2000 -burn 200 -sweeps 1
//	regression -chains 4096 -iters 2000 -burn 200 -exact
//
// It prints each quantity's posterior mean and standard deviation pooled
// over the chains and the iterations after -burn, its Monte Carlo
// standard error and effective sample size (batch means), and the exact
// posterior mean beside it (a quadrature over (φ, τ) with β integrated
// out), with the number of standard errors between them; then the wall
// time per effective sample. It runs on GPU 0, or on the CPU twin where
// there is none (or with -cpu); both give the same bits. Exit status 0 on
// success, 1 on failure (or with -check, a mean more than 5 standard
// errors from the exact one), 2 for invalid flags.
package main

import (
	"bytes"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

const dim = gibbs8.Dim

//go:embed testdata/anes96.csv
var anes96 []byte

type options struct {
	chains, iters, burn, sweeps int
	seed                        uint64
	data                        string
	cpu, check, exact           bool
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("regression", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.chains, "chains", 4096, "chains")
	fs.IntVar(&o.iters, "iters", 2000, "iterations (Gibbs sweeps of β, then φ and τ)")
	fs.IntVar(&o.burn, "burn", 200, "iterations left out of the summary")
	fs.IntVar(&o.sweeps, "sweeps", 1, "Gibbs sweeps of β per iteration")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the φ and τ draws and of the stream")
	fs.StringVar(&o.data, "data", "", "a CSV with the columns of testdata/anes96.csv (default: that file, built in)")
	fs.BoolVar(&o.exact, "exact", false, "draw β exactly from its conditional each iteration (DrawExact), instead of -sweeps Gibbs sweeps")
	fs.BoolVar(&o.cpu, "cpu", false, "run the CPU twin even when a GPU is there")
	fs.BoolVar(&o.check, "check", false, "exit 1 when a posterior mean is more than 5 standard errors from the exact one")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "regression: unexpected argument %q: regression takes flags only\n", fs.Arg(0))
		return 2
	}
	if err := o.validate(); err != nil {
		fmt.Fprintln(stderr, "regression:", err)
		return 2
	}
	if err := sample(o, stdout); err != nil {
		fmt.Fprintln(stderr, "regression:", err)
		return 1
	}
	return 0
}

func (o options) validate() error {
	switch {
	case o.chains < 1:
		return fmt.Errorf("-chains = %d; it must be at least 1", o.chains)
	case o.iters < 1:
		return fmt.Errorf("-iters = %d; it must be at least 1", o.iters)
	case o.burn < 0 || o.iters-o.burn < minKept:
		return fmt.Errorf("-burn = %d; it must be from 0 to -iters − %d (%d), so that %d iterations are kept", o.burn, minKept, o.iters-minKept, minKept)
	case o.sweeps < 1:
		return fmt.Errorf("-sweeps = %d; it must be at least 1", o.sweeps)
	}
	return nil
}

// errOff is what -check returns when a mean is off.
var errOff = errors.New("a posterior mean is more than 5 standard errors from the exact one")

func sample(o options, stdout io.Writer) error {
	var x *mat.Dense
	var y []float64
	var err error
	if o.data == "" {
		x, y, err = readData(bytes.NewReader(anes96), "testdata/anes96.csv")
	} else {
		x, y, err = loadData(o.data)
	}
	if err != nil {
		return err
	}
	if _, p := x.Dims(); p != dim {
		return fmt.Errorf("the design has %d columns; this sampler has %d", p, dim)
	}
	var c gibbs8.Chains
	var choice gibbs8.Choice
	if o.cpu {
		c, choice = gibbs8.NewReference(), gibbs8.Choice{Backend: gibbs8.OnTwin, Reason: errors.New("-cpu")}
	} else if c, choice, err = gibbs8.Open(); err != nil {
		return err
	}
	defer c.Close()
	s := sufficient(x, y)
	block := fmt.Sprintf("%d sweeps of β each", o.sweeps)
	if o.exact {
		block = "an exact draw of β each"
	}
	fmt.Fprintf(stdout, "regression: %d observations, %d coefficients; %d chains × %d iterations (%s) on %v\n", s.n, dim, o.chains, o.iters, block, choice)
	res, err := posterior(o, s, defaultPriors(), c)
	if err != nil {
		return err
	}
	exact := gridPosterior(x, y, defaultPriors(), 301)
	return report(stdout, o, res, exact)
}

// result is a run's summary and its timing.
type result struct {
	stats    []chainStat // β_0..β_7, σ², τ
	beta     []float32   // every chain's last β
	wall     time.Duration
	gaussian time.Duration // in the package's calls
}

// posterior runs the sampler on c: every chain starts at β = 0, φ = τ = 1.
func posterior(o options, s suffStats, pr priors, c gibbs8.Chains) (result, error) {
	q := make([][]float64, dim)
	for i := range q {
		q[i] = make([]float64, dim)
		for j := range q[i] {
			q[i][j] = s.xtx.At(i, j)
		}
	}
	if err := c.SetModel(q, make([]float64, dim)); err != nil {
		return result{}, err
	}
	st := newChainState(o.chains, s)
	acc := newAccumulator(o.chains, quantities, o.iters-o.burn)
	prec := gibbs8.Precision{Scales: st.phi, Diag: st.diag}
	var res result
	start := time.Now()
	for it := 0; it < o.iters; it++ {
		st.setTerms()
		t := time.Now()
		err := c.SetPrecision(&prec)
		if err == nil {
			err = c.SetLinear(st.h)
		}
		switch {
		case err == nil && o.exact:
			err = c.DrawExact(st.beta, gibbs8.Stream{Seed: o.seed, Sweep: uint64(it)})
		case err == nil:
			err = c.Sweep(st.beta, o.sweeps, gibbs8.Stream{Seed: o.seed, Sweep: uint64(it * o.sweeps)})
		}
		res.gaussian += time.Since(t)
		if err != nil {
			return result{}, fmt.Errorf("iteration %d: %w", it, err)
		}
		st.update(pr, o.seed, it, acc, it-o.burn)
	}
	res.wall = time.Since(start)
	res.stats, res.beta = acc.stats(), st.beta
	return res, nil
}

// names labels the quantities in the report.
func names(k int) string {
	switch {
	case k < dim:
		return fmt.Sprintf("β%d %s", k, columns[k])
	case k == dim:
		return "σ²"
	}
	return "τ"
}

// report prints the table and the timing; with -check, a mean more than 5
// standard errors from the exact one is an error.
func report(w io.Writer, o options, r result, exact gridResult) error {
	fmt.Fprintf(w, "%-14s %10s %10s %9s %9s %7s %10s\n", "quantity", "exact", "mean", "sd", "MCSE", "z", "ESS")
	off := false
	minESS := math.Inf(1)
	for k, st := range r.stats {
		var want stat
		switch {
		case k < dim:
			want = exact.Beta[k]
			minESS = min(minESS, st.ESS)
		case k == dim:
			want = exact.Sigma2
		default:
			want = exact.Tau
		}
		z := (st.Mean - want.Mean) / st.MCSE
		if !(math.Abs(z) <= 5) {
			off = true
		}
		fmt.Fprintf(w, "%-14s %10.5f %10.5f %9.5f %9.2e %7.2f %10.4g\n", names(k), want.Mean, st.Mean, st.SD, st.MCSE, z, st.ESS)
	}
	fmt.Fprintf(w, "wall %.3f s (%.3f s in the Gaussian block's calls); min ESS over β %.4g: %.3g s per effective sample\n",
		r.wall.Seconds(), r.gaussian.Seconds(), minESS, r.wall.Seconds()/minESS)
	if o.check && off {
		return errOff
	}
	return nil
}
