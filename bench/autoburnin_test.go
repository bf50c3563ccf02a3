package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// TestAutoBurninOnReference runs the automatic burn-in's measurement on the
// twin, on ar1 from the section's start: the iterations are
// BurninIterations', the state the one Run left, the ratios plain's over
// these, and the line prints.
func TestAutoBurninOnReference(t *testing.T) {
	mm := *lookupMixModel("ar1")
	m := mm.build()
	const chains = 32
	start := startState(m, chains, 10)
	an := newStateAnalyzer(m, start)
	rr := newRefRunner(t, m, mixSchemes[symmetricIndex].scheme, chains, false, 1)
	want, err := rr.r.BurninIterations(0)
	if err != nil {
		t.Fatal(err)
	}
	x := slices.Clone(start)
	plain := MixingRow{SecPerSweep: 1e-4, Mean: MixingBurnIn{Sweeps: 300 * want}}
	a, err := autoBurnin(MixingAutoBurnin{Model: "ar1", Chains: chains, StartSD: 10, Tolerance: gibbsrt.DefaultBurninTolerance}, an, plain, 40000,
		func() error { return nil },
		func() (gibbsrt.RunResult, error) {
			return rr.r.Run(context.Background(), x, 0, gibbsrt.Stream{Seed: 3}, gibbsrt.RunOptions[float32]{Burnin: gibbsrt.BurninAuto})
		}, nil,
		func() ([]float32, error) { return x, nil })
	if err != nil {
		t.Fatal(err)
	}
	if a.Iterations != want || a.SweepsVsPlain != 300 || a.VsPlainBound != "" || a.PlainSweeps != 300*want {
		t.Errorf("iterations %d (BurninIterations %d), %s%v x plain; want 300x", a.Iterations, want, a.VsPlainBound, a.SweepsVsPlain)
	}
	if me, _ := an.errors(x, false); a.MeanErr != me || !(a.WallSec > 0) || a.WallVsPlain != a.PlainSec/a.WallSec {
		t.Errorf("mean error %v (state's %v), wall %v s, %v x plain", a.MeanErr, me, a.WallSec, a.WallVsPlain)
	}
	var out strings.Builder
	b := &bench{opt: options{mixingMaxSweeps: 40000}, out: &out, rep: &Report{}}
	b.printAutoBurnin(a)
	if !strings.Contains(out.String(), "300.00x fewer sweeps") {
		t.Errorf("the line lacks the sweeps ratio: %s", out.String())
	}
	// Plain did not get there: the ratios are lower bounds.
	a, err = autoBurnin(a, an, MixingRow{SecPerSweep: 1e-4}, 40000, func() error { return nil },
		func() (gibbsrt.RunResult, error) { return gibbsrt.RunResult{Burnin: 40}, nil },
		func() (gibbsrt.RunResult, error) {
			time.Sleep(time.Millisecond)
			return gibbsrt.RunResult{Burnin: 40}, nil
		},
		func() ([]float32, error) { return x, nil })
	if err != nil || a.VsPlainBound != ">" || a.SweepsVsPlain != 1000 || a.PlainSec != 4 || !(a.ChunkOneSec >= 1e-3) {
		t.Errorf("plain not there: %+v, %v", a, err)
	}
}
