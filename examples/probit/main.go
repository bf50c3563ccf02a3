// Command probit samples the posterior of a Bayesian probit regression by
// Albert and Chib's data augmentation, with thousands of chains at once:
// the Gaussian block of a larger sampler, which is what a linear term per
// chain is for (docs/GUIDE.md, "A linear term per chain").
//
// The model: y_i = 1{x_iᵀβ + ε_i > 0}, ε_i ~ N(0, 1), prior β ~ N(0, s²·I).
// Given the latent z (z_i ~ N(x_iᵀβ, 1) truncated to the side of 0 that
// y_i says), β | z ~ N(Q⁻¹·Xᵀz, Q⁻¹) with Q = XᵀX + I/s², the same Q for
// every chain and iteration. So the package holds Q once (SetModel, mu =
// 0), each iteration sets every chain's linear term h_c = Xᵀz_c
// (SetLinear), and one exact draw (DrawExact) draws every chain's β from
// its own conditional; the z draws run on the host.
//
//	probit -n 500 -chains 4096 -iters 200 -burn 50
//
// The data are synthetic (seeded): an intercept and dim−1 standard normal
// covariates, and the β of -beta. It prints the posterior mean and
// standard deviation of each coefficient, pooled over the chains and the
// iterations after -burn, beside the β that made the data. It runs on GPU
// 0, or on the CPU twin where there is none (or with -cpu); both give the
// same bits. Exit status 0 on success, 1 on failure, 2 for invalid flags.
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
	"strconv"
	"strings"
	"sync"

	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

const dim = gibbs8.Dim

type options struct {
	n, chains, iters, burn int
	seed                   uint64
	priorSD                float64
	beta                   []float64
	cpu                    bool
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("probit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	beta := "-0.5,1,-1,0.5,0,0.25,-0.25,2"
	fs.IntVar(&o.n, "n", 500, "observations")
	fs.IntVar(&o.chains, "chains", 4096, "chains")
	fs.IntVar(&o.iters, "iters", 200, "iterations (a z draw and a β draw each)")
	fs.IntVar(&o.burn, "burn", 50, "iterations left out of the summary")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the data, the z draws and the stream")
	fs.Float64Var(&o.priorSD, "prior-sd", 10, "prior standard deviation of each coefficient")
	fs.StringVar(&beta, "beta", beta, fmt.Sprintf("the %d coefficients that make the data, the intercept first", dim))
	fs.BoolVar(&o.cpu, "cpu", false, "run the CPU twin even when a GPU is there")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "probit: unexpected argument %q: probit takes flags only\n", fs.Arg(0))
		return 2
	}
	var err error
	if o.beta, err = parseBeta(beta); err == nil {
		err = o.check()
	}
	if err != nil {
		fmt.Fprintln(stderr, "probit:", err)
		return 2
	}
	if err := sample(o, stdout); err != nil {
		fmt.Fprintln(stderr, "probit:", err)
		return 1
	}
	return 0
}

func parseBeta(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != dim {
		return nil, fmt.Errorf("-beta has %d values; the model has %d coefficients", len(parts), dim)
	}
	out := make([]float64, dim)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("-beta value %d is %q; it must be a finite number", i+1, p)
		}
		out[i] = v
	}
	return out, nil
}

func (o options) check() error {
	switch {
	case o.n < 1:
		return fmt.Errorf("-n = %d; it must be at least 1", o.n)
	case o.chains < 1:
		return fmt.Errorf("-chains = %d; it must be at least 1", o.chains)
	case o.iters < 1:
		return fmt.Errorf("-iters = %d; it must be at least 1", o.iters)
	case o.burn < 0 || o.burn >= o.iters:
		return fmt.Errorf("-burn = %d; it must be from 0 to -iters − 1 (%d)", o.burn, o.iters-1)
	case !(o.priorSD > 0) || math.IsInf(o.priorSD, 0):
		return fmt.Errorf("-prior-sd = %v; it must be positive and finite", o.priorSD)
	}
	return nil
}

// data are the design X ([n][dim], an intercept first) and the labels.
type data struct {
	x []float64
	y []bool
}

func makeData(o options) data {
	rng := rand.New(rand.NewPCG(o.seed, 1))
	d := data{x: make([]float64, o.n*dim), y: make([]bool, o.n)}
	for i := 0; i < o.n; i++ {
		row := d.x[i*dim : (i+1)*dim]
		row[0] = 1
		eta := o.beta[0]
		for k := 1; k < dim; k++ {
			row[k] = rng.NormFloat64()
			eta += o.beta[k] * row[k]
		}
		d.y[i] = eta+rng.NormFloat64() > 0
	}
	return d
}

// precision is Q = XᵀX + I/s², the conditional precision of β.
func (d data) precision(priorSD float64) [][]float64 {
	q := make([][]float64, dim)
	for a := range q {
		q[a] = make([]float64, dim)
		q[a][a] = 1 / (priorSD * priorSD)
	}
	for i := range d.y {
		row := d.x[i*dim : (i+1)*dim]
		for a := range q {
			for b := range q[a] {
				q[a][b] += row[a] * row[b]
			}
		}
	}
	return q
}

// latent draws every chain's z given its β and returns h_c = Xᵀz_c, the
// chains split over the CPUs, each chain with a generator of its own, so
// the draws do not depend on the split.
func (d data) latent(beta []float32, h []float32, seed uint64, iter int) {
	chains := len(beta) / dim
	workers := min(runtime.GOMAXPROCS(0), chains)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			hc := make([]float64, dim)
			for c := lo; c < hi; c++ {
				rng := rand.New(rand.NewPCG(seed, uint64(iter)<<32|uint64(c)))
				clear(hc)
				bc := beta[c*dim : (c+1)*dim]
				for i, yi := range d.y {
					row := d.x[i*dim : (i+1)*dim]
					m := 0.0
					for k, v := range row {
						m += v * float64(bc[k])
					}
					z := m + truncated(-m, yi, rng)
					for k, v := range row {
						hc[k] += v * z
					}
				}
				for k, v := range hc {
					h[c*dim+k] = float32(v)
				}
			}
		}(w*chains/workers, (w+1)*chains/workers)
	}
	wg.Wait()
}

// truncated draws e ~ N(0, 1) conditioned on e > a (above) or e < a, by
// inverting the normal CDF on the allowed side.
func truncated(a float64, above bool, rng *rand.Rand) float64 {
	u := rng.Float64()
	if above { // Φ(e) uniform on (Φ(a), 1): work with the upper tail, -e
		p := phi(-a) * u // P(-e < -a) scaled
		return -quantile(p)
	}
	return quantile(phi(a) * u)
}

func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

func quantile(p float64) float64 {
	p = math.Max(p, math.SmallestNonzeroFloat64)
	return -math.Sqrt2 * math.Erfcinv(2*p)
}

func sample(o options, stdout io.Writer) error {
	d := makeData(o)
	var c gibbs8.Chains
	var choice gibbs8.Choice
	var err error
	if o.cpu {
		c, choice = gibbs8.NewReference(), gibbs8.Choice{Backend: gibbs8.OnTwin, Reason: errors.New("-cpu")}
	} else if c, choice, err = gibbs8.Open(); err != nil {
		return err
	}
	defer c.Close()
	fmt.Fprintf(stdout, "probit: %d observations (%d ones), %d chains × %d iterations on %v\n", o.n, ones(d.y), o.chains, o.iters, choice)
	_, mean, sd, err := posterior(o, d, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-12s %10s %10s %10s\n", "coefficient", "true", "mean", "sd")
	for k := 0; k < dim; k++ {
		fmt.Fprintf(stdout, "%-12s %10.4f %10.4f %10.4f\n", name(k), o.beta[k], mean[k], sd[k])
	}
	return nil
}

// posterior runs the sampler on c and returns every chain's last β and
// the mean and standard deviation of each coefficient over the chains
// and the iterations after o.burn.
func posterior(o options, d data, c gibbs8.Chains) (last []float32, mean, sd []float64, err error) {
	if err := c.SetModel(d.precision(o.priorSD), make([]float64, dim)); err != nil {
		return nil, nil, nil, err
	}
	beta := make([]float32, o.chains*dim) // every chain starts at β = 0
	h := make([]float32, o.chains*dim)
	sum, sq := make([]float64, dim), make([]float64, dim)
	for it := 0; it < o.iters; it++ {
		d.latent(beta, h, o.seed, it)
		if err := c.SetLinear(h); err != nil {
			return nil, nil, nil, err
		}
		if err := c.DrawExact(beta, gibbs8.Stream{Seed: o.seed, Sweep: uint64(it)}); err != nil {
			return nil, nil, nil, err
		}
		if it < o.burn {
			continue
		}
		for e, v := range beta {
			sum[e%dim] += float64(v)
			sq[e%dim] += float64(v) * float64(v)
		}
	}
	n := float64(o.chains * (o.iters - o.burn))
	mean, sd = make([]float64, dim), make([]float64, dim)
	for k := range mean {
		mean[k] = sum[k] / n
		sd[k] = math.Sqrt(math.Max(0, sq[k]/n-mean[k]*mean[k]))
	}
	return beta, mean, sd, nil
}

func name(k int) string {
	if k == 0 {
		return "intercept"
	}
	return fmt.Sprintf("x%d", k)
}

func ones(y []bool) int {
	n := 0
	for _, v := range y {
		if v {
			n++
		}
	}
	return n
}
