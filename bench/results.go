package main

// The cost of getting results out on the device: a launch of plain sweeps
// against the same launch recording every thin-th state of every chain,
// and against that plus the device reduction of the records to moments.

import (
	"math/rand/v2"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// ResultsRow is one dim and batch of the results-out test.
type ResultsRow struct {
	Dim             int     `json:"dim"`
	Batch           int     `json:"batch"`
	SweepsPerLaunch int     `json:"sweeps_per_launch"`
	Thin            int     `json:"thin"`
	Strategy        string  `json:"strategy"`
	PlainUsPerSweep float64 `json:"plain_us_per_sweep"`
	TraceUsPerSweep float64 `json:"trace_us_per_sweep"`
	MomentsUsSweep  float64 `json:"trace_and_moments_us_per_sweep"`
}

// The results-out test's launches: 100 sweeps, recording every 10th.
const (
	resultsSweeps = 100
	resultsThin   = 10
)

func (b *bench) runResults(d *dimRun, batch, sweeps int) error {
	dim := d.e.dim
	rng := rand.New(rand.NewPCG(uint64(dim), 77))
	ds, err := d.s.NewDeviceState(batch)
	if err != nil {
		return err
	}
	defer ds.Free()
	if err := ds.Upload(randomStart[float32](d.model, batch, rng)); err != nil {
		return err
	}
	records := gibbsrt.Records(resultsThin, 0, sweeps)
	dt, err := d.s.NewDeviceTrace(gibbsrt.Trace{Thin: resultsThin}, batch, records)
	if err != nil {
		return err
	}
	defer dt.Free()
	row := ResultsRow{Dim: dim, Batch: batch, SweepsPerLaunch: sweeps, Thin: resultsThin, Strategy: d.s.Choose(batch, sweeps).String()}
	st := gibbsrt.Stream{Seed: benchSeed} // Sweep stays 0: every launch records the same sweeps
	for _, m := range []struct {
		dst    *float64
		launch func() error
	}{
		{&row.PlainUsPerSweep, func() error { return d.s.SweepDevice(ds, sweeps, st) }},
		{&row.TraceUsPerSweep, func() error { return d.s.SweepDeviceTrace(ds, sweeps, st, dt) }},
		{&row.MomentsUsSweep, func() error {
			if err := d.s.SweepDeviceTrace(ds, sweeps, st, dt); err != nil {
				return err
			}
			_, err := d.s.TraceMoments(dt)
			return err
		}},
	} {
		stats, err := b.timeLaunches(m.launch)
		if err != nil {
			return err
		}
		*m.dst = stats.MedianMs * 1e3 / float64(sweeps)
	}
	b.rep.Results = append(b.rep.Results, row)
	b.printf("%4d %8d %6d %5d  %-8s %10.3f %10.3f (%.2fx) %10.3f (%.2fx)\n", dim, batch, sweeps, resultsThin, row.Strategy,
		row.PlainUsPerSweep, row.TraceUsPerSweep, row.TraceUsPerSweep/row.PlainUsPerSweep,
		row.MomentsUsSweep, row.MomentsUsSweep/row.PlainUsPerSweep)
	return nil
}

// resultsHeader prints the results-out table's header.
func (b *bench) resultsHeader(dim int) {
	b.printf("\nResults out, dim %d: us/sweep of a launch of %d plain sweeps, with a trace of every chain and coordinate every %d sweeps, and with the trace then reduced to moments on the device (Sampler.TraceMoments, host merge included)\n",
		dim, resultsSweeps, resultsThin)
	b.printf("%4s %8s %6s %5s  %-8s %10s %18s %18s\n", "dim", "B", "sweeps", "thin", "auto", "plain", "trace", "trace+moments")
}
