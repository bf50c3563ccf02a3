package main

// One dim's timing table: the generic kernel, Auto and each strategy of the
// dim's package, at every (B, sweeps per launch), all from the same start.

import (
	"fmt"
	"math/rand/v2"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// Row is one timed configuration.
type Row struct {
	Dim               int     `json:"dim"`
	Batch             int     `json:"batch"`
	SweepsPerLaunch   int     `json:"sweeps_per_launch"`
	Kernel            string  `json:"kernel"`   // "generic", "auto", "const", "shared", "warp"
	Resolved          string  `json:"resolved"` // the strategy Auto chose; else as Kernel
	Launch            Stats   `json:"launch"`
	SecPerSweep       float64 `json:"sec_per_sweep"`
	ChainSweepsPerSec float64 `json:"chain_sweeps_per_sec"`
	SpeedupVsGeneric  float64 `json:"speedup_vs_generic"` // generic time / this time
	FloorSecPerSweep  float64 `json:"floor_sec_per_sweep"`
	FractionOfFloor   float64 `json:"fraction_of_floor"` // floor / time
	Bound             string  `json:"bound"`             // the floor term that dominates
}

// kernel is what a row or check runs: the bench's generic_sweep, or the
// sampler with a strategy (Auto included). The generic kernel is not a
// gibbsrt.Strategy, so it gets its own flag rather than a reserved value.
type kernel struct {
	generic  bool
	strategy gibbsrt.Strategy // unless generic
}

func (k kernel) String() string {
	if k.generic {
		return "generic"
	}
	return k.strategy.String()
}

// dimRun is what one dim's measurements share.
type dimRun struct {
	e       dimEntry
	s       *gibbsrt.Sampler[float32]
	model   gibbstest.Model
	rows    [][]float64
	co      *gibbsrt.Coefficients[float32]
	w, o, k cuda.DevicePtr // weight, offset, scale tables of the generic kernel
}

// kernels returns generic, then Auto if withAuto, then the strategies the
// dim's package holds, in the runtime's table order.
func (d *dimRun) kernels(withAuto bool) []kernel {
	ks := []kernel{{generic: true}}
	if withAuto {
		ks = append(ks, kernel{strategy: gibbsrt.Auto})
	}
	for _, st := range d.s.Strategies() {
		ks = append(ks, kernel{strategy: st})
	}
	return ks
}

func (b *bench) runDim(e dimEntry) error {
	s, err := e.newSampler(b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	if s.Dim() != e.dim {
		return fmt.Errorf("the table's sampler has dim %d", s.Dim())
	}
	rng := rand.New(rand.NewPCG(uint64(e.dim), 2024))
	model := gibbstest.RandomSPD(e.dim, 100, rng, gibbstest.NonzeroMean(e.dim))
	d := &dimRun{e: e, s: s, model: model, rows: model.Rows()}
	if err := s.SetModel(d.rows, model.Mu); err != nil {
		return err
	}
	// The generic kernel reads the same tables SetModel uploads, from
	// buffers of its own in global memory.
	if d.co, err = gibbsrt.NewCoefficients[float32](e.dim, d.rows, model.Mu); err != nil {
		return err
	}
	w, o, k := d.co.Frame(0)
	for _, t := range []struct {
		p    *cuda.DevicePtr
		data []float32
	}{{&d.w, w}, {&d.o, o}, {&d.k, k}} {
		if *t.p, err = b.upload(t.data); err != nil {
			return err
		}
		defer b.ctx.Free(*t.p)
	}

	if err := b.check(d); err != nil {
		return err
	}

	b.printf("\nDim %d, model %s; time per sweep = median launch time / sweeps per launch\n", e.dim, model.Name)
	b.printf("%4s %8s %6s  %-13s %12s %14s %10s %12s %7s  %s\n",
		"dim", "B", "sweeps", "kernel", "us/sweep", "chain-sweeps/s", "x generic", "floor us/sw", "%floor", "bound")
	for _, batch := range b.opt.batches {
		if err := b.runBatch(d, batch); err != nil {
			return fmt.Errorf("batch B=%d: %w", batch, err)
		}
	}
	if err := setStrategy(s, gibbsrt.Auto); err != nil {
		return err
	}
	b.resultsHeader(e.dim)
	for _, batch := range b.opt.batches {
		if err := b.runResults(d, batch, resultsSweeps); err != nil {
			return fmt.Errorf("results out, B=%d: %w", batch, err)
		}
	}
	return nil
}

// runBatch times every kernel at B = batch for each sweeps per launch. The
// generic kernel runs on a buffer of the bench's context, the sampler on a
// DeviceState; each measurement first uploads the same start state.
func (b *bench) runBatch(d *dimRun, batch int) error {
	dim := d.e.dim
	rng := rand.New(rand.NewPCG(uint64(dim)<<32|uint64(batch), 11))
	x0 := randomStart[float32](d.model, batch, rng)
	xd, err := b.upload(x0)
	if err != nil {
		return err
	}
	defer b.ctx.Free(xd)
	ds, err := d.s.NewDeviceState(batch)
	if err != nil {
		return err
	}
	defer ds.Free()

	for _, sweeps := range b.opt.sweeps {
		var genericSec float64
		for _, k := range d.kernels(true) {
			st := gibbsrt.Stream{Seed: benchSeed}
			row := Row{Dim: dim, Batch: batch, SweepsPerLaunch: sweeps, Kernel: k.String()}
			var launch func() error
			if k.generic {
				if err := b.copyTo(xd, x0); err != nil {
					return err
				}
				row.Resolved = row.Kernel
				launch = func() error {
					err := b.launchGeneric(d, xd, batch, sweeps, st)
					st.Sweep += uint64(sweeps)
					return err
				}
			} else {
				if err := ds.Upload(x0); err != nil {
					return err
				}
				if err := setStrategy(d.s, k.strategy); err != nil {
					return err
				}
				row.Resolved = d.s.Choose(batch, sweeps).String()
				launch = func() error {
					err := d.s.SweepDevice(ds, sweeps, st)
					st.Sweep += uint64(sweeps)
					return err
				}
			}
			stats, err := b.timeLaunches(launch)
			if err != nil {
				return fmt.Errorf("%s, %d sweeps: %w", row.Kernel, sweeps, err)
			}
			row.Launch = stats
			row.SecPerSweep = stats.MedianMs * 1e-3 / float64(sweeps)
			row.ChainSweepsPerSec = float64(batch) / row.SecPerSweep
			if k.generic {
				genericSec = row.SecPerSweep
			}
			row.SpeedupVsGeneric = genericSec / row.SecPerSweep
			row.FloorSecPerSweep, row.Bound = b.floor(dim, batch, sweeps)
			row.FractionOfFloor = row.FloorSecPerSweep / row.SecPerSweep
			b.rep.Rows = append(b.rep.Rows, row)
			b.printRow(row)
		}
	}
	return nil
}

func (b *bench) printRow(r Row) {
	k := r.Kernel
	if r.Kernel == "auto" {
		k = "auto(" + r.Resolved + ")"
	}
	b.printf("%4d %8d %6d  %-13s %12.3f %14.3e %9.2fx %12.3f %6.1f%%  %s\n",
		r.Dim, r.Batch, r.SweepsPerLaunch, k, r.SecPerSweep*1e6, r.ChainSweepsPerSec,
		r.SpeedupVsGeneric, r.FloorSecPerSweep*1e6, 100*r.FractionOfFloor, r.Bound)
}
