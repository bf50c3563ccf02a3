package main

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

// The sampler's posterior on the twin against the exact one (the grid,
// itself checked against a float64 sampler in oracle_test.go): every
// mean within 5 Monte Carlo standard errors (batch means, fixed seed), and
// the standard deviations of β and σ² within 5 of their standard errors,
// SD/√(2·ESS), which holds for a near-Gaussian quantity (τ's is skewed).
// A sampler that kept one chain's scales or diagonal for all, or dropped
// the linear term, is far off.
func TestPosteriorAgainstExact(t *testing.T) {
	t.Run("sweeps", func(t *testing.T) {
		posteriorAgainstExact(t, options{chains: 128, iters: 700, burn: 100, sweeps: 4, seed: 5})
	})
	t.Run("exact", func(t *testing.T) {
		posteriorAgainstExact(t, options{chains: 128, iters: 300, burn: 20, sweeps: 1, seed: 5, exact: true})
	})
}

func posteriorAgainstExact(t *testing.T, o options) {
	x, y := load(t)
	r, err := posterior(o, sufficient(x, y), defaultPriors(), gibbs8.NewReference())
	if err != nil {
		t.Fatal(err)
	}
	exact := gridPosterior(x, y, defaultPriors(), 301)
	for k, st := range r.stats {
		want := exact.Tau
		switch {
		case k < dim:
			want = exact.Beta[k]
		case k == dim:
			want = exact.Sigma2
		}
		if !(st.ESS > 0) {
			t.Fatalf("%s: ESS %v", names(k), st.ESS)
		}
		if d := st.Mean - want.Mean; !(math.Abs(d) <= 5*st.MCSE) {
			t.Errorf("%s: mean %.5f, exact %.5f: %.1f standard errors (%.2e) apart", names(k), st.Mean, want.Mean, d/st.MCSE, st.MCSE)
		}
		if k > dim {
			continue
		}
		if se := st.SD / math.Sqrt(2*st.ESS); !(math.Abs(st.SD-want.SD) <= 5*se) {
			t.Errorf("%s: sd %.5f, exact %.5f: %.1f standard errors (%.2e) apart", names(k), st.SD, want.SD, (st.SD-want.SD)/se, se)
		}
	}
}

// On a GPU the same run gives the twin's bits: every chain's last β and
// so every figure of the report.
func TestGPUMatchesTwin(t *testing.T) {
	c, choice, err := gibbs8.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if choice.Backend != gibbs8.OnGPU {
		t.Skipf("no GPU: %v", choice)
	}
	x, y := load(t)
	s := sufficient(x, y)
	for _, o := range []options{{chains: 1000, iters: 60, burn: 10, sweeps: 3, seed: 9}, {chains: 1000, iters: 60, burn: 10, sweeps: 1, seed: 9, exact: true}} {
		gpu, err := posterior(o, s, defaultPriors(), c)
		if err != nil {
			t.Fatal(err)
		}
		twin, err := posterior(o, s, defaultPriors(), gibbs8.NewReference())
		if err != nil {
			t.Fatal(err)
		}
		for i := range twin.beta {
			if math.Float32bits(gpu.beta[i]) != math.Float32bits(twin.beta[i]) {
				t.Fatalf("exact %v: chain %d, β%d: GPU %v, twin %v", o.exact, i/dim, i%dim, gpu.beta[i], twin.beta[i])
			}
		}
		if !slices.Equal(gpu.stats, twin.stats) {
			t.Errorf("exact %v: the summaries differ:\nGPU  %v\ntwin %v", o.exact, gpu.stats, twin.stats)
		}
	}
}

// Bad flags exit 2 with a message that names the flag; a small run exits
// 0 and prints a row per quantity and the timing.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-chains", "0"}, "-chains = 0"},
		{[]string{"-iters", "0"}, "-iters = 0"},
		{[]string{"-burn", "7", "-iters", "10"}, "-burn = 7"},
		{[]string{"-burn", "-1"}, "-burn = -1"},
		{[]string{"-sweeps", "0"}, "-sweeps = 0"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		var out, errs bytes.Buffer
		if code := run(c.args, &out, &errs); code != 2 || !strings.Contains(errs.String(), c.msg) {
			t.Errorf("regression %v: exit %d, %q; want 2 and %q", c.args, code, errs.String(), c.msg)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-cpu", "-chains", "8", "-iters", "30", "-burn", "10", "-data", dataPath}, &out, &errs); code != 0 {
		t.Fatalf("a small run: exit %d, %s", code, errs.String())
	}
	if lines := strings.Count(out.String(), "\n"); lines != quantities+3 {
		t.Errorf("a small run printed %d lines, want %d:\n%s", lines, quantities+3, out.String())
	}
	if code := run([]string{"-cpu", "-data", "testdata/missing.csv"}, &out, &errs); code != 1 || !strings.Contains(errs.String(), "missing.csv") {
		t.Errorf("a missing -data file: exit %d, %q; want 1 and the file's name", code, errs.String())
	}
}

// termsRecorder is the twin with each iteration's β-block terms copied as
// the sampler is given them.
type termsRecorder struct {
	gibbs8.Chains
	scales, diag, h [][]float32
}

func (r *termsRecorder) SetPrecision(p *gibbs8.Precision) error {
	r.scales = append(r.scales, slices.Clone(p.Scales))
	r.diag = append(r.diag, slices.Clone(p.Diag))
	return r.Chains.SetPrecision(p)
}

func (r *termsRecorder) SetLinear(h []float32) error {
	r.h = append(r.h, slices.Clone(h))
	return r.Chains.SetLinear(h)
}

// Each chain's β block gets its own terms: the scale φ_c of XᵀX, the
// diagonal τ_c on every coordinate, and h_c = φ_c·Xᵀy with that chain's
// φ_c; after the first iteration (φ = τ = 1) the chains' φ and τ differ.
// The posterior test above cannot see a sampler that gave every chain
// chain 0's τ (β's posterior hardly depends on τ with 944 rows); this
// one does.
func TestTermsPerChain(t *testing.T) {
	x, y := load(t)
	s := sufficient(x, y)
	const chains, iters = 16, 3
	r := &termsRecorder{Chains: gibbs8.NewReference()}
	if _, err := posterior(options{chains: chains, iters: iters, burn: 1, sweeps: 1, seed: 3}, s, defaultPriors(), r); err != nil {
		t.Fatal(err)
	}
	if len(r.scales) != iters || len(r.h) != iters {
		t.Fatalf("%d SetPrecision and %d SetLinear calls, want %d each", len(r.scales), len(r.h), iters)
	}
	for it := range iters {
		sc, dg, h := r.scales[it], r.diag[it], r.h[it]
		if len(sc) != chains || len(dg) != chains*dim || len(h) != chains*dim {
			t.Fatalf("iteration %d: %d scales, %d diagonal entries, %d of h", it, len(sc), len(dg), len(h))
		}
		for c := range chains {
			for i := range dim {
				if dg[c*dim+i] != dg[c*dim] {
					t.Errorf("iteration %d, chain %d: diagonal %v at %d, %v at 0", it, c, dg[c*dim+i], i, dg[c*dim])
				}
				want := float64(sc[c]) * s.xty[i]
				if d := float64(h[c*dim+i]) - want; math.Abs(d) > 1e-6*math.Abs(want) {
					t.Errorf("iteration %d, chain %d: h[%d] = %v, want φ_c·(Xᵀy)_%d = %v", it, c, i, h[c*dim+i], i, want)
				}
			}
			if it > 0 && c > 0 && (sc[c] == sc[0] || dg[c*dim] == dg[0]) {
				t.Errorf("iteration %d: chain %d has chain 0's φ (%v) or τ (%v)", it, c, sc[c] == sc[0], dg[c*dim] == dg[0])
			}
		}
	}
}

// BenchmarkUpdate times the host's part of an iteration at 65,536 chains:
// every chain's φ and τ draws given its β, and the record of the draw.
func BenchmarkUpdate(b *testing.B) {
	x, y := load(b)
	const chains = 65536
	st := newChainState(chains, sufficient(x, y))
	for i := range st.beta {
		st.beta[i] = float32(i%7) * 0.01
	}
	acc := newAccumulator(chains, quantities, b.N+1)
	b.ResetTimer()
	for it := range b.N {
		st.update(defaultPriors(), 5, it, acc, it)
	}
}
