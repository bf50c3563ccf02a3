package gibbsrt_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// A precision per chain on the twin: every chain whitened by its own
// target after sweeps, in both dtypes.
func TestPrecisionDistribution(t *testing.T) {
	twinDistribution(t, 1, []int{1, 5, 13}, gibbstest.CheckPrecisionDistribution[float32], gibbstest.CheckPrecisionDistribution[float64])
}

// twinDistribution runs check32 and check64 on a twin with a random model
// at each dim, 4000 chains.
func twinDistribution(t *testing.T, seed uint64, dims []int,
	check32 func(gibbstest.TB, gibbstest.Model, gibbsrt.Chains[float32], int, *rand.Rand),
	check64 func(gibbstest.TB, gibbstest.Model, gibbsrt.Chains[float64], int, *rand.Rand)) {
	rng := rand.New(rand.NewPCG(33, seed))
	for _, d := range dims {
		m := gibbstest.RandomSPD(d, 100, rng, gibbstest.NonzeroMean(d))
		t.Run(fmt.Sprintf("dim=%d/float32", d), func(t *testing.T) {
			r := gibbsrt.NewReference[float32](d)
			if err := r.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			check32(t, m, r, 4000, rng)
		})
		t.Run(fmt.Sprintf("dim=%d/float64", d), func(t *testing.T) {
			r := gibbsrt.NewReference[float64](d)
			if err := r.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			check64(t, m, r, 4000, rng)
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

// oracleTwin is a twin of dim d with a random model (condition 1000), a
// precision and a linear term per chain for 200 chains set, and the
// generator after them.
func oracleTwin[T gibbsrt.Float](t *testing.T, d int, seed uint64) (*rand.Rand, gibbstest.Model, *gibbsrt.Reference[T], *gibbsrt.Precision[T], []T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(d), seed))
	m := gibbstest.RandomSPD(d, 1000, rng, gibbstest.NonzeroMean(d))
	p, h := gibbstest.Precisions[T](m, 200, rng)
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
	return rng, m, r, p, h
}

func conditionals[T gibbsrt.Float](t *testing.T, d int, eps float64) {
	rng, m, r, p, h := oracleTwin[T](t, d, 35)
	chains := len(p.Scales) / (1 + len(p.Members))
	x := gibbstest.RandomState[T](rng, chains*d, 5)
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
	x0 := gibbstest.RandomState[float32](rng, chains*d, 1)
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
		{"DrawExact with an indefinite Q_c", "chain 2's precision Q_c is not positive definite", func() error {
			if err := r.SetPrecision(gibbstest.Indefinite(m, good, chains, 2)); err != nil {
				return err
			}
			defer r.SetPrecision(good)
			return r.DrawExact(slices.Clone(x0), st)
		}},
		{"DrawExact above its dims", "draws dims up to 16 in float32", func() error {
			big := gibbstest.RandomSPD(17, 10, rng, gibbstest.NonzeroMean(17))
			r := gibbsrt.NewReference[float32](17)
			if err := r.SetModel(big.Rows(), big.Mu); err != nil {
				return err
			}
			if err := r.SetPrecision(&gibbsrt.Precision[float32]{Diag: make([]float32, 17)}); err != nil {
				return err
			}
			return r.DrawExact(make([]float32, 17), st)
		}},
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

// Exact draws with a precision per chain on the twin: every chain whitened
// by its own target after each of two draws, in both dtypes, at dims up
// to kernels.FamilyExactMaxDim's.
func TestExactPrecisionDistribution(t *testing.T) {
	twinDistribution(t, 2, []int{1, 5, 12}, gibbstest.CheckExactPrecisionDistribution[float32], gibbstest.CheckExactPrecisionDistribution[float64])
}

// Exact draws with a precision per chain against the same draw in float64
// from the same normals: x = L⁻ᵀ(L⁻¹b_c + z), L the float64 Cholesky
// factor of Q_c. A Cholesky solve in T is backward stable, (Q_c + ΔQ)x̂ =
// b_c with ‖ΔQ‖₂ ≤ d·γ_{3d+1}‖Q_c‖₂ (Higham, Accuracy and Stability, Thm
// 10.4, with ‖|L||Lᵀ|‖₂ ≤ d‖Q_c‖₂), so the mean's error is at most
// κ₂(Q_c)·d·γ_{3d+1}/(1 − that) of its norm, and the noise term L⁻ᵀz,
// solved with the computed factor, errs by the same factor of its norm;
// the rounding of Q_c's entries to T adds γ_k·‖Q_c‖ to ΔQ. The bound is
// the sum over both terms with γ_{3d+k+2}.
func TestExactPrecisionOracle(t *testing.T) {
	for _, d := range []int{1, 5, 12} {
		t.Run(fmt.Sprintf("dim=%d/float32", d), func(t *testing.T) { exactOracle[float32](t, d, 0x1p-24) })
		t.Run(fmt.Sprintf("dim=%d/float64", d), func(t *testing.T) { exactOracle[float64](t, d, 0x1p-53) })
	}
}

func exactOracle[T gibbsrt.Float](t *testing.T, d int, eps float64) {
	_, m, r, p, h := oracleTwin[T](t, d, 37)
	chains := len(p.Scales) / (1 + len(p.Members))
	x := make([]T, chains*d)
	st := gibbsrt.Stream{Seed: 78, Sweep: 6, Chain: 1 << 40}
	if err := r.DrawExact(x, st); err != nil {
		t.Fatal(err)
	}
	k := 1 + len(p.Members)
	n := float64(3*d + k + 2)
	gamma := n * eps / (1 - n*eps)
	worst := 0.0
	for c := range chains {
		q, mean := gibbstest.PrecisionTarget(m, p, h, c)
		var ch mat.Cholesky
		if !ch.Factorize(q) {
			t.Fatalf("chain %d: Q_c is not positive definite in float64", c)
		}
		var l mat.TriDense
		ch.LTo(&l)
		z := mat.NewVecDense(d, nil)
		for i := range d {
			g := stream.Normals4(st.Seed, st.Chain+uint64(c), st.Sweep, i/4)
			z.SetVec(i, float64(T(g[i%4])))
		}
		var w mat.VecDense // L⁻ᵀz
		if err := w.SolveVec(l.T(), z); err != nil {
			t.Fatal(err)
		}
		var eig mat.EigenSym
		if !eig.Factorize(q, false) {
			t.Fatal("no eigenvalues")
		}
		vals := eig.Values(nil)
		kappa := vals[len(vals)-1] / vals[0]
		rel := kappa * float64(d) * gamma
		bound := rel / (1 - rel) * (floats.Norm(mean, 2) + floats.Norm(w.RawVector().Data, 2))
		diff := 0.0
		for i := range d {
			e := float64(x[c*d+i]) - (mean[i] + w.AtVec(i))
			diff += e * e
		}
		diff = math.Sqrt(diff)
		if diff > bound {
			t.Fatalf("chain %d: the draw is %.3g from the float64 draw, above the bound %.3g (κ₂(Q_c) = %.3g)", c, diff, bound, kappa)
		}
		worst = max(worst, diff/bound)
	}
	t.Logf("largest error / bound: %.3g", worst)
}
