package main

// The correctness check: before a dim is timed, every kernel's state after
// a few sweeps must equal gibbsrt.Reference, the CPU twin, bit for bit;
// timings of a wrong kernel mean nothing.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// checkStream exercises the high words of every counter field, as the
// generated packages' GPU tests do.
var checkStream = gibbsrt.Stream{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}

// Check is one comparison of a kernel's results with gibbsrt.Reference.
type Check struct {
	Dim        int    `json:"dim"`
	Kernel     string `json:"kernel"`
	Chains     int    `json:"chains"`
	Sweeps     int    `json:"sweeps"`
	Pass       bool   `json:"pass"`
	Mismatches int    `json:"mismatches"`
	First      string `json:"first_mismatch,omitempty"`
}

// randomStart returns chains draws of mu + diag(Σ)^½ · N(0, I): a random
// start in the target's range (not the zeros of a fresh buffer).
func randomStart[T gibbsrt.Float](m gibbstest.Model, chains int, rng *rand.Rand) []T {
	dim := len(m.Mu)
	sd := make([]float64, dim)
	for i := range sd {
		sd[i] = math.Sqrt(m.Sigma.At(i, i))
	}
	x := make([]T, chains*dim)
	for c := 0; c < chains; c++ {
		for i := 0; i < dim; i++ {
			x[c*dim+i] = T(m.Mu[i] + sd[i]*rng.NormFloat64())
		}
	}
	return x
}

// check runs the generic kernel and every strategy of the dim's package on
// a small batch and compares the states with gibbsrt.Reference bit for bit.
// The generic kernel runs on a buffer of the bench's context, the sampler on
// a DeviceState; both start from the same uploaded values.
func (b *bench) check(d *dimRun) error {
	dim, chains, sweeps := d.e.dim, b.opt.checkChains, b.opt.checkSweeps
	rng := rand.New(rand.NewPCG(uint64(dim), 7))
	x0 := randomStart[float32](d.model, chains, rng)
	want, err := referenceSweep(dim, d.rows, d.model.Mu, x0, sweeps, gibbsrt.FormSequential)
	if err != nil {
		return err
	}
	wantMatrix, err := referenceSweep(dim, d.rows, d.model.Mu, x0, sweeps, gibbsrt.FormMatrix)
	if err != nil {
		return err
	}
	xd, err := b.upload(x0)
	if err != nil {
		return err
	}
	defer b.ctx.Free(xd)
	ds, err := d.s.NewDeviceState(chains)
	if err != nil {
		return err
	}
	defer ds.Free()

	// sweep runs k on x0 and downloads its state into got.
	got := make([]float32, len(x0))
	sweep := func(k kernel) error {
		if k.generic {
			if err := b.copyTo(xd, x0); err != nil {
				return err
			}
			if err := b.launchGeneric(d, xd, chains, sweeps, checkStream); err != nil {
				return err
			}
			if err := b.ctx.Synchronize(); err != nil {
				return err
			}
			return b.download(got, xd)
		}
		if err := ds.Upload(x0); err != nil {
			return err
		}
		if err := setStrategy(d.s, k.strategy); err != nil {
			return err
		}
		if err := d.s.SweepDevice(ds, sweeps, checkStream); err != nil {
			return err
		}
		if err := d.s.Synchronize(); err != nil {
			return err
		}
		return ds.Download(got)
	}

	kernels := d.kernels(false)
	b.printf("\nCheck, dim %d: %d chains x %d sweeps from a random start vs gibbsrt.Reference (bit-exact):", dim, chains, sweeps)
	for i, k := range kernels {
		if err := sweep(k); err != nil {
			return fmt.Errorf("check %s: %w", k, err)
		}
		w := want
		if !k.generic && formOf(k.strategy) == gibbsrt.FormMatrix {
			w = wantMatrix
		}
		c := compare(dim, k.String(), chains, sweeps, got, w)
		b.rep.Checks = append(b.rep.Checks, c)
		verdict := "PASS"
		if !c.Pass {
			verdict = fmt.Sprintf("FAIL (%d of %d values differ; first: %s)", c.Mismatches, len(got), c.First)
			b.mismatch = true
		}
		b.printf(" %s %s", k, verdict)
		if i < len(kernels)-1 {
			b.printf(",")
		}
	}
	b.printf("\n")
	return setStrategy(d.s, gibbsrt.Auto)
}

func compare[T gibbsrt.Float](dim int, kernel string, chains, sweeps int, got, want []T) Check {
	c := Check{Dim: dim, Kernel: kernel, Chains: chains, Sweeps: sweeps}
	for i := range got {
		if !sameBits(got[i], want[i]) {
			if c.Mismatches == 0 {
				c.First = fmt.Sprintf("chain %d coordinate %d: got %g, want %g", i/dim, i%dim, got[i], want[i])
			}
			c.Mismatches++
		}
	}
	c.Pass = c.Mismatches == 0
	return c
}

// referenceSweep returns x0 after sweeps sweeps of gibbsrt.Reference on
// the model, with checkStream: what every kernel's check must equal.
func referenceSweep[T gibbsrt.Float](dim int, rows [][]float64, mu []float64, x0 []T, sweeps int, form gibbsrt.Form) ([]T, error) {
	ref := gibbsrt.NewReference[T](dim)
	if err := ref.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Forward, Omega: 1, Form: form}); err != nil {
		return nil, err
	}
	if err := ref.SetModel(rows, mu); err != nil {
		return nil, err
	}
	want := slices.Clone(x0)
	return want, ref.Sweep(want, sweeps, checkStream)
}
