package gibbstest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbsimpl"
)

// GPUMulti checks gibbsrt.Multi against one sampler: host and device
// state split across samplers equal one sampler's bit for bit. With one
// GPU it opens the device several times (a context of its own each time),
// which exercises the split, the concurrency and the streams; with more it
// uses the first two.
func GPUMulti[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	d := h.Dim
	dev := g.Device().Ordinal
	rng := rand.New(rand.NewPCG(uint64(d), 31))
	m := AR1(d, 0.9, NonzeroMean(d))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	st := gibbsrt.Stream{Seed: 0x5eed, Sweep: 1 << 20, Chain: 1<<32 + 5}
	for _, devices := range [][]int{{dev}, {dev, dev}, {dev, dev, dev}} {
		mg, err := gibbsimpl.NewMulti[T](hooks(g).Module(), devices...)
		if err != nil {
			t.Fatal(err)
		}
		if err := mg.SetModel(m.Rows(), m.Mu); err != nil {
			t.Fatal(err)
		}
		for _, chains := range []int{1, 2, cpuChains(1001, d, 67)} {
			x0 := randomState[T](rng, chains, d)
			want := slices.Clone(x0)
			if err := g.Sweep(want, 3, st); err != nil {
				t.Fatal(err)
			}
			got := slices.Clone(x0)
			if err := mg.Sweep(got, 3, st); err != nil {
				t.Fatal(err)
			}
			requireEqual(t, "Multi.Sweep vs one sampler", got, want, d)

			ms, err := mg.NewState(chains)
			if err != nil {
				t.Fatal(err)
			}
			if err := ms.Upload(x0); err != nil {
				t.Fatal(err)
			}
			if err := mg.SweepDevice(ms, 2, st); err != nil {
				t.Fatal(err)
			}
			next := st
			next.Sweep += 2
			if err := mg.SweepDevice(ms, 1, next); err != nil {
				t.Fatal(err)
			}
			if err := ms.Download(got); err != nil {
				t.Fatal(err)
			}
			ms.Free()
			requireEqual(t, "Multi.SweepDevice vs one sampler", got, want, d)
		}
		multiTerms(t, g, mg, m, cpuChains(1001, d, 67), rng, st)
		if err := mg.Sweep(make([]T, d), -1, st); err == nil {
			t.Error("Multi.Sweep with -1 sweeps succeeded")
		}
		// An error names the device.
		if _, err := gibbsimpl.NewMulti[T](hooks(g).Module(), dev, 1<<20); err == nil || !strings.Contains(err.Error(), "device 1048576") {
			t.Errorf("NewMulti on device 1<<20: %v, want an error naming it", err)
		}
		if err := mg.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// multiTerms checks Multi's linear term per chain (host and device), its
// exact draws and its precision per chain against one sampler g, bit for
// bit, and that errors name the run's chain and counts. Parts the package
// lacks the kernels for are skipped.
func multiTerms[T gibbsrt.Float](t *testing.T, g *gibbsrt.Sampler[T], mg *gibbsrt.Multi[T], m Model, chains int, rng *rand.Rand, st gibbsrt.Stream) {
	t.Helper()
	d := g.Dim()
	type terms interface {
		SetLinear([]T) error
		SetPrecision(*gibbsrt.Precision[T]) error
	}
	both := func(what string, f func(terms) error) bool {
		t.Helper()
		for _, s := range []terms{g, mg} {
			if err := f(s); err != nil {
				var mk *gibbsrt.MissingKernelError
				if errors.As(err, &mk) {
					t.Logf("%s: %v", what, err)
					return false
				}
				t.Fatalf("%s: %v", what, err)
			}
		}
		return true
	}
	defer both("clearing the terms", func(s terms) error { return errors.Join(s.SetLinear(nil), s.SetPrecision(nil)) })
	h, _ := LinearTerms[T](m, chains, rng)
	if !both("SetLinear", func(s terms) error { return s.SetLinear(h) }) {
		return
	}
	want := make([]T, chains*d)
	if err := g.DrawExact(want, st); err == nil {
		got := randomState[T](rng, chains, d)
		if err := mg.DrawExact(got, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "Multi.DrawExact with a linear term vs one sampler", got, want, d)
		ms, err := mg.NewState(chains)
		if err != nil {
			t.Fatal(err)
		}
		defer ms.Free()
		if err := mg.DrawExactDevice(ms, st); err != nil {
			t.Fatal(err)
		}
		if err := ms.Download(got); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "Multi.DrawExactDevice with a linear term vs one sampler", got, want, d)
	} else if !errors.As(err, new(*gibbsrt.MissingKernelError)) {
		t.Fatal(err)
	}
	// The term from device state, then sweeps with it.
	h2, _ := LinearTerms[T](m, chains, rng)
	mh, err := mg.NewState(chains)
	if err != nil {
		t.Fatal(err)
	}
	defer mh.Free()
	if err := mh.Upload(h2); err != nil {
		t.Fatal(err)
	}
	if err := mg.SetLinearDevice(mh); err != nil {
		t.Fatal(err)
	}
	if err := g.SetLinear(h2); err != nil {
		t.Fatal(err)
	}
	x0 := randomState[T](rng, chains, d)
	sweepBoth := func(what string) {
		t.Helper()
		want, got := slices.Clone(x0), slices.Clone(x0)
		if err := g.Sweep(want, 3, st); err != nil {
			t.Fatal(err)
		}
		if err := mg.Sweep(got, 3, st); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, what, got, want, d)
	}
	sweepBoth("Multi.Sweep with a linear term (SetLinearDevice) vs one sampler")
	if err := mg.Sweep(make([]T, (chains-1)*d), 1, st); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("is for %d chains; this call has %d", chains, chains-1)) {
		t.Errorf("Multi.Sweep over %d chains with a linear term for %d: %v; want an error with both counts", chains-1, chains, err)
	}
	// A precision per chain: a diagonal each.
	w := make([]T, chains*d)
	for i := range w {
		w[i] = T(rng.Float64())
	}
	if !both("SetPrecision", func(s terms) error { return s.SetPrecision(&gibbsrt.Precision[T]{Diag: w}) }) {
		return
	}
	sweepBoth("Multi.Sweep with a linear term and a precision per chain vs one sampler")
	bad := chains - 2 // in the last shard
	w[bad*d+d/2] = -1e30
	if err := mg.SetPrecision(&gibbsrt.Precision[T]{Diag: w}); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("chain %d's precision", bad)) {
		t.Errorf("Multi.SetPrecision with chain %d's Q_c not positive definite: %v; want an error naming the chain", bad, err)
	}
}
