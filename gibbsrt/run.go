package gibbsrt

import (
	"context"
	"fmt"

	"github.com/gibbsgen/gibbsgen/mcstat"
)

// RunOptions[T] configure Run. The zero value runs the sweeps in about a
// hundred launches, with no trace and no progress reports.
type RunOptions[T Float] struct {
	// Chunk is the number of sweeps per launch: progress is reported, and
	// cancellation seen, between chunks. 0 picks sweeps/100 (at least 1),
	// or, with a Trace, the most sweeps whose records it holds.
	Chunk int
	// Trace, if set, records every chunk's states (see Trace); it must
	// hold a chunk's records, and after Run holds the last chunk's.
	Trace *DeviceTrace[T]
	// Moments, if set (with Trace), has the moments of every chunk's
	// records merged into it, reduced on the device (TraceMoments).
	Moments *mcstat.Moments
	// Progress, if set, is called after every chunk with the sweeps done
	// and the total, from Run's goroutine.
	Progress func(done, total int)
}

// Run runs sweeps sweeps on the device-resident state x in chunks, as o
// says, and returns when they are done, or after the chunk in which ctx was
// cancelled. It returns the number of sweeps done; the state then holds
// exactly that many, so a later Run with Stream.Sweep advanced by it
// continues the same stream. Chunking changes neither the states nor the
// records (Trace counts absolute sweep indices).
func (s *Sampler[T]) Run(ctx context.Context, x *DeviceState[T], sweeps int, st Stream, o RunOptions[T]) (int, error) {
	if err := s.open(); err != nil {
		return 0, err
	}
	if ctx == nil {
		return 0, fmt.Errorf("gibbsrt: Run: nil Context; pass context.Background() for none")
	}
	if sweeps < 0 {
		return 0, fmt.Errorf("gibbsrt: sweeps = %d; the sweep count must be >= 0", sweeps)
	}
	if o.Moments != nil && o.Trace == nil {
		return 0, fmt.Errorf("gibbsrt: Run: Moments needs a Trace to reduce")
	}
	chunk := o.Chunk
	switch {
	case chunk < 0:
		return 0, fmt.Errorf("gibbsrt: Run: Chunk = %d; it must be >= 0", chunk)
	case chunk == 0 && o.Trace != nil:
		chunk = o.Trace.capacity * o.Trace.sh.thin
	case chunk == 0:
		chunk = max(1, sweeps/100)
	}
	if o.Moments != nil && o.Moments.Dim() != o.Trace.sh.cols {
		return 0, fmt.Errorf("gibbsrt: Run: Moments of dim %d for a trace of %d coordinates", o.Moments.Dim(), o.Trace.sh.cols)
	}
	done := 0
	for done < sweeps {
		if err := ctx.Err(); err != nil {
			return done, err
		}
		n := min(chunk, sweeps-done)
		part := st
		part.Sweep += uint64(done)
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
		if err == nil && o.Progress != nil {
			err = s.Synchronize()
		}
		if err != nil {
			return done, err
		}
		done += n
		if o.Progress != nil {
			o.Progress(done, sweeps)
		}
	}
	return done, s.Synchronize()
}
