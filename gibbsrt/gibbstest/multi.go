package gibbstest

import (
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
