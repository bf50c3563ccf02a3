package gibbstest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// OpenGPU opens device 0 (or $GIBBSGEN_DEVICE), skipping the test when there
// is no driver library or no device.
func OpenGPU[T gibbsrt.Float](t testing.TB, h Harness[T]) *gibbsrt.Sampler[T] {
	t.Helper()
	dev := 0
	if s := os.Getenv("GIBBSGEN_DEVICE"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("GIBBSGEN_DEVICE=%q is not an integer", s)
		}
		dev = n
	}
	g, err := h.NewGPU(dev)
	if errors.Is(err, gibbsrt.ErrNoDriver) || errors.Is(err, gibbsrt.ErrNoDevice) {
		t.Skipf("GPU tests need a CUDA driver and device: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// strategies returns the strategies of the sequential form that g's
// package holds. Every one runs in the suites; a package generated without
// some tests what it has. Matrix, the matrix form's, has GPUMatrix.
func strategies[T gibbsrt.Float](g *gibbsrt.Sampler[T]) []gibbsrt.Strategy {
	return slices.DeleteFunc(g.Strategies(), func(s gibbsrt.Strategy) bool { return s == gibbsrt.Matrix })
}

// checkTrace runs SweepTrace of tr on the GPU and the twin from x0 and
// requires the same records and final states; it returns the final state.
func checkTrace[T gibbsrt.Float](t *testing.T, g, ref interface {
	SweepTrace(x []T, sweeps int, st gibbsrt.Stream, tr gibbsrt.Trace, out []T) (int, error)
}, tr gibbsrt.Trace, x0 []T, sweeps int, st gibbsrt.Stream, d int) []T {
	t.Helper()
	n := gibbsrt.Records(tr.Thin, st.Sweep, sweeps)
	want, wantOut := append([]T(nil), x0...), make([]T, n*tr.Chains*len(tr.Coords))
	if _, err := ref.SweepTrace(want, sweeps, st, tr, wantOut); err != nil {
		t.Fatal(err)
	}
	got, gotOut := append([]T(nil), x0...), make([]T, len(wantOut))
	if m, err := g.SweepTrace(got, sweeps, st, tr, gotOut); err != nil || m != n {
		t.Fatalf("SweepTrace: %d records, %v; want %d", m, err, n)
	}
	requireEqual(t, "traced records, GPU vs CPU", gotOut, wantOut, len(tr.Coords))
	requireEqual(t, "final state of a traced call, GPU vs CPU", got, want, d)
	return want
}

// GPU checks the kernels against the CPU twin. Every comparison is exact:
// both sides perform the same correctly rounded float32 operations in the
// same order on the same normals, so any differing bit is a bug.
func GPU[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 3))
	m := RandomSPD(d, 100, rng, NonzeroMean(d))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	ref := h.reference(t, m)
	// High words set in every counter field exercise the 64-bit paths.
	st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}

	e := gpuEnv[T]{g: g, ref: ref, rng: rng, st: st, d: d}
	t.Run("PhiloxKnownAnswers", e.philoxKnownAnswers)
	t.Run("Transform", e.transform)
	t.Run("Normals", e.normals)
	e.strategySweeps(t)
	e.strategyTraces(t)
	if err := e.g.SetStrategy(gibbsrt.Auto); err != nil {
		t.Fatal(err)
	}
	t.Run("SplitLaunches", e.splitLaunches)
	t.Run("NoiseInjection", e.noiseInjection)
	t.Run("KernelUsesItsNormals", e.kernelUsesItsNormals)
	t.Run("DeviceState", e.deviceState)
	t.Run("HostState", e.hostState)
	t.Run("Run", e.run)
	t.Run("NoOpsAndErrors", e.noOpsAndErrors)
	// Last: it sets other models and strategies.
	t.Run("Specialized", func(t *testing.T) { gpuSpecialized(t, h, e.g) })
}

// gpuEnv is what GPU's subtests share: the sampler, its twin on the same
// model, the stream and one rng, from which the subtests draw in turn (so
// they run in GPU's order).
type gpuEnv[T gibbsrt.Float] struct {
	g   *gibbsrt.Sampler[T]
	ref *gibbsrt.Reference[T]
	rng *rand.Rand
	st  gibbsrt.Stream
	d   int
}

// philoxKnownAnswers checks the device's Philox4x32-10 against Random123's
// known answers.
func (e gpuEnv[T]) philoxKnownAnswers(t *testing.T) {
	g := e.g
	ctr := [][4]uint32{{0, 0, 0, 0}, {^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}
	key := [][2]uint32{{0, 0}, {^uint32(0), ^uint32(0)}, {0xa4093822, 0x299f31d0}}
	want := [][4]uint32{{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}
	got, err := hooks(g).Philox(ctr, key)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("device Philox4x32-10(%08x, %08x) = %08x, want %08x", ctr[i], key[i], got[i], want[i])
		}
	}
}

// transform compares the device's normal transform with stream.Normal.
func (e gpuEnv[T]) transform(t *testing.T) {
	g := e.g
	// Both ends of the word range and the sign change; every word with
	// GIBBSGEN_NORMALS=full.
	if fullNormals() {
		CheckTransform(t, hooks(g), 0, 1<<32)
		t.Log("device transform equals stream.Normal on all 2^32 words")
		return
	}
	for _, first := range []uint32{0, 1<<31 - 1<<21, 1<<32 - 1<<21} {
		CheckTransform(t, hooks(g), first, 1<<22)
	}
}

// normals compares the device's normals with the stream the twin draws.
func (e gpuEnv[T]) normals(t *testing.T) {
	g, st, d := e.g, e.st, e.d
	const chains, sweeps = 1000, 3
	got, err := hooks(g).Normals(chains, sweeps, st)
	if err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "device normals", got, philoxNoise[T](d, chains, sweeps, st), d)
}

// strategySweeps compares each strategy's sweeps with the twin's, per batch
// and sweep count.
func (e gpuEnv[T]) strategySweeps(t *testing.T) {
	g, ref, rng, st, d := e.g, e.ref, e.rng, e.st, e.d
	for _, s := range strategies(g) {
		for _, chains := range twinBatches(d) {
			for _, sweeps := range []int{1, 7} {
				t.Run(fmt.Sprintf("%v/B=%d/sweeps=%d", s, chains, sweeps), func(t *testing.T) {
					if err := g.SetStrategy(s); err != nil {
						t.Fatal(err)
					}
					requireSameSweeps(t, fmt.Sprintf("GPU %v vs CPU", s), g.Sweep, ref, randomState[T](rng, chains, d), sweeps, st, d)
				})
			}
		}
		// Where a plain entry point's blocks loop over their groups
		// (kernels.Geometry.PlainLoops), its grid is the blocks that fit
		// at once: a batch of several such waves (at most 5 blocks of 128
		// threads a multiprocessor at these dims, 132 multiprocessors on
		// an H200) has every block sweep several groups.
		if d <= loopDim {
			const chains = 1<<18 + 3
			t.Run(fmt.Sprintf("%v/B=%d/sweeps=1", s, chains), func(t *testing.T) {
				if err := g.SetStrategy(s); err != nil {
					t.Fatal(err)
				}
				requireSameSweeps(t, fmt.Sprintf("GPU %v vs CPU", s), g.Sweep, ref, randomState[T](rng, chains, d), 1, st, d)
			})
		}
	}
}

// loopDim is the largest dim whose plain entry points may loop over their
// groups (float32 rows of 9 to 64 values).
const loopDim = 64

// strategyTraces compares each strategy's traces, host and device, and
// the device's moments with the twin's.
func (e gpuEnv[T]) strategyTraces(t *testing.T) {
	g, ref, rng, st, d := e.g, e.ref, e.rng, e.st, e.d
	for _, s := range strategies(g) {
		t.Run(fmt.Sprintf("%v/Trace", s), func(t *testing.T) {
			// Thin 3 from a sweep index that is not a multiple of it, a
			// range of chains and every other coordinate: records and final
			// state equal the twin's.
			if err := g.SetStrategy(s); err != nil {
				t.Fatal(err)
			}
			const sweeps = 10
			chains := cpuChains(300, d, 40)
			var coords []int
			for i := 0; i < d; i += 2 {
				coords = append(coords, i)
			}
			tr := gibbsrt.Trace{Thin: 3, FirstChain: chains / 17, Chains: chains * 2 / 3, Coords: coords}
			x0 := randomState[T](rng, chains, d)
			want := checkTrace(t, g, ref, tr, x0, sweeps, st, d)

			// Every chain and coordinate, every sweep, on device state.
			all := gibbsrt.Trace{Thin: 1}
			wantAll := make([]T, sweeps*chains*d)
			want = append(want[:0], x0...)
			if _, err := ref.SweepTrace(want, sweeps, st, all, wantAll); err != nil {
				t.Fatal(err)
			}
			ds, err := g.NewDeviceState(chains)
			if err != nil {
				t.Fatal(err)
			}
			defer ds.Free()
			dt, err := g.NewDeviceTrace(all, chains, sweeps)
			if err != nil {
				t.Fatal(err)
			}
			defer dt.Free()
			if err := ds.Upload(x0); err != nil {
				t.Fatal(err)
			}
			if err := g.SweepDeviceTrace(ds, sweeps, st, dt); err != nil {
				t.Fatal(err)
			}
			gotAll := make([]T, len(wantAll))
			if err := dt.Download(gotAll); err != nil {
				t.Fatal(err)
			}
			requireEqual(t, "device trace of every sweep, GPU vs CPU", gotAll, wantAll, d)
			gotM, err := g.TraceMoments(dt)
			if err != nil {
				t.Fatal(err)
			}
			wantM, err := gibbsrt.TraceMoments(wantAll, d)
			if err != nil {
				t.Fatal(err)
			}
			requireSameMoments(t, gotM, wantM)
			if err := g.SweepDeviceTrace(ds, sweeps+1, st, dt); err == nil {
				t.Error("a call with more records than the device trace holds succeeded")
			}
		})
	}
}

// splitLaunches checks that five one-sweep launches equal one launch of
// five.
func (e gpuEnv[T]) splitLaunches(t *testing.T) {
	g, rng, st, d := e.g, e.rng, e.st, e.d
	const chains = 300
	x0 := randomState[T](rng, chains, d)
	one := append([]T(nil), x0...)
	if err := g.Sweep(one, 5, st); err != nil {
		t.Fatal(err)
	}
	many := append([]T(nil), x0...)
	s := st
	for k := 0; k < 5; k++ {
		if err := g.Sweep(many, 1, s); err != nil {
			t.Fatal(err)
		}
		s.Sweep++
	}
	requireEqual(t, "5 launches of 1 sweep vs 1 launch of 5", many, one, d)
}

// noiseInjection compares SweepNoise with the twin's on the same normals.
func (e gpuEnv[T]) noiseInjection(t *testing.T) {
	g, ref, rng, d := e.g, e.ref, e.rng, e.d
	const sweeps = 3
	chains := cpuChains(4096, d, 64)
	x0 := randomState[T](rng, chains, d)
	noise := RandomState[T](rng, sweeps*d*chains, 1)
	want := append([]T(nil), x0...)
	if err := ref.SweepNoise(want, noise, sweeps); err != nil {
		t.Fatal(err)
	}
	got := append([]T(nil), x0...)
	if err := g.SweepNoise(got, noise, sweeps); err != nil {
		skipMissing(t, err)
		t.Fatal(err)
	}
	requireEqual(t, "GPU SweepNoise vs CPU", got, want, d)
}

// kernelUsesItsNormals feeds the device's own normals back through
// SweepNoise: the result must be the sweep's.
func (e gpuEnv[T]) kernelUsesItsNormals(t *testing.T) {
	g, rng, st, d := e.g, e.rng, e.st, e.d
	// The sampler's own draws, fed back through the noise entry point,
	// must reproduce its output.
	const chains, sweeps = 777, 2
	noise, err := hooks(g).Normals(chains, sweeps, st)
	if err != nil {
		t.Fatal(err)
	}
	x0 := randomState[T](rng, chains, d)
	a := append([]T(nil), x0...)
	if err := g.Sweep(a, sweeps, st); err != nil {
		t.Fatal(err)
	}
	b := append([]T(nil), x0...)
	if err := g.SweepNoise(b, noise, sweeps); err != nil {
		skipMissing(t, err)
		t.Fatal(err)
	}
	requireEqual(t, "Sweep vs SweepNoise(Normals)", b, a, d)
}

// deviceState checks sweeps on device-resident state, its partial
// downloads and its refusals.
func (e gpuEnv[T]) deviceState(t *testing.T) {
	g, ref, rng, st, d := e.g, e.ref, e.rng, e.st, e.d
	// Device-resident state: upload, sweeps in two calls, download;
	// equal to the twin, and a part of it equal to the same chains.
	chains := cpuChains(1000, d, 65)
	x0 := randomState[T](rng, chains, d)
	want := append([]T(nil), x0...)
	if err := ref.Sweep(want, 7, st); err != nil {
		t.Fatal(err)
	}
	ds := uploaded(t, g, x0)
	s := st
	for _, n := range []int{3, 4} {
		if err := g.SweepDevice(ds, n, s); err != nil {
			t.Fatal(err)
		}
		s.Sweep += uint64(n)
	}
	if err := g.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]T, chains*d)
	if err := ds.Download(got); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "SweepDevice vs CPU", got, want, d)
	part := make([]T, 10*d)
	if err := ds.DownloadChains(chains-10, part); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "last 10 chains", part, want[(chains-10)*d:], d)
	if err := ds.DownloadChains(chains-9, part); err == nil {
		t.Error("DownloadChains past the last chain succeeded")
	}
	if err := ds.Upload(got[:d]); err == nil {
		t.Errorf("Upload of one chain into a %d-chain state succeeded", chains)
	}
	if err := ds.Free(); err != nil {
		t.Fatal(err)
	}
	if err := ds.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
	if err := g.SweepDevice(ds, 1, st); err == nil {
		t.Error("SweepDevice on a freed state succeeded")
	}
}

// hostState checks sweeps on page-locked host state, whole and in part.
func (e gpuEnv[T]) hostState(t *testing.T) {
	g, ref, rng, st, d := e.g, e.ref, e.rng, e.st, e.d
	// Page-locked host state, swept in place: whole, and a range of
	// its chains (the stream then needs that range's Chain).
	const chains = 777
	h, err := g.NewHostState(chains)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Free()
	x0 := randomState[T](rng, chains, d)
	copy(h.X, x0)
	want := append([]T(nil), x0...)
	if err := ref.Sweep(want, 3, st); err != nil {
		t.Fatal(err)
	}
	if err := g.Sweep(h.X, 3, st); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "Sweep on a HostState vs CPU", h.X, want, d)
	sub := st
	sub.Chain += 100
	part := want[100*d : 300*d]
	if err := ref.Sweep(part, 2, sub); err != nil {
		t.Fatal(err)
	}
	if err := g.Sweep(h.X[100*d:300*d], 2, sub); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "Sweep on chains 100..299 of a HostState vs CPU", h.X, want, d)
	if err := h.Free(); err != nil {
		t.Fatal(err)
	}
	if h.X != nil {
		t.Error("X is not nil after Free")
	}
	if err := h.Free(); err != nil {
		t.Errorf("second Free: %v", err)
	}
}

// run checks Run's chunks, trace, device moments, progress and
// cancellation against the twin.
func (e gpuEnv[T]) run(t *testing.T) {
	g, ref, rng, st, d := e.g, e.ref, e.rng, e.st, e.d
	// Chunked run with a trace and device moments: the state equals the
	// twin's, the moments those of the twin's records (to float64
	// rounding: the chunks are reduced separately), and progress counts
	// every chunk. A cancelled run stops after whole chunks.
	const sweeps, chunk = 20, 6
	chains := cpuChains(500, d, 100)
	tr := gibbsrt.Trace{Thin: 2, FirstChain: chains / 10, Chains: chains * 4 / 5}
	x0 := randomState[T](rng, chains, d)
	want := append([]T(nil), x0...)
	recs := make([]T, gibbsrt.Records(2, st.Sweep, sweeps)*tr.Chains*d)
	if _, err := ref.SweepTrace(want, sweeps, st, tr, recs); err != nil {
		t.Fatal(err)
	}
	wantM, _ := mcstat.NewMoments(d)
	if err := addRows(wantM, recs); err != nil {
		t.Fatal(err)
	}
	ds, err := g.NewDeviceState(chains)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Free()
	dt, err := g.NewDeviceTrace(tr, chains, chunk/2+1)
	if err != nil {
		t.Fatal(err)
	}
	defer dt.Free()
	if err := ds.Upload(x0); err != nil {
		t.Fatal(err)
	}
	m, _ := mcstat.NewMoments(d)
	var reports []int
	done, err := g.Run(context.Background(), ds, sweeps, st, gibbsrt.RunOptions[T]{
		Chunk: chunk, Trace: dt, Moments: m, Progress: func(done, total gibbsrt.RunResult) { reports = append(reports, done.Sweeps) },
	})
	if err != nil || done != (gibbsrt.RunResult{Sweeps: sweeps}) {
		t.Fatalf("Run: %+v done, %v", done, err)
	}
	if fmt.Sprint(reports) != "[6 12 18 20]" {
		t.Errorf("progress reports %v, want [6 12 18 20]", reports)
	}
	got := make([]T, chains*d)
	if err := ds.Download(got); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "Run's state vs CPU", got, want, d)
	if m.Count() != wantM.Count() {
		t.Fatalf("moments of %v rows, want %v", m.Count(), wantM.Count())
	}
	gc, _ := m.Covariance()
	wc, _ := wantM.Covariance()
	for i := 0; i < d; i++ {
		if dm := math.Abs(m.Mean()[i] - wantM.Mean()[i]); dm > 1e-12*(1+math.Abs(wantM.Mean()[i])) {
			t.Errorf("mean[%d] = %v, want %v", i, m.Mean()[i], wantM.Mean()[i])
		}
		for j := 0; j < d; j++ {
			if dc := math.Abs(gc.At(i, j) - wc.At(i, j)); dc > 1e-9*math.Sqrt(wc.At(i, i)*wc.At(j, j)) {
				t.Errorf("covariance[%d][%d] = %v, want %v", i, j, gc.At(i, j), wc.At(i, j))
			}
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	if err := ds.Upload(x0); err != nil {
		t.Fatal(err)
	}
	done, err = g.Run(ctx, ds, sweeps, st, gibbsrt.RunOptions[T]{Chunk: chunk, Progress: func(_, _ gibbsrt.RunResult) { cancel() }})
	if !errors.Is(err, context.Canceled) || done != (gibbsrt.RunResult{Sweeps: chunk}) {
		t.Fatalf("cancelled Run: %+v, %v; want %d sweeps and context.Canceled", done, err, chunk)
	}
	want = append(want[:0], x0...)
	if err := ref.Sweep(want, chunk, st); err != nil {
		t.Fatal(err)
	}
	if err := ds.Download(got); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "cancelled Run's state vs CPU", got, want, d)
}

// noOpsAndErrors checks that empty calls do nothing and refused ones change
// nothing.
func (e gpuEnv[T]) noOpsAndErrors(t *testing.T) {
	g, rng, st, d := e.g, e.rng, e.st, e.d
	if err := g.Sweep(nil, 5, st); err != nil {
		t.Errorf("Sweep with no chains: %v", err)
	}
	x := randomState[T](rng, 3, d)
	x0 := append([]T(nil), x...)
	if err := g.Sweep(x, 0, st); err != nil {
		t.Errorf("Sweep with 0 sweeps: %v", err)
	}
	if err := g.Sweep(x, -1, st); err == nil {
		t.Error("Sweep with -1 sweeps succeeded")
	}
	if d > 1 { // every length is a whole number of 1-dimensional chains
		if err := g.Sweep(x[:len(x)-1], 1, st); err == nil {
			t.Error("Sweep with a ragged state succeeded")
		}
	}
	requireEqual(t, "state after no-ops and rejected calls", x, x0, d)
}

// GPUClose checks Close: idempotent, and every later call fails with
// ErrClosed. It opens its own sampler.
func GPUClose[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	m := AR1(h.Dim, 0.5, NonzeroMean(h.Dim))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := g.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	x := make([]T, h.Dim)
	for name, err := range map[string]error{
		"Sweep":      g.Sweep(x, 1, gibbsrt.Stream{}),
		"SweepNoise": g.SweepNoise(x, make([]T, h.Dim), 1),
		"SetModel":   g.SetModel(m.Rows(), m.Mu),
		"NewDeviceState": func() error {
			_, err := g.NewDeviceState(1)
			return err
		}(),
		"Synchronize": g.Synchronize(),
		// The rest of Chains, as the twin's (TestTwinClose).
		"SetScheme": g.SetScheme(gibbsrt.Plain),
		"Mixing":    func() error { _, err := g.Mixing(); return err }(),
		"Chebyshev": func() error { _, err := g.Chebyshev(); return err }(),
		"SweepTrace": func() error {
			_, err := g.SweepTrace(x, 1, gibbsrt.Stream{}, gibbsrt.Trace{Thin: 1}, make([]T, h.Dim))
			return err
		}(),
		"SweepMoments":   func() error { _, err := g.SweepMoments(x, 1, gibbsrt.Stream{}, gibbsrt.Trace{Thin: 1}); return err }(),
		"SweepChebyshev": g.SweepChebyshev(x, make([]T, h.Dim), 0, 1, gibbsrt.Stream{}),
		"DrawExact":      g.DrawExact(x, gibbsrt.Stream{}),
	} {
		if !errors.Is(err, gibbsrt.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}

// GPUDistribution runs the closed-form distribution checks on the GPU at a
// million chains per target, checks the GPU equals the CPU twin exactly
// after 1, 10 and 1000 sweeps on each target, and checks the device's
// normals with CheckNormals.
func GPUDistribution[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 5))
	for _, m := range targetsFor(d, rng) {
		t.Run(m.Name, func(t *testing.T) {
			if err := g.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			CheckDistribution(t, m, g.Sweep, gpuDistChains(d), rng)

			ref := h.reference(t, m)
			chains, drift := 64, driftSweeps
			if d > largeDim {
				chains, drift = 16, []int{1, 10, 100}
			}
			x := ExactDraws[T](m, chains, rng)
			y := append([]T(nil), x...)
			st := gibbsrt.Stream{Seed: rng.Uint64()}
			done := 0
			for _, target := range drift {
				n := target - done
				if err := g.Sweep(x, n, st); err != nil {
					t.Fatal(err)
				}
				if err := ref.Sweep(y, n, st); err != nil {
					t.Fatal(err)
				}
				st.Sweep += uint64(n)
				done = target
				requireEqual(t, fmt.Sprintf("GPU vs CPU after %d sweeps", target), x, y, d)
				t.Logf("after %4d sweeps: GPU and CPU states identical (max difference 0)", target)
			}
		})
	}
	t.Run("Normals", func(t *testing.T) {
		// The device's normals pass CheckNormals: 2^25 of them, or 2^30
		// with GIBBSGEN_NORMALS=full.
		sweeps, total := 4, 1<<25
		if fullNormals() {
			sweeps, total = 16, 1<<30
		}
		chains := total / (sweeps * d)
		z, err := hooks(g).Normals(chains, sweeps, gibbsrt.Stream{Seed: 77, Sweep: 1 << 20, Chain: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		CheckNormals(t, z, d, chains, sweeps)
		t.Logf("%d device normals (%d chains × %d sweeps × dim %d) pass CheckNormals", len(z), chains, sweeps, d)
	})
}

// GPULargeState runs one sweep per strategy on a device-resident state of
// more than 2^31 elements (about 8.6 GB), so that any 32-bit index would
// wrap, and checks chains at the start, around the 2^31-element boundary and
// at the end against the CPU twin, which reaches the same chains through
// Stream.Chain. Set GIBBSGEN_LARGE=1 to run it; it skips when the device
// lacks the memory.
func GPULargeState[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	if os.Getenv("GIBBSGEN_LARGE") == "" {
		t.Skip("set GIBBSGEN_LARGE=1 to sweep an 8.6 GB state")
	}
	g := OpenGPU(t, h)
	d := h.Dim
	chains := (1<<31)/d + 2 // chains·dim > 2^31
	m := AR1(d, 0.7, NonzeroMean(d))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	ref := h.reference(t, m)
	buf, err := g.NewDeviceState(chains)
	if err != nil {
		t.Skipf("cannot allocate %d chains on the device: %v", chains, err)
	}
	defer buf.Free()
	const start = 0.5 // not zero: zeros hide unwritten outputs
	boundary := (1 << 31) / d
	probes := []int{0, 1, boundary - 1, boundary, boundary + 1, chains - 2, chains - 1}
	st := gibbsrt.Stream{Seed: 2024, Sweep: 5}
	for _, s := range strategies(g) {
		t.Run(s.String(), func(t *testing.T) {
			if err := buf.Fill(start); err != nil {
				t.Fatal(err)
			}
			if err := g.SetStrategy(s); err != nil {
				t.Fatal(err)
			}
			if err := g.SweepDevice(buf, 1, st); err != nil {
				t.Fatal(err)
			}
			for _, c := range probes {
				got := make([]T, d)
				if err := buf.DownloadChains(c, got); err != nil {
					t.Fatal(err)
				}
				want := make([]T, d)
				for i := range want {
					want[i] = start
				}
				sub := st
				sub.Chain = uint64(c)
				if err := ref.Sweep(want, 1, sub); err != nil {
					t.Fatal(err)
				}
				requireEqual(t, fmt.Sprintf("chain %d of %d", c, chains), got, want, d)
			}
		})
	}
	if err := g.SetStrategy(gibbsrt.Auto); err != nil {
		t.Fatal(err)
	}
}

// requireSameMoments fails unless a and b agree bit for bit in count, mean
// and covariance: the device reduction and its CPU twin make the same
// float64 operations in the same order.
func requireSameMoments(t testing.TB, a, b *mcstat.Moments) {
	t.Helper()
	if a.Count() != b.Count() {
		t.Fatalf("moments of %v rows, want %v", a.Count(), b.Count())
	}
	ma, mb := a.Mean(), b.Mean()
	for i := range ma {
		if math.Float64bits(ma[i]) != math.Float64bits(mb[i]) {
			t.Fatalf("mean[%d] = %v, want %v", i, ma[i], mb[i])
		}
	}
	ca, errA := a.Covariance()
	cb, errB := b.Covariance()
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	for i := range ma {
		for j := range ma {
			if math.Float64bits(ca.At(i, j)) != math.Float64bits(cb.At(i, j)) {
				t.Fatalf("covariance[%d][%d] = %v, want %v", i, j, ca.At(i, j), cb.At(i, j))
			}
		}
	}
}

// skipMissing skips t if err says the package lacks the kernel the test
// needs (see gibbsrt.MissingKernelError).
func skipMissing(t *testing.T, err error) {
	var mk *gibbsrt.MissingKernelError
	if errors.As(err, &mk) {
		t.Skipf("the package has no %s: %v", mk.Kernel, err)
	}
}

// uploaded returns a new device state of g holding x, freed when t and
// its subtests end.
func uploaded[T gibbsrt.Float](t testing.TB, g *gibbsrt.Sampler[T], x []T) *gibbsrt.DeviceState[T] {
	t.Helper()
	ds, err := g.NewDeviceState(len(x) / g.Dim())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ds.Free() })
	if err := ds.Upload(x); err != nil {
		t.Fatal(err)
	}
	return ds
}
