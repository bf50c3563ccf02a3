package gibbstest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The matrix form (gibbsrt.FormMatrix) has suites of its own: the other
// suites run the sequential form, whose strategies all give the same bits;
// the Matrix strategy gives the matrix form's.

// matrixSchemes are the schemes the matrix suites run, in the matrix form.
var matrixSchemes = []gibbsrt.Scheme{
	{Kind: gibbsrt.Forward, Omega: 1, Form: gibbsrt.FormMatrix},
	{Kind: gibbsrt.Forward, Omega: 1.5, Form: gibbsrt.FormMatrix},
	{Kind: gibbsrt.Backward, Omega: 0.7, Form: gibbsrt.FormMatrix},
	{Kind: gibbsrt.Symmetric, Omega: 1.2, Form: gibbsrt.FormMatrix},
}

// matrixTwin returns the CPU twin of m under sc.
func matrixTwin[T gibbsrt.Float](t testing.TB, m Model, sc gibbsrt.Scheme) *gibbsrt.Reference[T] {
	t.Helper()
	r := gibbsrt.NewReference[T](m.Q.SymmetricDim())
	if err := r.SetScheme(sc); err != nil {
		t.Fatal(err)
	}
	if err := r.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	return r
}

// Matrix checks the matrix form on the CPU twin against the closed forms:
// exact draws have the target's moments, and matrix-form sweeps from exact
// draws keep them, with the lag covariances of the sweep's operator.
func Matrix[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	rng := rand.New(rand.NewPCG(uint64(h.Dim), 11))
	for _, m := range targetsFor(h.Dim, rng) {
		t.Run(m.Name, func(t *testing.T) {
			r := matrixTwin[T](t, m, matrixSchemes[0])
			chains := cpuChains(4000, h.Dim, 256)
			checkExactDraws(t, m, r.DrawExact, chains, rng)
			CheckDistribution(t, m, r.Sweep, chains, rng)
		})
	}
}

// checkExactDraws checks the moments of draw's exact draws.
func checkExactDraws[T gibbsrt.Float](t TB, m Model, draw func(x []T, st gibbsrt.Stream) error, chains int, rng *rand.Rand) {
	t.Helper()
	x := make([]T, chains*m.Q.SymmetricDim())
	if err := draw(x, gibbsrt.Stream{Seed: rng.Uint64(), Sweep: 3}); err != nil {
		t.Fatal(err)
	}
	checkMoments(t, "exact draws", m, x, chains)
}

// GPUMatrix checks the Matrix strategy against the twin in the matrix form,
// bit for bit: every scheme, batch and sweep count, traces, device state,
// a launch a pass (the pass kernel), Chebyshev iterations and exact draws
// on host and device state; then the
// closed-form checks at a million chains (gpuDistChains). It skips in a
// package without the strategy.
func GPUMatrix[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	if !slices.Contains(g.Strategies(), gibbsrt.Matrix) {
		t.Skip("the package has no Matrix strategy")
	}
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 12))
	m := RandomSPD(d, 100, rng, NonzeroMean(d))
	st := gibbsrt.Stream{Seed: 0x0123456789abcdef, Sweep: 1<<40 + 3, Chain: 1<<33 + 9}
	setUp := func(t *testing.T, sc gibbsrt.Scheme, m Model) *gibbsrt.Reference[T] {
		t.Helper()
		if err := g.SetScheme(sc); err != nil {
			t.Fatal(err)
		}
		if err := g.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		return matrixTwin[T](t, m, sc)
	}
	for _, sc := range matrixSchemes {
		t.Run(sc.String(), func(t *testing.T) {
			ref := setUp(t, sc, m)
			for _, chains := range twinBatches(d) {
				for _, sweeps := range []int{1, 7} {
					requireSameSweeps(t, fmt.Sprintf("B=%d sweeps=%d: GPU vs CPU", chains, sweeps), g.Sweep, ref,
						randomState[T](rng, chains, d), sweeps, st, d)
				}
			}
			// A trace of a range of chains and coordinates, and the state
			// on the device.
			chains, sweeps := cpuChains(300, d, 40), 6
			coords := slices.Compact([]int{0, d / 2, d - 1})
			tr := gibbsrt.Trace{Thin: 2, FirstChain: chains / 7, Chains: chains / 2, Coords: coords}
			x0 := randomState[T](rng, chains, d)
			want := checkTrace[T](t, g, ref, tr, x0, sweeps, st, d)
			got := make([]T, len(want))
			ds := uploaded(t, g, x0)
			if err := g.SweepDevice(ds, sweeps, st); err != nil {
				t.Fatal(err)
			}
			if err := ds.Download(got); err != nil {
				t.Fatal(err)
			}
			requireEqual(t, "device state", got, want, d)
		})
	}
	t.Run("Passes", func(t *testing.T) {
		// A launch a pass (gibbs_matrix_pass, from dim 65): every scheme
		// at the twin's batches, one and two sweeps (an odd and an even
		// count of passes), on host and device state; and, in one
		// forward sweep, enough chains that each block loops over
		// several work items.
		if !hooks(g).SetMatrixPasses(true) {
			t.Skip("the package has no pass kernel")
		}
		defer hooks(g).SetMatrixPasses(false)
		for i, sc := range matrixSchemes {
			ref := setUp(t, sc, m)
			batches := twinBatches(d)
			if i == 0 {
				batches = append(batches, kernels.ExactLoopChains(d))
			}
			for _, chains := range batches {
				for _, sweeps := range []int{1, 2} {
					if sweeps == 2 && chains > 5000 {
						continue // the twin's time, not the kernel's paths
					}
					requireSameSweeps(t, fmt.Sprintf("%v, B=%d sweeps=%d: a launch a pass, GPU vs CPU", sc, chains, sweeps), g.Sweep, ref,
						randomState[T](rng, chains, d), sweeps, st, d)
				}
			}
			x0 := randomState[T](rng, 129, d)
			want := append([]T(nil), x0...)
			if err := ref.Sweep(want, 3, st); err != nil {
				t.Fatal(err)
			}
			ds := uploaded(t, g, x0)
			got := make([]T, len(want))
			if err := g.SweepDevice(ds, 3, st); err != nil {
				t.Fatal(err)
			}
			if err := ds.Download(got); err != nil {
				t.Fatal(err)
			}
			requireEqual(t, fmt.Sprintf("%v: a launch a pass on device state", sc), got, want, d)
		}
	})
	t.Run("Chebyshev", func(t *testing.T) {
		ref := setUp(t, matrixSchemes[3], m)
		chains := cpuChains(500, d, 40)
		x0, p0 := randomState[T](rng, chains, d), randomState[T](rng, chains, d)
		want, wantP := append([]T(nil), x0...), append([]T(nil), p0...)
		if err := ref.SweepChebyshev(want, wantP, 2, 5, st); err != nil {
			t.Fatal(err)
		}
		got, gotP := append([]T(nil), x0...), append([]T(nil), p0...)
		if err := g.SweepChebyshev(got, gotP, 2, 5, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "Chebyshev iterates", got, want, d)
		requireEqual(t, "Chebyshev previous iterates", gotP, wantP, d)
	})
	t.Run("Exact", func(t *testing.T) {
		ref := setUp(t, matrixSchemes[0], m)
		// Enough chains that the exact kernels' blocks each run several
		// work items, beside the twin's batches.
		batches := append(twinBatches(d), kernels.ExactLoopChains(d))
		wants := make(map[int][]T)
		// Each exact-draw kernel of the module, then the runtime's choice.
		have, err := SetExactKernel(g, "")
		if err != nil {
			t.Fatal(err)
		}
		defer SetExactKernel(g, "")
		for _, name := range append(have, "") {
			if _, err := SetExactKernel(g, name); err != nil {
				t.Fatal(err)
			}
			for _, chains := range batches {
				want, got := wants[chains], make([]T, chains*d)
				if want == nil {
					// The twin's draws, once a batch for every kernel.
					want = make([]T, chains*d)
					if err := ref.DrawExact(want, st); err != nil {
						t.Fatal(err)
					}
					wants[chains] = want
				}
				if err := g.DrawExact(got, st); err != nil {
					t.Fatal(err)
				}
				requireEqual(t, fmt.Sprintf("%s B=%d: exact draws, GPU vs CPU", name, chains), got, want, d)
				ds, err := g.NewDeviceState(chains)
				if err != nil {
					t.Fatal(err)
				}
				if err := g.DrawExactDevice(ds, st); err != nil {
					t.Fatal(err)
				}
				if err := ds.Download(got); err != nil {
					t.Fatal(err)
				}
				ds.Free()
				requireEqual(t, fmt.Sprintf("%s B=%d: exact draws on device state", name, chains), got, want, d)
			}
		}
	})
	t.Run("FormAndStrategy", func(t *testing.T) {
		// The matrix form runs on Matrix alone, and Matrix on it alone.
		setUp(t, matrixSchemes[0], m)
		x := randomState[T](rng, 3, d)
		for _, s := range g.Strategies() {
			if err := g.SetStrategy(s); err != nil {
				t.Fatal(err)
			}
			if err := g.Sweep(x, 1, st); (err == nil) != (s == gibbsrt.Matrix) {
				t.Errorf("strategy %v in the matrix form: Sweep returned %v", s, err)
			}
		}
		setUp(t, gibbsrt.Plain, m)
		if err := g.Sweep(x, 1, st); err == nil {
			t.Error("strategy matrix in the sequential form: Sweep succeeded")
		}
		if err := g.SetStrategy(gibbsrt.Auto); err != nil {
			t.Fatal(err)
		}
	})
	for _, tm := range targetsFor(d, rng) {
		t.Run("Distribution/"+tm.Name, func(t *testing.T) {
			setUp(t, matrixSchemes[0], tm)
			checkExactDraws(t, tm, g.DrawExact, gpuDistChains(d), rng)
			CheckDistribution(t, tm, g.Sweep, gpuDistChains(d), rng)
		})
	}
	if err := g.SetScheme(gibbsrt.Plain); err != nil {
		t.Fatal(err)
	}
}
