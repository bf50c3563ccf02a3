package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

// The sampler's posterior against an independent Albert–Chib sampler
// written here in float64 with gonum (its own z draws, its β by a
// Cholesky solve): the chains' last states, independent draws of the same
// posterior on both sides, agree in each coefficient's mean and standard
// deviation within bounds from the sample sizes (5 standard errors, fixed
// seeds). A sampler that dropped the linear term, or kept one chain's for
// all, would be far off.
func TestPosteriorAgainstFloat64(t *testing.T) {
	o := options{n: 300, chains: 2048, iters: 30, burn: 29, seed: 3, priorSD: 10, beta: []float64{-0.5, 1, -1, 0.5, 0, 0.25, -0.25, 2}}
	d := makeData(o)
	last, _, _, err := posterior(o, d, gibbs8.NewReference())
	if err != nil {
		t.Fatal(err)
	}
	want := float64Posterior(t, o, d)
	got := make([]float64, len(last))
	for i, v := range last {
		got[i] = float64(v)
	}
	n := float64(o.chains)
	for k := 0; k < dim; k++ {
		ma, sa := moments(got, k)
		mb, sb := moments(want, k)
		if se := math.Sqrt((sa*sa + sb*sb) / n); math.Abs(ma-mb) > 5*se {
			t.Errorf("%s: posterior mean %.4f, float64 sampler's %.4f (difference over 5 SE = %.4f)", name(k), ma, mb, 5*se)
		}
		if se := math.Sqrt((sa*sa + sb*sb) / (2 * n)); math.Abs(sa-sb) > 5*se {
			t.Errorf("%s: posterior sd %.4f, float64 sampler's %.4f (difference over 5 SE = %.4f)", name(k), sa, sb, 5*se)
		}
	}
}

func moments(x []float64, k int) (mean, sd float64) {
	n := 0.0
	for e := k; e < len(x); e += dim {
		mean += x[e]
		n++
	}
	mean /= n
	for e := k; e < len(x); e += dim {
		sd += (x[e] - mean) * (x[e] - mean)
	}
	return mean, math.Sqrt(sd / n)
}

// float64Posterior is the same Albert–Chib sampler in float64, drawing β
// as Q⁻¹·Xᵀz + L⁻ᵀ·ε with Q = L·Lᵀ; it returns every chain's last β.
func float64Posterior(t *testing.T, o options, d data) []float64 {
	q := mat.NewSymDense(dim, nil)
	for a, row := range d.precision(o.priorSD) {
		for b := a; b < dim; b++ {
			q.SetSym(a, b, row[b])
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		t.Fatal("Q is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	beta := make([]float64, o.chains*dim)
	rng := rand.New(rand.NewPCG(o.seed, 99))
	h, z := mat.NewVecDense(dim, nil), mat.NewVecDense(dim, nil)
	var mean, dev mat.VecDense
	for c := 0; c < o.chains; c++ {
		bc := beta[c*dim : (c+1)*dim]
		for it := 0; it < o.iters; it++ {
			h.Zero()
			for i, yi := range d.y {
				row := d.x[i*dim : (i+1)*dim]
				m := 0.0
				for k, v := range row {
					m += v * bc[k]
				}
				zi := m + truncated(-m, yi, rng)
				for k, v := range row {
					h.SetVec(k, h.AtVec(k)+v*zi)
				}
			}
			if err := ch.SolveVecTo(&mean, h); err != nil {
				t.Fatal(err)
			}
			for k := 0; k < dim; k++ {
				z.SetVec(k, rng.NormFloat64())
			}
			if err := dev.SolveVec(l.T(), z); err != nil {
				t.Fatal(err)
			}
			for k := range bc {
				bc[k] = mean.AtVec(k) + dev.AtVec(k)
			}
		}
	}
	return beta
}

// Bad flags exit 2 with a message that names the flag; a small run exits
// 0 and prints a row per coefficient.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-n", "0"}, "-n = 0"},
		{[]string{"-burn", "5", "-iters", "5"}, "-burn = 5"},
		{[]string{"-beta", "1,2"}, "-beta has 2 values"},
		{[]string{"-beta", "1,2,3,4,5,6,7,NaN"}, "-beta value 8"},
		{[]string{"-prior-sd", "-1"}, "-prior-sd = -1"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		var out, errs bytes.Buffer
		if code := run(c.args, &out, &errs); code != 2 || !strings.Contains(errs.String(), c.msg) {
			t.Errorf("probit %v: exit %d, %q; want 2 and %q", c.args, code, errs.String(), c.msg)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-cpu", "-n", "50", "-chains", "16", "-iters", "3", "-burn", "1"}, &out, &errs); code != 0 {
		t.Fatalf("a small run: exit %d, %s", code, errs.String())
	}
	if lines := strings.Count(out.String(), "\n"); lines != dim+2 {
		t.Errorf("a small run printed %d lines, want %d:\n%s", lines, dim+2, out.String())
	}
}
