package gibbstest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// LinearTerms returns a linear term per chain for chains chains of m, and
// each chain's exact mean shift Σ·h_c in float64 (Σ = Q⁻¹, of the h_c
// rounded to T that a sampler is given): shifts of up to a few standard
// deviations, different for every chain, so that a chain run on another
// chain's term, or on none, is far off its target.
func LinearTerms[T gibbsrt.Float](m Model, chains int, rng *rand.Rand) (h []T, shifts []float64) {
	d := m.Q.SymmetricDim()
	h, shifts = make([]T, chains*d), make([]float64, chains*d)
	s, hc := make([]float64, d), make([]float64, d)
	for c := 0; c < chains; c++ {
		for i := range s {
			s[i] = 3 * math.Sqrt(m.Sigma.At(i, i)) * rng.NormFloat64()
		}
		for i := range hc { // h_c = Q·s, rounded to T
			v := 0.0
			for k := range s {
				v += m.Q.At(i, k) * s[k]
			}
			h[c*d+i] = T(v)
			hc[i] = float64(h[c*d+i])
		}
		for i := range hc { // the shift of the rounded h_c
			v := 0.0
			for k := range hc {
				v += m.Sigma.At(i, k) * hc[k]
			}
			shifts[c*d+i] = v
		}
	}
	return h, shifts
}

// centered returns x − shifts, chain by chain, in float64 rounded to T:
// with a linear term per chain, every chain of N(mu + shift_c, Σ) becomes
// one of N(mu, Σ), which the closed-form checks know.
func centered[T gibbsrt.Float](x []T, shifts []float64) []T {
	out := make([]T, len(x))
	for i, v := range x {
		out[i] = T(float64(v) - shifts[i])
	}
	return out
}

// Linear runs CheckLinearDistribution on the CPU twin (4000 chains up to
// dim 64; see cpuChains beyond).
func Linear[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	rng := rand.New(rand.NewPCG(uint64(h.Dim), 29))
	for _, m := range targetsFor(h.Dim, rng) {
		t.Run(m.Name, func(t *testing.T) {
			CheckLinearDistribution[T](t, m, h.reference(t, m), cpuChains(4000, h.Dim, 256), rng)
		})
	}
}

// CheckLinearDistribution gives every chain of c (a sampler with m set) its
// own linear term (LinearTerms), starts each from an exact draw of its own
// target N(mu + Σ·h_c, Σ), and checks the chains' mean and covariance
// around their own means against m's closed forms (CheckDistribution's
// bounds) after 2 and after 6 sweeps, and after an exact draw where c has
// exact draws. It clears the term at the end.
func CheckLinearDistribution[T gibbsrt.Float](t TB, m Model, c gibbsrt.Chains[T], chains int, rng *rand.Rand) {
	t.Helper()
	h, shifts := LinearTerms[T](m, chains, rng)
	if err := c.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	x := ExactDraws[T](m, chains, rng)
	for i := range x {
		x[i] = T(float64(x[i]) + shifts[i])
	}
	st := gibbsrt.Stream{Seed: rng.Uint64()}
	for _, n := range []int{2, 4} {
		if err := c.Sweep(x, n, st); err != nil {
			t.Fatal(err)
		}
		st.Sweep += uint64(n)
		checkMoments(t, fmt.Sprintf("with a linear term per chain, after %d sweeps", st.Sweep), m, centered(x, shifts), chains)
	}
	var mk *gibbsrt.MissingKernelError
	switch err := c.DrawExact(x, st); {
	case errors.As(err, &mk): // a package without the Matrix strategy
	case err != nil:
		t.Fatal(err)
	default:
		checkMoments(t, "with a linear term per chain, exact draws", m, centered(x, shifts), chains)
	}
	if err := c.SetLinear(nil); err != nil {
		t.Fatal(err)
	}
}

// GPULinear checks a linear term per chain on the GPU against the twin,
// bit for bit: every strategy's sweeps, the matrix form's schemes and every
// exact-draw kernel, SweepNoise, device state with SetLinearDevice, and
// through gibbsrt.Chains traces, moments, Chebyshev iterations and the
// errors (CompareChains with a term); then CheckLinearDistribution at a
// million chains. It skips without a GPU.
func GPULinear[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 30))
	m := RandomSPD(d, 100, rng, NonzeroMean(d))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	if err := g.SetLinear(make([]T, d)); err != nil {
		skipMissing(t, err)
		t.Fatal(err)
	}
	ref := h.reference(t, m)
	st := gibbsrt.Stream{Seed: 0x0badc0ffee, Sweep: 1<<40 + 5, Chain: 1<<33 + 1}
	both := func(t *testing.T, hs []T) {
		t.Helper()
		if err := g.SetLinear(hs); err != nil {
			t.Fatal(err)
		}
		if err := ref.SetLinear(hs); err != nil {
			t.Fatal(err)
		}
	}
	batches := twinBatches(d)
	for _, s := range strategies(g) {
		for _, chains := range []int{batches[0], batches[len(batches)/2], batches[len(batches)-1]} {
			t.Run(fmt.Sprintf("%v/B=%d", s, chains), func(t *testing.T) {
				hs, _ := LinearTerms[T](m, chains, rng)
				both(t, hs)
				if err := g.SetStrategy(s); err != nil {
					t.Fatal(err)
				}
				requireSameSweeps(t, fmt.Sprintf("GPU %v vs CPU with a linear term", s), g.Sweep, ref, randomState[T](rng, chains, d), 3, st, d)
			})
		}
	}
	if err := g.SetStrategy(gibbsrt.Auto); err != nil {
		t.Fatal(err)
	}
	chains := cpuChains(1000, d, 40)
	hs, _ := LinearTerms[T](m, chains, rng)
	if slices.Contains(g.Strategies(), gibbsrt.Matrix) {
		t.Run("MatrixForm", func(t *testing.T) {
			both(t, hs)
			for _, sc := range matrixSchemes {
				for _, c := range []interface{ SetScheme(gibbsrt.Scheme) error }{g, ref} {
					if err := c.SetScheme(sc); err != nil {
						t.Fatal(err)
					}
				}
				requireSameSweeps(t, fmt.Sprintf("%v with a linear term", sc), g.Sweep, ref, randomState[T](rng, chains, d), 3, st, d)
			}
			for _, c := range []interface{ SetScheme(gibbsrt.Scheme) error }{g, ref} {
				if err := c.SetScheme(gibbsrt.Plain); err != nil {
					t.Fatal(err)
				}
			}
		})
		t.Run("Exact", func(t *testing.T) {
			both(t, hs)
			have, err := SetExactKernel(g, "")
			if err != nil {
				t.Fatal(err)
			}
			want := make([]T, chains*d)
			if err := ref.DrawExact(want, st); err != nil {
				t.Fatal(err)
			}
			for _, k := range append(have, "") {
				if _, err := SetExactKernel(g, k); err != nil {
					t.Fatal(err)
				}
				got := randomState[T](rng, chains, d)
				if err := g.DrawExact(got, st); err != nil {
					t.Fatal(err)
				}
				requireEqual(t, fmt.Sprintf("exact draws (kernel %q) with a linear term", k), got, want, d)
			}
		})
	}
	t.Run("SweepNoise", func(t *testing.T) {
		both(t, hs)
		x0 := randomState[T](rng, chains, d)
		noise := philoxNoise[T](d, chains, 2, st)
		want, got := slices.Clone(x0), slices.Clone(x0)
		if err := ref.SweepNoise(want, noise, 2); err != nil {
			t.Fatal(err)
		}
		if err := g.SweepNoise(got, noise, 2); err != nil {
			skipMissing(t, err)
			t.Fatal(err)
		}
		requireEqual(t, "SweepNoise with a linear term", got, want, d)
	})
	t.Run("Fused", func(t *testing.T) { requireFusedShift(t, g, m, ref, rng, st) })
	t.Run("DeviceState", func(t *testing.T) { gpuLinearDevice(t, g, ref, hs, st, d, rng) })
	t.Run("Distribution", func(t *testing.T) {
		if err := g.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		CheckLinearDistribution[T](t, m, g, gpuDistChains(d), rng)
	})
	// Last: it closes g.
	t.Run("Chains", func(t *testing.T) {
		if err := compareChains(g, h.NewReference(), m, chains, 31, hs); err != nil {
			t.Fatalf("Sampler vs Reference through Chains with a linear term: %v", err)
		}
	})
}

// gpuLinearDevice checks SetLinearDevice and SweepDevice against the
// twin's SetLinear and Sweep, and that a NaN in device h is refused with
// the chain named and the term kept.
func gpuLinearDevice[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T], ref *gibbsrt.Reference[T], hs []T, st gibbsrt.Stream, d int, rng *rand.Rand) {
	chains := len(hs) / d
	dh := uploaded(t, g, hs)
	if err := g.SetLinearDevice(dh); err != nil {
		t.Fatal(err)
	}
	if err := ref.SetLinear(hs); err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(hs)
	bad[(chains/2)*d+d-1] = T(math.NaN())
	db := uploaded(t, g, bad)
	err := g.SetLinearDevice(db)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("chain %d's", chains/2)) {
		t.Errorf("SetLinearDevice with a NaN in chain %d: %v; want an error naming the chain", chains/2, err)
	}
	x0 := randomState[T](rng, chains, d)
	want := slices.Clone(x0)
	if err := ref.Sweep(want, 4, st); err != nil {
		t.Fatal(err)
	}
	ds := uploaded(t, g, x0)
	if err := g.SweepDevice(ds, 4, st); err != nil { // the term from before the refusal
		t.Fatal(err)
	}
	got := make([]T, len(x0))
	if err := ds.Download(got); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "SweepDevice after SetLinearDevice", got, want, d)
}

// requireFusedShift runs the per-model kernel with a linear term through
// its entry point that subtracts and adds the shifts itself (the hook; the
// shifts' own passes are the default), and requires the twin's bits at one
// sweep a launch over more chains than a wave of the looping grid holds,
// and at seven; then the same of the per-model exact-draw kernel's entry
// point that adds them, where the package has it.
func requireFusedShift[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T], m Model, ref *gibbsrt.Reference[T],
	rng *rand.Rand, st gibbsrt.Stream) {
	if !slices.Contains(g.Strategies(), gibbsrt.Specialized) {
		t.Skip("the package has no per-model kernel")
	}
	d := len(m.Mu)
	hooks(g).SetFusedShift(true)
	defer hooks(g).SetFusedShift(false)
	if err := g.SetStrategy(gibbsrt.Specialized); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := g.SetStrategy(gibbsrt.Auto); err != nil {
			t.Error(err)
		}
	}()
	for _, c := range []struct{ chains, sweeps int }{{1, 1}, {129, 7}, {1000, 7}, {300_007, 1}} {
		hs, _ := LinearTerms[T](m, c.chains, rng)
		for _, s := range []interface{ SetLinear([]T) error }{g, ref} {
			if err := s.SetLinear(hs); err != nil {
				t.Fatal(err)
			}
		}
		requireSameSweeps(t, fmt.Sprintf("fused shifts, B=%d sweeps=%d, GPU vs CPU", c.chains, c.sweeps), g.Sweep, ref,
			randomState[T](rng, c.chains, d), c.sweeps, st, d)
	}
	if sp := g.Specialization(); sp.ShiftedState != gibbsrt.Ready {
		t.Fatalf("fused shifts: the Shifted entry point is %v (%v); the sweeps above did not run it", sp.ShiftedState, sp.ShiftedErr)
	}
	// Exact draws by the per-model exact-draw kernel, the shifts added in
	// its launch, over the last term's chains.
	have, err := SetExactKernel(g, "")
	if err != nil {
		t.Fatal(err)
	}
	const model = "gibbs_exact_model"
	if !slices.Contains(have, model) {
		return
	}
	if _, err := SetExactKernel(g, model); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := SetExactKernel(g, ""); err != nil {
			t.Error(err)
		}
	}()
	chains := 300_007
	want := make([]T, chains*d)
	if err := ref.DrawExact(want, st); err != nil {
		t.Fatal(err)
	}
	got := randomState[T](rng, chains, d)
	if err := g.DrawExact(got, st); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "exact draws with the shifts fused, GPU vs CPU", got, want, d)
	if sp := g.Specialization(); sp.ExactShiftedState != gibbsrt.Ready {
		t.Fatalf("fused shifts: the exact-draw kernel's Shifted entry point is %v (%v); the draw above did not run it",
			sp.ExactShiftedState, sp.ExactShiftedErr)
	}
}
