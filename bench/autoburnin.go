package main

// Issue 20's automatic burn-in, in section 9 (-mixing): Run with
// RunOptions.Burnin = BurninAuto from the section's start, timed on the
// wall clock (host work, the copy of the previous iterates and every
// launch), beside plain Gibbs's measured burn-in of the mean.

import (
	"context"
	"fmt"
	"time"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// autoBurninTarget is issue 20's target on ar1: automatic burn-in's wall
// time at least this many times below plain Gibbs's burn-in of the mean.
const autoBurninTarget = 100

// MixingAutoBurnin is Run with automatic burn-in on one model of the
// section: B chains from mu + StartSD·sd, Run(ctx, x, 0, st, {Burnin:
// BurninAuto}) under the symmetric scheme.
type MixingAutoBurnin struct {
	Model   string  `json:"model"`
	Chains  int     `json:"chains"`
	StartSD float64 `json:"start_sd"`
	Omega   float64 `json:"omega"` // the Chebyshev iterations' ω
	// Tolerance is the burn-in's: the closed form's Q-norm mean error after
	// Iterations is at most this times the start's.
	Tolerance  float64 `json:"tolerance"`
	Iterations int     `json:"iterations"` // RunResult.Burnin
	WallSec    float64 `json:"wall_sec"`   // Run's wall time
	// ChunkOneSec is the same Run with Chunk 1, a launch per iteration:
	// what run 19 timed, when the default chunk was count/100.
	ChunkOneSec float64 `json:"chunk_one_sec,omitempty"`
	// MeanErr is the measured ‖mean − mu‖ / ‖start − mu‖ after the burn-in
	// (its floor at B: the section's mean floor).
	MeanErr float64 `json:"mean_err"`
	// PlainSweeps and PlainSec are plain's burn-in of the mean (to
	// mixMeanThreshold; 0 sweeps: not within the maximum), and the ratios
	// plain's over this, bounded as MixingBurnIn.VsPlainBound says.
	PlainSweeps   int     `json:"plain_sweeps"`
	PlainSec      float64 `json:"plain_sec"`
	SweepsVsPlain float64 `json:"sweeps_vs_plain"`
	WallVsPlain   float64 `json:"wall_vs_plain"`
	VsPlainBound  string  `json:"vs_plain_bound,omitempty"`
}

// autoBurnin times run, a Run with automatic burn-in on the state load
// put in place, reads the state back with state, and compares with plain,
// the section's plain row. runOne, if set, is the same Run a launch per
// iteration, timed from the same start after it.
func autoBurnin(a MixingAutoBurnin, an *stateAnalyzer, plain MixingRow, maxSweeps int,
	load func() error, run, runOne func() (gibbsrt.RunResult, error), state func() ([]float32, error)) (MixingAutoBurnin, error) {
	if err := load(); err != nil {
		return a, err
	}
	t0 := time.Now()
	res, err := run()
	a.WallSec = time.Since(t0).Seconds()
	if err != nil {
		return a, err
	}
	x, err := state()
	if err != nil {
		return a, err
	}
	a.Iterations = res.Burnin
	a.MeanErr, _ = an.errors(x, false)
	if runOne != nil {
		if err := load(); err != nil {
			return a, err
		}
		t0 := time.Now()
		if _, err := runOne(); err != nil {
			return a, err
		}
		a.ChunkOneSec = time.Since(t0).Seconds()
	}
	a.PlainSweeps = plain.Mean.Sweeps
	a.SweepsVsPlain, a.VsPlainBound = vsPlain(plain.Mean.Sweeps, res.Burnin, maxSweeps)
	plainSweeps := plain.Mean.Sweeps
	if plainSweeps == 0 {
		plainSweeps = maxSweeps // plain did not get there: at least this
	}
	a.PlainSec = float64(plainSweeps) * plain.SecPerSweep
	a.WallVsPlain = ratioOf(a.PlainSec, a.WallSec)
	return a, nil
}

// runAutoBurnin measures automatic burn-in on the GPU sampler s, on x (B
// chains), from start, and prints it.
func (b *bench) runAutoBurnin(s *gibbsrt.Sampler[float32], mm mixModel, x *gibbsrt.DeviceState[float32], start []float32, an *stateAnalyzer, rows []MixingRow) error {
	if err := s.SetScheme(mixSchemes[symmetricIndex].scheme); err != nil {
		return err
	}
	mx, err := s.Mixing()
	if err != nil {
		return err
	}
	waitCompiles(s)
	st := gibbsrt.Stream{Seed: benchSeed + 200}
	a := MixingAutoBurnin{Model: mm.name, Chains: x.Chains(), StartSD: rows[0].StartSD, Omega: mx.Omega, Tolerance: gibbsrt.DefaultBurninTolerance}
	a, err = autoBurnin(a, an, rows[0], b.opt.mixingMaxSweeps,
		func() error { return x.Upload(start) },
		func() (gibbsrt.RunResult, error) {
			return s.Run(context.Background(), x, 0, st, gibbsrt.RunOptions[float32]{Burnin: gibbsrt.BurninAuto})
		},
		func() (gibbsrt.RunResult, error) {
			return s.Run(context.Background(), x, 0, st, gibbsrt.RunOptions[float32]{Burnin: gibbsrt.BurninAuto, Chunk: 1})
		},
		func() ([]float32, error) {
			out := make([]float32, len(start))
			return out, x.Download(out)
		})
	if err != nil {
		return fmt.Errorf("automatic burn-in: %w", err)
	}
	b.rep.MixingAutoBurnin = append(b.rep.MixingAutoBurnin, a)
	b.printAutoBurnin(a)
	return nil
}

func (b *bench) printAutoBurnin(a MixingAutoBurnin) {
	b.printf("automatic burn-in (issue 20), %s: Run with Burnin: BurninAuto from mu + %.3g sd, B = %d: %d Chebyshev iterations at omega %.4f (closed form: Q-norm mean error <= %g of the start's), measured mean error %.3g, wall %.4f s (a launch per iteration: %.4f s); plain Gibbs %s sweeps, %.4f s: %s fewer sweeps, %s less wall time, target >= %dx: %s\n",
		a.Model, a.StartSD, a.Chains, a.Iterations, a.Omega, a.Tolerance, a.MeanErr, a.WallSec, a.ChunkOneSec,
		sweepsText(a.PlainSweeps, b.opt.mixingMaxSweeps), a.PlainSec,
		ratioText(a.SweepsVsPlain, a.VsPlainBound), ratioText(a.WallVsPlain, a.VsPlainBound),
		autoBurninTarget, metText(a.WallVsPlain >= autoBurninTarget && a.VsPlainBound != "<"))
}
