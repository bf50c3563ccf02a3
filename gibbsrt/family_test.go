package gibbsrt_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// A precision per chain on the twin: every chain whitened by its own
// target after sweeps, in both dtypes.
func TestPrecisionDistribution(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	for _, d := range []int{1, 5, 13} {
		m := gibbstest.RandomSPD(d, 100, rng, gibbstest.NonzeroMean(d))
		t.Run(fmt.Sprintf("dim=%d/float32", d), func(t *testing.T) {
			r := gibbsrt.NewReference[float32](d)
			if err := r.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			gibbstest.CheckPrecisionDistribution[float32](t, m, r, 4000, rng)
		})
		t.Run(fmt.Sprintf("dim=%d/float64", d), func(t *testing.T) {
			r := gibbsrt.NewReference[float64](d)
			if err := r.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			gibbstest.CheckPrecisionDistribution[float64](t, m, r, 4000, rng)
		})
	}
}

// One sweep of every chain against the same sweep in float64 from the
// same normals: x_i = (b_i + h_i − Σ_{j≠i} Q_c[i][j]·x_j)/Q_c[i][i] +
// z_i/sqrt(Q_c[i][i]) in order, Q_c and b from the inputs as given
// (gibbstest.PrecisionTarget). The bound is the rounding of each
// coordinate's terms, γ·(|b_i| + |h_i| + Σ_k |s_k|·Σ_j |M_k[i][j]·x_j| +
// Σ_k |s_k·M_k[i][i]| + |w_i|)/q + γ·|z_i|/sqrt(q) with γ = (K·dim + 8)·ε
// of T (the members rounded to T, the sums, the reciprocal, the square
// root and the last fma). Each coordinate's oracle sees the twin's
// values of the coordinates before it, so that it checks that
// coordinate's conditional alone.
func TestPrecisionConditionals(t *testing.T) {
	for _, d := range []int{1, 5, 13} {
		t.Run(fmt.Sprintf("dim=%d/float32", d), func(t *testing.T) { conditionals[float32](t, d, 0x1p-24) })
		t.Run(fmt.Sprintf("dim=%d/float64", d), func(t *testing.T) { conditionals[float64](t, d, 0x1p-53) })
	}
}

func conditionals[T gibbsrt.Float](t *testing.T, d int, eps float64) {
	rng := rand.New(rand.NewPCG(uint64(d), 35))
	m := gibbstest.RandomSPD(d, 1000, rng, gibbstest.NonzeroMean(d))
	chains := 200
	p, h := gibbstest.Precisions[T](m, chains, rng)
	r := gibbsrt.NewReference[T](d)
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	if err := r.SetPrecision(p); err != nil {
		t.Fatal(err)
	}
	if err := r.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	x := make([]T, chains*d)
	for i := range x {
		x[i] = T(5 * rng.NormFloat64())
	}
	x0 := slices.Clone(x)
	st := gibbsrt.Stream{Seed: 77, Sweep: 5, Chain: 1 << 40}
	if err := r.Sweep(x, 1, st); err != nil {
		t.Fatal(err)
	}
	k := 1 + len(p.Members)
	gamma := float64(k*d+8) * eps
	member := func(n, i, j int) float64 {
		if n == 0 {
			return m.Q.At(i, j)
		}
		return p.Members[n-1][i][j]
	}
	worst := 0.0
	for c := range chains {
		q, _ := gibbstest.PrecisionTarget(m, p, nil, c)
		b := make([]float64, d)
		for i := range d {
			for j := range d {
				b[i] += m.Q.At(i, j) * m.Mu[j]
			}
			b[i] += float64(h[c*d+i])
		}
		y := make([]float64, d)
		for i := range d {
			y[i] = float64(x0[c*d+i])
		}
		for i := range d {
			g := stream.Normals4(st.Seed, st.Chain+uint64(c), st.Sweep, i/4)
			z := float64(T(g[i%4]))
			qi := q.At(i, i)
			u, mag := b[i], math.Abs(b[i])+math.Abs(float64(h[c*d+i]))
			for n := range k {
				s := math.Abs(float64(p.Scales[c*k+n]))
				mag += s * math.Abs(member(n, i, i))
				for j := range d {
					if j != i {
						mag += s * math.Abs(member(n, i, j)*y[j])
					}
				}
			}
			mag += math.Abs(float64(p.Diag[c*d+i]))
			for j := range d {
				if j != i {
					u -= q.At(i, j) * y[j]
				}
			}
			want := u/qi + z/math.Sqrt(qi)
			bound := gamma*mag/qi + gamma*math.Abs(z)/math.Sqrt(qi)
			got := float64(x[c*d+i])
			e := math.Abs(got - want)
			if e > bound {
				t.Fatalf("chain %d coordinate %d: %v, the float64 sweep %v: error %.3g > bound %.3g", c, i, got, want, e, bound)
			}
			worst = max(worst, e/bound)
			y[i] = got // the next coordinates see the twin's values
		}
	}
	t.Logf("largest error / bound: %.3g", worst)
}

// Every refusal of SetPrecision and of the calls it does not run names
// the value and the rule, and changes nothing.
func TestPrecisionErrors(t *testing.T) {
	const d, chains = 4, 6
	rng := rand.New(rand.NewPCG(36, 1))
	m := gibbstest.RandomSPD(d, 10, rng, gibbstest.NonzeroMean(d))
	r := gibbsrt.NewReference[float32](d)
	if err := r.SetPrecision(&gibbsrt.Precision[float32]{Diag: make([]float32, d)}); err == nil || !strings.Contains(err.Error(), "before SetModel") {
		t.Errorf("SetPrecision before SetModel: %v", err)
	}
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	good, h := gibbstest.Precisions[float32](m, chains, rng)
	if err := r.SetPrecision(good); err != nil {
		t.Fatal(err)
	}
	x0 := make([]float32, chains*d)
	for i := range x0 {
		x0[i] = float32(rng.NormFloat64())
	}
	want := slices.Clone(x0)
	st := gibbsrt.Stream{Seed: 3}
	if err := r.Sweep(want, 2, st); err != nil {
		t.Fatal(err)
	}
	square := func(v float64) [][]float64 {
		a := make([][]float64, d)
		for i := range a {
			a[i] = make([]float64, d)
			a[i][i] = v
		}
		return a
	}
	asym := square(1)
	asym[0][2] = 0.5
	nanM := square(1)
	nanM[1][3], nanM[3][1] = math.NaN(), math.NaN()
	short := square(1)
	short[2] = short[2][:d-1]
	withScales := func(f func(s []float32)) *gibbsrt.Precision[float32] {
		s := slices.Clone(good.Scales)
		f(s)
		return &gibbsrt.Precision[float32]{Members: good.Members, Scales: s, Diag: good.Diag}
	}
	for _, c := range []struct {
		what, want string
		p          *gibbsrt.Precision[float32]
	}{
		{"nothing per chain", "neither Scales nor Diag", &gibbsrt.Precision[float32]{Members: good.Members}},
		{"too many members", "at most 3", &gibbsrt.Precision[float32]{Members: [][][]float64{square(1), square(1), square(1), square(1)}, Diag: good.Diag}},
		{"a member with a row too short", "Members[0] row 2 has 3 entries, want 4", &gibbsrt.Precision[float32]{Members: [][][]float64{short}, Diag: good.Diag}},
		{"a member with too few rows", "Members[1] has 3 rows, want 4", &gibbsrt.Precision[float32]{Members: [][][]float64{square(1), square(1)[:3]}, Diag: good.Diag}},
		{"a member with a NaN", "Members[0][1][3] is NaN", &gibbsrt.Precision[float32]{Members: [][][]float64{nanM}, Diag: good.Diag}},
		{"an asymmetric member", "Members[0] is not symmetric: [0][2] = 0.5 but [2][0] = 0", &gibbsrt.Precision[float32]{Members: [][][]float64{asym}, Diag: good.Diag}},
		{"scales of a partial chain", "len(Scales) = 17 is not a positive multiple of K = 3", &gibbsrt.Precision[float32]{Members: good.Members, Scales: good.Scales[:17]}},
		{"a diagonal of a partial chain", "len(Diag) = 23 is not a positive multiple of dim 4", &gibbsrt.Precision[float32]{Diag: good.Diag[:23]}},
		{"scales and diagonal of other chain counts", "Scales are for 6 chains, Diag for 5", &gibbsrt.Precision[float32]{Members: good.Members, Scales: good.Scales, Diag: good.Diag[:20]}},
		{"a NaN scale", "Scales[7] = NaN (chain 2, entry 1)", withScales(func(s []float32) { s[7] = float32(math.NaN()) })},
		{"an infinite diagonal", "Diag[9] = +Inf (chain 2, entry 1)", &gibbsrt.Precision[float32]{Diag: func() []float32 {
			w := slices.Clone(good.Diag)
			w[9] = float32(math.Inf(1))
			return w
		}()}},
		{"a chain whose diagonal is negative", "chain 4's precision Q_c has diagonal entry", withScales(func(s []float32) { s[12] = -1e6 })},
		{"a chain whose diagonal is zero", "chain 0's precision Q_c has diagonal entry [0][0] = 0", &gibbsrt.Precision[float32]{Scales: make([]float32, chains)}},
	} {
		err := r.SetPrecision(c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetPrecision with %s: %v; want an error with %q", c.what, err, c.want)
		}
	}
	// The refusals kept the precision.
	got := slices.Clone(x0)
	if err := r.Sweep(got, 2, st); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sweep after refused SetPrecision calls differs from the sweep before them")
	}
	for _, c := range []struct {
		what, want string
		call       func() error
	}{
		{"Sweep of another chain count", "is for 6 chains; this call has 5", func() error { return r.Sweep(slices.Clone(x0[:5*d]), 1, st) }},
		{"SweepTrace", "a trace", func() error {
			_, err := r.SweepTrace(slices.Clone(x0), 1, st, gibbsrt.Trace{Thin: 1}, make([]float32, len(x0)))
			return err
		}},
		{"SweepMoments", "a trace", func() error {
			_, err := r.SweepMoments(slices.Clone(x0), 1, st, gibbsrt.Trace{Thin: 1})
			return err
		}},
		{"SweepChebyshev", "SweepChebyshev", func() error {
			return r.SweepChebyshev(slices.Clone(x0), slices.Clone(x0), 0, 1, st)
		}},
		{"DrawExact", "DrawExact", func() error { return r.DrawExact(slices.Clone(x0), st) }},
		{"SweepNoise", "SweepNoise", func() error { return r.SweepNoise(slices.Clone(x0), make([]float32, len(x0)), 1) }},
		{"a linear term of another chain count", "the linear term (SetLinear) is for 5 chains", func() error {
			if err := r.SetLinear(h[:5*d]); err != nil {
				return err
			}
			defer r.SetLinear(nil)
			return r.Sweep(slices.Clone(x0), 1, st)
		}},
		{"a scheme other than plain Gibbs", "the scheme", func() error {
			if err := r.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1}); err != nil {
				return err
			}
			defer r.SetScheme(gibbsrt.Plain)
			return r.Sweep(slices.Clone(x0), 1, st)
		}},
	} {
		err := c.call()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with a precision per chain: %v; want an error with %q", c.what, err, c.want)
		}
	}
	// A refused traced call leaves the state as it was, with a linear term
	// too (whose shifts must not touch it).
	if err := r.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	xs := slices.Clone(x0)
	if _, err := r.SweepMoments(xs, 2, st, gibbsrt.Trace{Thin: 1}); err == nil || !slices.Equal(xs, x0) {
		t.Errorf("SweepMoments with a precision and a linear term: %v, state changed %v; want an error and the state as it was", err, !slices.Equal(xs, x0))
	}
	if _, err := r.SweepTrace(xs, 2, st, gibbsrt.Trace{Thin: 1}, make([]float32, 2*len(xs))); err == nil || !slices.Equal(xs, x0) {
		t.Errorf("SweepTrace with a precision and a linear term: %v, state changed %v; want an error and the state as it was", err, !slices.Equal(xs, x0))
	}
	if err := r.SetLinear(nil); err != nil {
		t.Fatal(err)
	}
	// A chain whose state is not finite is named; the others are swept.
	nan := slices.Clone(x0)
	nan[3*d+1] = float32(math.NaN())
	if err := r.Sweep(nan, 2, st); err == nil || !strings.Contains(err.Error(), "chain 3's state is not finite") {
		t.Errorf("Sweep of a state with a NaN in chain 3: %v", err)
	}
	if !slices.Equal(nan[:3*d], want[:3*d]) || !slices.Equal(nan[4*d:], want[4*d:]) {
		t.Errorf("Sweep of a state with a NaN in chain 3 changed the other chains' results")
	}
	// nil clears: the plain sweeps again.
	if err := r.SetPrecision(nil); err != nil {
		t.Fatal(err)
	}
	plain := gibbsrt.NewReference[float32](d)
	if err := plain.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	a, b := slices.Clone(x0), slices.Clone(x0)
	if err := r.Sweep(a, 2, st); err != nil {
		t.Fatal(err)
	}
	if err := plain.Sweep(b, 2, st); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Errorf("Sweep after SetPrecision(nil) differs from a sampler that never had one")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.SetPrecision(good); !errors.Is(err, gibbsrt.ErrClosed) {
		t.Errorf("SetPrecision after Close: %v, want ErrClosed", err)
	}
}
