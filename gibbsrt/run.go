package gibbsrt

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/gibbsgen/gibbsgen/mcstat"
)

// RunOptions[T] configure Run. The zero value runs the sweeps in at most a
// hundred launches of at least minChunk sweeps each, with no burn-in, no
// trace and no progress reports.
type RunOptions[T Float] struct {
	// Chunk is the number of sweeps (or Chebyshev iterations) per launch:
	// progress is reported, and cancellation seen, between chunks. 0
	// splits a phase into at most 100 launches of at least 32 sweeps each
	// (fewer where the phase is shorter), as even as the count allows, or,
	// for the sweeps with a Trace, takes the most sweeps whose records it
	// holds. Chunking never changes the results.
	Chunk int
	// Burnin, if BurninAuto, runs Chebyshev iterations before the sweeps,
	// until the closed-form mean error is cut by BurninTolerance (see
	// Sampler.Run).
	Burnin Burnin
	// BurninTolerance is the factor by which the burn-in cuts the Q-norm
	// of the mean error, in (0, 1); 0 is DefaultBurninTolerance (1e-3).
	BurninTolerance float64
	// Trace, if set, records every chunk's states (see Trace); it must
	// hold a chunk's records, and after Run holds the last chunk's. The
	// burn-in records nothing.
	Trace *DeviceTrace[T]
	// Moments, if set (with Trace), has the moments of every chunk's
	// records merged into it, reduced on the device (TraceMoments).
	Moments *mcstat.Moments
	// Progress, if set, is called after every chunk with what is done and
	// what the run will do, from Run's goroutine.
	Progress func(done, total RunResult)
	// Sampling, if set, is the scheme of the sweeps: Run sets it, as
	// SetScheme does (the sampler keeps it), once the burn-in is done and
	// before the first sweep, also when there are no sweeps; a Run stopped
	// during the burn-in leaves the scheme as it was. The burn-in runs under
	// the scheme set before the call. So one Run gives the fastest answer
	// for a mean: Chebyshev iterations under Scheme{Kind: Symmetric} (ω
	// for the mean error), then sweeps under Scheme{Kind: Forward, Tune:
	// TuneSampling} (ω for the estimate).
	Sampling *Scheme
}

// RunResult is what a Run did: Burnin Chebyshev iterations, which drew
// the normals of stream sweeps st.Sweep, …, st.Sweep+Burnin−1, then Sweeps
// sweeps of the scheme, at stream sweeps st.Sweep+Burnin on.
type RunResult struct {
	Burnin, Sweeps int
}

// Next returns the stream that continues a run from st after r: Sweep
// advanced by Burnin + Sweeps.
func (r RunResult) Next(st Stream) Stream {
	st.Sweep += uint64(r.Burnin) + uint64(r.Sweeps)
	return st
}

// runPlan is a validated Run: its counts and chunks.
type runPlan struct {
	total        RunResult
	burnChunk    int
	sweepChunk   int
	st           Stream
	progress     func(done, total RunResult)
	chebyshev    func(first, n int, st Stream) error
	sweep        func(n int, st Stream) error
	beforeReport func() error // waits for the chunk, before a report
	rescheme     func() error // between the phases: sets RunOptions.Sampling
}

// planRun checks what every Run shares and returns the plan; burnin
// computes the burn-in's iterations at a tolerance.
func planRun[T Float](ctx context.Context, sweeps int, st Stream, o RunOptions[T], burnin func(tol float64) (int, error)) (runPlan, error) {
	if ctx == nil {
		return runPlan{}, errors.New("gibbsrt: Run: nil Context; pass context.Background() for none")
	}
	if sweeps < 0 {
		return runPlan{}, fmt.Errorf("gibbsrt: sweeps = %d; the sweep count must be >= 0", sweeps)
	}
	if o.Moments != nil && o.Trace == nil {
		return runPlan{}, errors.New("gibbsrt: Run: Moments needs a Trace to reduce")
	}
	if o.Chunk < 0 {
		return runPlan{}, fmt.Errorf("gibbsrt: Run: Chunk = %d; it must be >= 0", o.Chunk)
	}
	if o.Moments != nil && o.Moments.Dim() != o.Trace.sh.cols {
		return runPlan{}, fmt.Errorf("gibbsrt: Run: Moments of dim %d for a trace of %d coordinates", o.Moments.Dim(), o.Trace.sh.cols)
	}
	tol, err := checkBurnin(o.Burnin, o.BurninTolerance)
	if err != nil {
		return runPlan{}, err
	}
	if o.Sampling != nil {
		// Refused before the burn-in changes the state.
		if err := o.Sampling.check(); err != nil {
			return runPlan{}, fmt.Errorf("%w (RunOptions.Sampling)", err)
		}
	}
	p := runPlan{total: RunResult{Sweeps: sweeps}, st: st, progress: o.Progress}
	if tol > 0 {
		if p.total.Burnin, err = burnin(tol); err != nil {
			return runPlan{}, err
		}
		if sweeps > math.MaxInt-p.total.Burnin {
			return runPlan{}, fmt.Errorf("gibbsrt: Run: %d burn-in iterations + %d sweeps overflow an int", p.total.Burnin, sweeps)
		}
	}
	phase := func(n int) int {
		if o.Chunk > 0 {
			return o.Chunk
		}
		return defaultChunk(n)
	}
	p.burnChunk, p.sweepChunk = phase(p.total.Burnin), phase(sweeps)
	if o.Chunk == 0 && o.Trace != nil {
		p.sweepChunk = o.Trace.capacity * o.Trace.sh.thin
	}
	return p, nil
}

// minChunk is the fewest sweeps a default chunk launches: a launch has a
// fixed cost beside its sweeps (at a million chains, the thread-per-chain
// kernels' strided loads and stores of the state and Chebyshev's transpose
// of its two vectors, several sweeps' worth), which 32 sweeps amortize.
// Run 19 measured the cost of the old rule, n/100: a burn-in of 67
// Chebyshev iterations in 67 launches.
const minChunk = 32

// defaultChunk splits a phase of n sweeps into at most 100 launches of at
// least minChunk sweeps (or n, if fewer), as even as n allows.
func defaultChunk(n int) int {
	launches := min(100, max(1, n/minChunk))
	return max(1, (n+launches-1)/launches)
}

// run drives the plan: the burn-in's chunks, then the sweeps', each at its
// stream sweeps.
func (p runPlan) run(ctx context.Context) (RunResult, error) {
	var done RunResult
	phases := []struct {
		count        *int
		total, chunk int
		from         uint64 // the phase's first stream sweep, past st.Sweep
		step         func(first, n int, st Stream) error
	}{
		{&done.Burnin, p.total.Burnin, p.burnChunk, 0, p.chebyshev},
		{&done.Sweeps, p.total.Sweeps, p.sweepChunk, uint64(p.total.Burnin), func(_, n int, st Stream) error { return p.sweep(n, st) }},
	}
	for i, ph := range phases {
		if i == 1 && p.rescheme != nil {
			if err := p.rescheme(); err != nil {
				return done, err
			}
		}
		for *ph.count < ph.total {
			if err := ctx.Err(); err != nil {
				return done, err
			}
			n := min(ph.chunk, ph.total-*ph.count)
			part := p.st
			part.Sweep += ph.from + uint64(*ph.count)
			err := ph.step(*ph.count, n, part)
			if err == nil && p.progress != nil && p.beforeReport != nil {
				err = p.beforeReport()
			}
			if err != nil {
				return done, err
			}
			*ph.count += n
			if p.progress != nil {
				p.progress(done, p.total)
			}
		}
	}
	return done, nil
}

// Run runs sweeps sweeps on the device-resident state x in chunks, as o
// says, and returns when they are done, or after the chunk in which ctx was
// cancelled. With o.Burnin = BurninAuto it first runs the Chebyshev
// iterations BurninIterations(o.BurninTolerance) gives (SweepChebyshev,
// with previous iterates in a device state of its own, copied from x),
// then the scheme's sweeps. The result counts what was done; the state
// then holds exactly that, so a later Run from result.Next(st) continues
// the same stream (a burn-in cut short by ctx is not resumed: the next Run
// burns in afresh). Chunking changes neither the states nor the records
// (Trace counts absolute sweep indices), and the twin's Run gives the same
// bits.
func (s *Sampler[T]) Run(ctx context.Context, x *DeviceState[T], sweeps int, st Stream, o RunOptions[T]) (RunResult, error) {
	if err := s.open(); err != nil {
		return RunResult{}, err
	}
	p, err := planRun(ctx, sweeps, st, o, s.BurninIterations)
	if err != nil {
		return RunResult{}, err
	}
	// Refused before any work, not by a later chunk's call.
	if err := st.check(x.Chains(), p.total.Burnin+sweeps); err != nil {
		return RunResult{}, err
	}
	if p.total.Burnin > 0 && sweeps > 0 && o.Trace != nil {
		// A trace the sampling's first chunk cannot use is refused before
		// the burn-in changes the state.
		if err := s.checkTrace(o.Trace, x.Chains(), min(p.sweepChunk, sweeps), RunResult{Burnin: p.total.Burnin}.Next(st)); err != nil {
			return RunResult{}, err
		}
	}
	if p.total.Burnin > 0 {
		prev, err := s.cloneState(x)
		if prev != nil {
			defer prev.Free()
		}
		if err != nil {
			return RunResult{}, err
		}
		p.chebyshev = func(first, n int, part Stream) error { return s.SweepChebyshevDevice(x, prev, first, n, part) }
	}
	p.sweep = func(n int, part Stream) error {
		var err error
		if o.Trace != nil {
			err = s.SweepDeviceTrace(x, n, part, o.Trace)
		} else {
			err = s.SweepDevice(x, n, part)
		}
		if err == nil && o.Moments != nil && o.Trace.records > 0 {
			var m *mcstat.Moments
			if m, err = s.TraceMoments(o.Trace); err == nil {
				err = o.Moments.Merge(m)
			}
		}
		return err
	}
	p.beforeReport = s.Synchronize
	if o.Sampling != nil {
		p.rescheme = func() error {
			// The burn-in's launches read the tables SetScheme replaces.
			if err := s.Synchronize(); err != nil {
				return err
			}
			return s.SetScheme(*o.Sampling)
		}
	}
	done, err := p.run(ctx)
	if err != nil {
		return done, err
	}
	return done, s.Synchronize()
}

// checkTrace is SweepDeviceTrace's check of t for a call of sweeps sweeps
// over chains chains from st, without its effect on t's record count.
func (s *Sampler[T]) checkTrace(t *DeviceTrace[T], chains, sweeps int, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	records := t.records
	err := t.prepare(s, chains, sweeps, st)
	t.records = records
	return err
}

// RunHost is Run on the host state x, [chains][dim]: it is copied to a
// device state of its own, run there, and copied back, also when Run stops
// early (x then holds what the result counts).
func (s *Sampler[T]) RunHost(ctx context.Context, x []T, sweeps int, st Stream, o RunOptions[T]) (RunResult, error) {
	if err := s.open(); err != nil {
		return RunResult{}, err
	}
	chains, err := checkSweepArgs(s.m.Dim, len(x), 0, st)
	if err != nil {
		return RunResult{}, err
	}
	ds, err := s.NewDeviceState(chains)
	if err != nil {
		return RunResult{}, err
	}
	defer ds.Free()
	if err := ds.Upload(x); err != nil {
		return RunResult{}, err
	}
	done, err := s.Run(ctx, ds, sweeps, st, o)
	if derr := ds.Download(x); err == nil {
		err = derr
	}
	return done, err
}

// RunHost is Run, under the name the sampler's host-state Run has, so
// that the twin implements Chains.
func (r *Reference[T]) RunHost(ctx context.Context, x []T, sweeps int, st Stream, o RunOptions[T]) (RunResult, error) {
	return r.Run(ctx, x, sweeps, st, o)
}

// Run is Sampler.RunHost on the CPU, with the same bits: the same
// Chebyshev iterations and sweeps on the same stream sweeps, in chunks
// that change nothing. Its options take no Trace or Moments (device
// buffers; SweepTrace records on the CPU), and Progress is called after
// every chunk.
func (r *Reference[T]) Run(ctx context.Context, x []T, sweeps int, st Stream, o RunOptions[T]) (RunResult, error) {
	if o.Trace != nil || o.Moments != nil {
		return RunResult{}, errors.New("gibbsrt: Reference.Run: Trace and Moments are device buffers; record on the CPU with SweepTrace")
	}
	if err := r.ready("Run"); err != nil {
		return RunResult{}, err
	}
	if _, err := checkSweepArgs(r.p.dim, len(x), 0, st); err != nil {
		return RunResult{}, err
	}
	p, err := planRun(ctx, sweeps, st, o, r.BurninIterations)
	if err != nil {
		return RunResult{}, err
	}
	if err := st.check(len(x)/r.p.dim, p.total.Burnin+sweeps); err != nil {
		return RunResult{}, err
	}
	if p.total.Burnin > 0 {
		prev := append([]T(nil), x...)
		p.chebyshev = func(first, n int, part Stream) error { return r.SweepChebyshev(x, prev, first, n, part) }
	}
	p.sweep = func(n int, part Stream) error { return r.Sweep(x, n, part) }
	if o.Sampling != nil {
		p.rescheme = func() error { return r.SetScheme(*o.Sampling) }
	}
	return p.run(ctx)
}
