package gibbstest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// OpenGPU opens device 0 (or $GIBBSGEN_DEVICE), skipping the test when there
// is no driver library or no device.
func OpenGPU(t testing.TB, h Harness) GPUSampler {
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

var strategies = []gibbsrt.Strategy{gibbsrt.ConstMemory, gibbsrt.SharedMemory, gibbsrt.WarpPerChain}

// GPU checks the kernels against the CPU twin. Every comparison is exact:
// both sides perform the same correctly rounded float32 operations in the
// same order on the same normals, so any differing bit is a bug.
func GPU(t *testing.T, h Harness) {
	g := OpenGPU(t, h)
	d := h.Dim
	rt := g.Runtime()
	rng := rand.New(rand.NewPCG(uint64(d), 3))
	m := RandomSPD(d, 100, rng, NonzeroMean(d))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	ref := h.reference(t, m)
	// High words set in every counter field exercise the 64-bit paths.
	st := gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}

	t.Run("PhiloxKnownAnswers", func(t *testing.T) {
		ctr := [][4]uint32{{0, 0, 0, 0}, {^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)}, {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}
		key := [][2]uint32{{0, 0}, {^uint32(0), ^uint32(0)}, {0xa4093822, 0x299f31d0}}
		want := [][4]uint32{{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}
		got, err := rt.Philox(ctr, key)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("device Philox4x32-10(%08x, %08x) = %08x, want %08x", ctr[i], key[i], got[i], want[i])
			}
		}
	})

	t.Run("Normals", func(t *testing.T) {
		const chains, sweeps = 1000, 3
		got, err := rt.Normals(chains, sweeps, st)
		if err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "device normals", got, philoxNoise(d, chains, sweeps, st), d)
	})

	for _, s := range strategies {
		for _, chains := range []int{1, 31, 127, 128, 129, 1000, 4097} {
			for _, sweeps := range []int{1, 7} {
				t.Run(fmt.Sprintf("%v/B=%d/sweeps=%d", s, chains, sweeps), func(t *testing.T) {
					if err := g.SetStrategy(s); err != nil {
						t.Fatal(err)
					}
					x0 := randomState(rng, chains, d)
					want := append([]float32(nil), x0...)
					if err := ref.Sweep(want, sweeps, st); err != nil {
						t.Fatal(err)
					}
					got := append([]float32(nil), x0...)
					if err := g.Sweep(got, sweeps, st); err != nil {
						t.Fatal(err)
					}
					requireEqual(t, fmt.Sprintf("GPU %v vs CPU", s), got, want, d)
				})
			}
		}
	}
	if err := g.SetStrategy(gibbsrt.Auto); err != nil {
		t.Fatal(err)
	}

	t.Run("SplitLaunches", func(t *testing.T) {
		const chains = 300
		x0 := randomState(rng, chains, d)
		one := append([]float32(nil), x0...)
		if err := g.Sweep(one, 5, st); err != nil {
			t.Fatal(err)
		}
		many := append([]float32(nil), x0...)
		s := st
		for k := 0; k < 5; k++ {
			if err := g.Sweep(many, 1, s); err != nil {
				t.Fatal(err)
			}
			s.Sweep++
		}
		requireEqual(t, "5 launches of 1 sweep vs 1 launch of 5", many, one, d)
	})

	t.Run("NoiseInjection", func(t *testing.T) {
		const chains, sweeps = 4096, 3
		x0 := randomState(rng, chains, d)
		noise := make([]float32, sweeps*d*chains)
		for i := range noise {
			noise[i] = float32(rng.NormFloat64())
		}
		want := append([]float32(nil), x0...)
		if err := ref.SweepNoise(want, noise, sweeps); err != nil {
			t.Fatal(err)
		}
		got := append([]float32(nil), x0...)
		if err := g.SweepNoise(got, noise, sweeps); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "GPU SweepNoise vs CPU", got, want, d)
	})

	t.Run("KernelUsesItsNormals", func(t *testing.T) {
		// The sampler's own draws, fed back through the noise entry point,
		// must reproduce its output.
		const chains, sweeps = 777, 2
		noise, err := rt.Normals(chains, sweeps, st)
		if err != nil {
			t.Fatal(err)
		}
		x0 := randomState(rng, chains, d)
		a := append([]float32(nil), x0...)
		if err := g.Sweep(a, sweeps, st); err != nil {
			t.Fatal(err)
		}
		b := append([]float32(nil), x0...)
		if err := g.SweepNoise(b, noise, sweeps); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "Sweep vs SweepNoise(Normals)", b, a, d)
	})

	t.Run("NoOpsAndErrors", func(t *testing.T) {
		if err := g.Sweep(nil, 5, st); err != nil {
			t.Errorf("Sweep with no chains: %v", err)
		}
		x := randomState(rng, 3, d)
		x0 := append([]float32(nil), x...)
		if err := g.Sweep(x, 0, st); err != nil {
			t.Errorf("Sweep with 0 sweeps: %v", err)
		}
		if err := g.Sweep(x, -1, st); err == nil {
			t.Error("Sweep with -1 sweeps succeeded")
		}
		if err := g.Sweep(x[:len(x)-1], 1, st); err == nil {
			t.Error("Sweep with a ragged state succeeded")
		}
		requireEqual(t, "state after no-ops and rejected calls", x, x0, d)
	})
}

// GPUClose checks Close: idempotent, and every later call fails with
// ErrClosed. It opens its own sampler.
func GPUClose(t *testing.T, h Harness) {
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
	x := make([]float32, h.Dim)
	for name, err := range map[string]error{
		"Sweep":      g.Sweep(x, 1, gibbsrt.Stream{}),
		"SweepNoise": g.SweepNoise(x, make([]float32, h.Dim), 1),
		"SetModel":   g.SetModel(m.Rows(), m.Mu),
	} {
		if !errors.Is(err, gibbsrt.ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}
