package gibbstest

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// Harness connects a generated package to the suites: its Dim, and its
// NewReference, New and Open, whose samplers are gibbsrt's own types.
type Harness[T gibbsrt.Float] struct {
	Dim          int
	NewReference func() *gibbsrt.Reference[T]
	NewGPU       func(device int) (*gibbsrt.Sampler[T], error)
	// Open is the package's Open; nil in a package generated before it.
	Open func() (gibbsrt.Chains[T], gibbsrt.Choice, error)
}

func (h Harness[T]) reference(t testing.TB, m Model) *gibbsrt.Reference[T] {
	t.Helper()
	r := h.NewReference()
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatalf("SetModel(%s): %v", m.Name, err)
	}
	return r
}

// randomState returns chains×dim values in about [-4, 4], never all zero.
func randomState[T gibbsrt.Float](rng *rand.Rand, chains, dim int) []T {
	x := RandomState[T](rng, chains*dim, 4)
	return x
}

// bitsOf returns v's IEEE-754 bit pattern.
func bitsOf[T gibbsrt.Float](v T) uint64 {
	if f, ok := any(v).(float32); ok {
		return uint64(math.Float32bits(f))
	}
	return math.Float64bits(float64(v))
}

// addRows accumulates x's rows into m.
func addRows[T gibbsrt.Float](m *mcstat.Moments, x []T) error {
	switch v := any(x).(type) {
	case []float32:
		return m.AddRows(v)
	default:
		return m.AddRows64(any(x).([]float64))
	}
}

// equalBits reports the first index where a and b differ in bits, or -1.
func equalBits[T gibbsrt.Float](a, b []T) int {
	if len(a) != len(b) {
		return 0
	}
	for i := range a {
		if bitsOf(a[i]) != bitsOf(b[i]) {
			return i
		}
	}
	return -1
}

// requireEqual fails with a summary when got and want differ in any bit.
// The bound is zero by construction: both sides perform the same sequence
// of correctly rounded operations (see gibbsrt/reference.go).
func requireEqual[T gibbsrt.Float](t testing.TB, what string, got, want []T, dim int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	first := equalBits(got, want)
	if first < 0 {
		return
	}
	n, worst := 0, 0.0
	for i := range got {
		if bitsOf(got[i]) != bitsOf(want[i]) {
			n++
			worst = math.Max(worst, math.Abs(float64(got[i])-float64(want[i])))
		}
	}
	t.Fatalf("%s: %d of %d values differ; first at chain %d coordinate %d: got %v (%08x), want %v (%08x); largest difference %g",
		what, n, len(got), first/dim, first%dim, got[first], bitsOf(got[first]), want[first], bitsOf(want[first]), worst)
}

// Reference checks the CPU twin: the stream splits across calls and chains,
// no-ops, argument errors, the noise layout, and the update formula.
func Reference[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 1))
	m := RandomSPD(d, 50, rng, NonzeroMean(d))
	r := h.reference(t, m)
	const chains = 7
	x0 := randomState[T](rng, chains, d)
	st := gibbsrt.Stream{Seed: 0x0123456789abcdef, Sweep: 1<<32 + 3, Chain: 1<<32 - 2}

	whole := append([]T(nil), x0...)
	if err := r.Sweep(whole, 6, st); err != nil {
		t.Fatal(err)
	}

	t.Run("Deterministic", func(t *testing.T) {
		again := append([]T(nil), x0...)
		if err := r.Sweep(again, 6, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "second run", again, whole, d)
	})
	t.Run("SplitSweeps", func(t *testing.T) {
		x := append([]T(nil), x0...)
		for _, n := range []int{1, 2, 3} {
			if err := r.Sweep(x, n, st); err != nil {
				t.Fatal(err)
			}
			st.Sweep += uint64(n)
		}
		st.Sweep -= 6
		requireEqual(t, "1+2+3 sweeps", x, whole, d)
	})
	t.Run("SplitChains", func(t *testing.T) {
		x := append([]T(nil), x0[3*d:]...)
		sub := st
		sub.Chain += 3
		if err := r.Sweep(x, 6, sub); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "chains 3.. with Chain+3", x, whole[3*d:], d)
	})
	t.Run("SeedMatters", func(t *testing.T) {
		x := append([]T(nil), x0...)
		other := st
		other.Seed++
		if err := r.Sweep(x, 6, other); err != nil {
			t.Fatal(err)
		}
		if equalBits(x, whole) < 0 {
			t.Fatal("a different seed gave the same states")
		}
	})
	t.Run("NoOps", func(t *testing.T) {
		if err := r.Sweep(nil, 3, st); err != nil {
			t.Fatalf("Sweep with no chains: %v", err)
		}
		x := append([]T(nil), x0...)
		if err := r.Sweep(x, 0, st); err != nil {
			t.Fatalf("Sweep with 0 sweeps: %v", err)
		}
		requireEqual(t, "0 sweeps", x, x0, d)
	})
	t.Run("BadArguments", func(t *testing.T) {
		x := append([]T(nil), x0...)
		type badCall struct {
			name string
			err  error
			want string
		}
		calls := []badCall{
			{"negative sweeps", r.Sweep(x, -1, st), "sweeps = -1"},
			{"sweep counter overflow", r.Sweep(x, 2, gibbsrt.Stream{Sweep: gibbsrt.MaxSweepIndex - 1}), "48-bit"},
			{"short noise", r.SweepNoise(x, make([]T, 1), 1), "noise has 1 elements"},
		}
		if d > 1 { // every length is a whole number of 1-dimensional chains
			calls = append(calls, badCall{"ragged state", r.Sweep(make([]T, d+1), 1, st), "not a multiple of dim"})
		}
		for _, c := range calls {
			if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
				t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
			}
		}
		requireEqual(t, "state after rejected calls", x, x0, d)
		if err := h.NewReference().Sweep(x, 1, st); err == nil {
			t.Error("Sweep before SetModel succeeded")
		}
	})
	t.Run("NoiseLayout", func(t *testing.T) {
		// Feeding the Philox normals through SweepNoise must reproduce Sweep.
		const sweeps = 3
		noise := philoxNoise[T](d, chains, sweeps, st)
		x := append([]T(nil), x0...)
		if err := r.SweepNoise(x, noise, sweeps); err != nil {
			t.Fatal(err)
		}
		y := append([]T(nil), x0...)
		if err := r.Sweep(y, sweeps, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "SweepNoise(Philox normals)", x, y, d)
	})
	t.Run("UpdateFormula", func(t *testing.T) {
		checkUpdateFormula(t, h, m, rng, 64)
		zero := m
		zero.Mu = make([]float64, d)
		checkUpdateFormula(t, h, zero, rng, 64)
	})
}

// philoxNoise lays out the stream's normals as SweepNoise expects.
func philoxNoise[T gibbsrt.Float](dim, chains, sweeps int, st gibbsrt.Stream) []T {
	noise := make([]T, sweeps*dim*chains)
	for k := 0; k < sweeps; k++ {
		for c := 0; c < chains; c++ {
			for g := 0; 4*g < dim; g++ {
				z := stream.Normals4(st.Seed, st.Chain+uint64(c), st.Sweep+uint64(k), g)
				for e := 0; e < 4 && 4*g+e < dim; e++ {
					noise[(k*dim+4*g+e)*chains+c] = T(z[e])
				}
			}
		}
	}
	return noise
}

// checkUpdateFormula runs one sweep with known noise and compares every
// coordinate with the conditional-mean formula evaluated in float64,
//
//	x_i ← mu_i − (1/Q_ii) Σ_{j≠i} Q_ij (x_j − mu_j) + z_i/√Q_ii,
//
// using the sampler's own new values for j < i and old values for j > i.
// The float32 evaluation performs at most dim+2 rounded operations on
// terms whose magnitudes sum to S_i, and its tables are each rounded once,
// so |error| ≤ γ·S_i with γ = (dim+4)·2^-24 (Higham's γ_n bound, with n
// rounding steps, to first order).
func checkUpdateFormula[T gibbsrt.Float](t *testing.T, h Harness[T], m Model, rng *rand.Rand, chains int) {
	t.Helper()
	d := h.Dim
	q := m.Rows()
	r := h.reference(t, m)
	x0 := randomState[T](rng, chains, d)
	noise := RandomState[T](rng, d*chains, 1)
	x := append([]T(nil), x0...)
	if err := r.SweepNoise(x, noise, 1); err != nil {
		t.Fatal(err)
	}
	gamma := float64(d+4) * 0x1p-24
	for c := 0; c < chains; c++ {
		old, cur := x0[c*d:(c+1)*d], x[c*d:(c+1)*d]
		for i := 0; i < d; i++ {
			want := m.Mu[i]
			sum := math.Abs(m.Mu[i])
			for j := 0; j < d; j++ {
				if j == i {
					continue
				}
				xj := float64(old[j])
				if j < i {
					xj = float64(cur[j])
				}
				want -= q[i][j] / q[i][i] * (xj - m.Mu[j])
				sum += math.Abs(q[i][j]/q[i][i]) * (math.Abs(xj) + math.Abs(m.Mu[j]))
			}
			zs := float64(noise[i*chains+c]) / math.Sqrt(q[i][i])
			want += zs
			sum += math.Abs(zs)
			if diff := math.Abs(float64(cur[i]) - want); diff > gamma*sum {
				t.Fatalf("%s: chain %d coordinate %d: got %v, formula gives %v (difference %g > bound %g)", m.Name, c, i, cur[i], want, diff, gamma*sum)
			}
		}
	}
}

// ModelValidation checks that SetModel rejects each kind of bad model with
// an error naming what failed, and accepts a good one.
func ModelValidation[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	d := h.Dim
	good := AR1(d, 0.5, NonzeroMean(d))
	copyQ := func() [][]float64 { return good.Rows() }
	cases := []struct {
		name string
		Q    [][]float64
		mu   []float64
		want string
	}{
		{"too few rows", copyQ()[:d-1], good.Mu, "rows, want"},
		{"short row", func() [][]float64 { q := copyQ(); q[d-1] = q[d-1][:d-1]; return q }(), good.Mu, "row " + strconv.Itoa(d-1)},
		{"short mu", copyQ(), good.Mu[:d-1], "mu has"},
		{"NaN entry", func() [][]float64 { q := copyQ(); q[0][d-1] = math.NaN(); return q }(), good.Mu, "Q[0][" + strconv.Itoa(d-1) + "] is NaN"},
		{"Inf diagonal", func() [][]float64 { q := copyQ(); q[d-1][d-1] = math.Inf(1); return q }(), good.Mu, "is +Inf"},
		{"NaN mean", copyQ(), func() []float64 { mu := append([]float64(nil), good.Mu...); mu[d-1] = math.NaN(); return mu }(), "mu[" + strconv.Itoa(d-1) + "] is NaN"},
		{"zero diagonal", func() [][]float64 { q := copyQ(); q[d-1][d-1] = 0; return q }(), good.Mu, "diagonal must be positive"},
		{"negative diagonal", func() [][]float64 { q := copyQ(); q[0][0] = -1; return q }(), good.Mu, "Q[0][0] = -1"},
	}
	if d > 1 {
		cases = append(cases,
			struct {
				name string
				Q    [][]float64
				mu   []float64
				want string
			}{"not symmetric", func() [][]float64 { q := copyQ(); q[0][1] += 0.01; return q }(), good.Mu, "not symmetric: Q[0][1]"},
			struct {
				name string
				Q    [][]float64
				mu   []float64
				want string
			}{"not positive definite", func() [][]float64 {
				q := copyQ()
				q[0][1], q[1][0] = 5, 5 // |Q01| > sqrt(Q00 Q11)
				return q
			}(), good.Mu, "not positive definite"},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := h.NewReference().SetModel(c.Q, c.mu)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("SetModel error %v, want one containing %q", err, c.want)
			}
			var me *gibbsrt.ModelError
			if !errors.As(err, &me) {
				t.Fatalf("error %T is not a *gibbsrt.ModelError", err)
			}
		})
	}
	t.Run("accepts a valid model", func(t *testing.T) {
		if err := h.NewReference().SetModel(good.Rows(), good.Mu); err != nil {
			t.Fatal(err)
		}
	})
}
