package gibbstest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbsimpl"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// gpuSpecialized checks the per-model kernel, where the package has one:
// bit for bit against the twin on banded and sparse models (the dense one
// runs in GPU's per-strategy subtests), with its plain sweeps' sums pushed
// and pulled (requirePulledSums), pulled by launch (requirePulledByLaunch), the cache, Auto's switch once the kernel
// is compiled, and the fallback when the driver cannot compile it.
func gpuSpecialized[T gibbsrt.Float](t *testing.T, h Harness[T], g *gibbsrt.Sampler[T]) {
	if !slices.Contains(g.Strategies(), gibbsrt.Specialized) {
		t.Skip("the package has no per-model kernel")
	}
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 17))
	st := gibbsrt.Stream{Seed: 0x5eed, Sweep: 1<<33 + 3, Chain: 1<<35 + 9}
	models := []Model{AR1(d, 0.6, NonzeroMean(d)), RandomSparse(d, 0.1, rng, NonzeroMean(d)), Lattice(d, 0.5, NonzeroMean(d))}
	for _, m := range models {
		t.Run(m.Name, func(t *testing.T) {
			if err := g.SetStrategy(gibbsrt.Specialized); err != nil {
				t.Fatal(err)
			}
			if err := g.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			sp := g.WaitSpecialization()
			if sp.State != gibbsrt.Ready {
				t.Fatalf("specialization %v: %v", sp.State, sp.Err)
			}
			if zeros := offDiagonalZeros(m); zeros > 0 && sp.Dropped == 0 {
				t.Errorf("none of the %d zero weights of %s dropped", zeros, m.Name)
			}
			t.Logf("%s: %d fmas kept, %d dropped; %d registers; JIT %v (total %v)", m.Name, sp.Kept, sp.Dropped, sp.Registers, sp.JIT, sp.Total)
			ref := h.reference(t, m)
			for _, chains := range []int{1, 129, 1000} {
				requireSameSweeps(t, "specialized kernel vs CPU", g.Sweep, ref, randomState[T](rng, chains, d), 7, st, d)
			}
			if hasExactModel(t, g) {
				requireExactModel(t, g, ref, st, d)
			}
			requirePulledSums(t, g, m, ref, rng, st)
			requirePulledByLaunch(t, g, m, ref, rng, st)
		})
	}

	t.Run("CacheAndAuto", func(t *testing.T) {
		if err := g.SetStrategy(gibbsrt.Auto); err != nil {
			t.Fatal(err)
		}
		a, b := models[0], models[1]
		for _, m := range []Model{a, b, a} {
			if err := g.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
		}
		sp := g.Specialization()
		if !sp.Cached || sp.State != gibbsrt.Ready {
			t.Errorf("setting a compiled model again: cached %v, state %v", sp.Cached, sp.State)
		}
		if got := g.Choose(1<<20, 100); got != gibbsrt.Specialized {
			t.Errorf("Auto chose %v for 2^20 chains with the model's kernel ready", got)
		}
		requireSameSweeps(t, "Auto after a cached SetModel vs CPU", g.Sweep, h.reference(t, a), randomState[T](rng, 4096, d), 3, st, d)
	})

	t.Run("Fallback", func(t *testing.T) {
		// PTX the driver rejects: Auto runs the rest, the state says why,
		// and asking for the strategy is an error.
		m := hooks(g).Module()
		m.PTX = bytes.ReplaceAll(m.PTX, []byte("\tret;"), []byte("\tret.bogus;"))
		if !bytes.Contains(m.PTX, []byte("ret.bogus")) {
			t.Fatal("the PTX has no ret to corrupt; update the test")
		}
		s, err := gibbsimpl.NewSampler[T](m, g.Device().Ordinal)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		model := models[1]
		if err := s.SetModel(model.Rows(), model.Mu); err != nil {
			t.Fatal(err)
		}
		sp := s.WaitSpecialization()
		if sp.State != gibbsrt.Failed || sp.Err == nil || !strings.Contains(sp.Err.Error(), "compile") {
			t.Fatalf("corrupt PTX: state %v, err %v", sp.State, sp.Err)
		}
		t.Logf("the driver's refusal, as reported: %v", sp.Err)
		if got := s.Choose(1<<20, 100); got == gibbsrt.Specialized {
			t.Error("Auto chose the kernel that failed to compile")
		}
		requireSameSweeps(t, "Auto after a failed JIT vs CPU", s.Sweep, h.reference(t, model), randomState[T](rng, 300, d), 3, st, d)
		if err := s.SetStrategy(gibbsrt.Specialized); err != nil {
			t.Fatal(err)
		}
		if err := s.Sweep(make([]T, d), 1, st); err == nil || !strings.Contains(err.Error(), "unavailable") {
			t.Errorf("Sweep with the failed strategy: %v", err)
		}
		if !hasExactModel(t, s) {
			return
		}
		// The exact-draw kernel of the same PTX fails too: named, it is an
		// error; the runtime's choice draws the twin's bits.
		if _, err := SetExactKernel(s, exactModel); err != nil {
			t.Fatal(err)
		}
		if err := s.DrawExact(make([]T, d), st); err == nil || !strings.Contains(err.Error(), "unavailable") {
			t.Errorf("DrawExact by the failed %s: %v", exactModel, err)
		}
		if sp := s.Specialization(); sp.ExactState != gibbsrt.Failed || sp.ExactErr == nil {
			t.Errorf("corrupt PTX: exact state %v, err %v", sp.ExactState, sp.ExactErr)
		}
		if _, err := SetExactKernel(s, ""); err != nil {
			t.Fatal(err)
		}
		want, got := make([]T, 300*d), make([]T, 300*d)
		if err := h.reference(t, model).DrawExact(want, st); err != nil {
			t.Fatal(err)
		}
		if err := s.DrawExact(got, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "exact draws after a failed JIT vs CPU", got, want, d)
	})
}

// exactModel is the per-model exact-draw kernel.
const exactModel = "gibbs_exact_model"

// hasExactModel reports whether g's package has the per-model exact-draw
// kernel (gibbsgen 0.16.0 on, with the Matrix strategy).
func hasExactModel[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T]) bool {
	t.Helper()
	have, err := SetExactKernel(g, "")
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(have, exactModel)
}

// requireExactModel draws exact samples of g's model with the per-model
// exact-draw kernel, named, and requires the twin's bits and the kernel
// reported ready.
func requireExactModel[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T], ref *gibbsrt.Reference[T], st gibbsrt.Stream, d int) {
	t.Helper()
	if _, err := SetExactKernel(g, exactModel); err != nil {
		t.Fatal(err)
	}
	defer SetExactKernel(g, "")
	for _, chains := range []int{1, 129, 4097} {
		want, got := make([]T, chains*d), make([]T, chains*d)
		if err := ref.DrawExact(want, st); err != nil {
			t.Fatal(err)
		}
		if err := g.DrawExact(got, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, fmt.Sprintf("%s B=%d vs CPU", exactModel, chains), got, want, d)
	}
	if sp := g.Specialization(); sp.ExactState != gibbsrt.Ready {
		t.Errorf("%s drew, but its state is %v (%v)", exactModel, sp.ExactState, sp.ExactErr)
	}
}

// offDiagonalZeros counts the zero entries of Q off its diagonal.
func offDiagonalZeros(m Model) int {
	n := 0
	for i, row := range m.Rows() {
		for j, v := range row {
			if i != j && v == 0 {
				n++
			}
		}
	}
	return n
}

// requirePulledSums sets m again with the per-model kernel's Pulled entry
// point compiled in place of its plain one (the hook; pushed sums are the
// default), and requires the twin's bits at one sweep a launch over more
// chains than a wave of the looping grid holds, and at seven.
func requirePulledSums[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T], m Model, ref *gibbsrt.Reference[T],
	rng *rand.Rand, st gibbsrt.Stream) {
	t.Helper()
	d := len(m.Mu)
	pulled := true
	hooks(g).SetPulledSums(&pulled)
	defer func() {
		hooks(g).SetPulledSums(nil)
		if err := g.SetModel(m.Rows(), m.Mu); err != nil {
			t.Error(err)
		}
	}()
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	sp := g.WaitSpecialization()
	if sp.State != gibbsrt.Ready || !sp.PulledSums {
		t.Fatalf("pulled sums: specialization %v (%v), pulled %v", sp.State, sp.Err, sp.PulledSums)
	}
	t.Logf("%s, pulled sums: %d registers; JIT %v", m.Name, sp.Registers, sp.JIT)
	for _, c := range []struct{ chains, sweeps int }{{1, 1}, {129, 7}, {1000, 7}, {300_007, 1}} {
		requireSameSweeps(t, fmt.Sprintf("pulled sums, B=%d sweeps=%d, GPU vs CPU", c.chains, c.sweeps), g.Sweep, ref,
			randomState[T](rng, c.chains, d), c.sweeps, st, d)
	}
}

// requirePulledByLaunch has the sampler pick pulled sums by a launch's
// sweeps (the hook; pushed sums in every launch are the default), waits for
// the Pulled entry point's build that the first short launch starts, and
// requires the twin's bits in launches of one sweep and of the most sweeps
// that pull (kernels.PulledSweeps), and of one more, which push.
func requirePulledByLaunch[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T], m Model, ref *gibbsrt.Reference[T],
	rng *rand.Rand, st gibbsrt.Stream) {
	t.Helper()
	d := len(m.Mu)
	hooks(g).SetPulledByLaunch(true)
	defer hooks(g).SetPulledByLaunch(false)
	if sp := g.WaitSpecialization(); sp.State != gibbsrt.Ready || sp.PulledSums {
		t.Fatalf("pulled by launch: specialization %v (%v), pulled in place %v", sp.State, sp.Err, sp.PulledSums)
	}
	requireSameSweeps(t, "pulled by launch, before its build, B=3 sweeps=1, GPU vs CPU", g.Sweep, ref,
		randomState[T](rng, 3, d), 1, st, d)
	sp := g.Specialization()
	for deadline := time.Now().Add(5 * time.Minute); sp.PulledState == gibbsrt.Compiling && time.Now().Before(deadline); sp = g.Specialization() {
		time.Sleep(10 * time.Millisecond)
	}
	if sp.PulledState != gibbsrt.Ready {
		t.Fatalf("pulled by launch: the Pulled entry point's build %v (%v) after a one-sweep launch", sp.PulledState, sp.PulledErr)
	}
	most := kernels.PulledSweeps(dtypeOf[T]())
	for _, c := range []struct{ chains, sweeps int }{{1, 1}, {300_007, 1}, {1000, most}, {1000, most + 1}} {
		requireSameSweeps(t, fmt.Sprintf("pulled by launch, B=%d sweeps=%d, GPU vs CPU", c.chains, c.sweeps), g.Sweep, ref,
			randomState[T](rng, c.chains, d), c.sweeps, st, d)
	}
}

// requireSameSweeps runs sweeps sweeps from x0 with sweep and with the twin
// ref, and requires the same bits.
func requireSameSweeps[T gibbsrt.Float](t *testing.T, what string, sweep func([]T, int, gibbsrt.Stream) error, ref *gibbsrt.Reference[T],
	x0 []T, sweeps int, st gibbsrt.Stream, dim int) {
	t.Helper()
	want := append([]T(nil), x0...)
	if err := ref.Sweep(want, sweeps, st); err != nil {
		t.Fatal(err)
	}
	got := append([]T(nil), x0...)
	if err := sweep(got, sweeps, st); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, what, got, want, dim)
}
