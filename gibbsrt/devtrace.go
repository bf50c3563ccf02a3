package gibbsrt

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// DeviceTrace is device memory for the records of traced sweep calls (see
// Trace for what is recorded and the layout). Each SweepDeviceTrace call
// writes its records from the start of the buffer; Download copies them
// out, and TraceMoments reduces them on the device. It belongs to the
// Sampler that made it, and Close of that Sampler frees it.
type DeviceTrace[T Float] struct {
	s        *Sampler[T]
	sh       traceShape
	chains   int // the chain count of the calls it records
	capacity int // records it holds
	records  int // records written by the last call
	buf, idx cuda.DevicePtr
	freed    bool
}

// NewDeviceTrace allocates room for records records of t, for calls over
// chains chains.
func (s *Sampler[T]) NewDeviceTrace(t Trace, chains, records int) (*DeviceTrace[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	sh, size, err := deviceTraceShape[T](t, s.m.Dim, chains, records)
	if err != nil {
		return nil, err
	}
	d := &DeviceTrace[T]{s: s, sh: sh, chains: chains, capacity: records}
	err = s.ctx.Do(func(l cuda.Locked) error {
		var err error
		if d.buf, err = l.Alloc(uint64(size) * elemSize[T]()); err != nil {
			return err
		}
		// The columns of each coordinate, then the coordinate of each column.
		maps := append(slices.Clone(sh.index), sh.coords()...)
		if d.idx, err = l.Alloc(uint64(len(maps)) * 4); err != nil {
			l.Free(d.buf)
			return err
		}
		return l.CopyToDevice(d.idx, unsafe.Pointer(&maps[0]), uint64(len(maps))*4)
	})
	if err != nil {
		return nil, err
	}
	s.traces[d] = struct{}{}
	return d, nil
}

// deviceTraceShape checks a device trace of records records of t, for
// calls over chains chains of dim dim, and returns its shape and its
// length in elements of T, whose bytes must fit an int.
func deviceTraceShape[T Float](t Trace, dim, chains, records int) (traceShape, int, error) {
	if chains < 1 {
		return traceShape{}, 0, fmt.Errorf("gibbsrt: a device trace for calls of %d chains; it needs at least 1", chains)
	}
	sh, err := t.shape(dim, chains)
	if err != nil {
		return traceShape{}, 0, err
	}
	if records < 1 {
		return traceShape{}, 0, fmt.Errorf("gibbsrt: a device trace of %d records; it needs at least 1", records)
	}
	size, ok := sh.sizeOK(records)
	if !ok || uint64(size) > math.MaxInt/elemSize[T]() {
		return traceShape{}, 0, fmt.Errorf("gibbsrt: a device trace of %d records of %d chains × %d coordinates: its bytes must fit an int", records, sh.rows, sh.cols)
	}
	return sh, size, nil
}

// Records returns the number of records the last call wrote (0 for a nil
// trace).
func (d *DeviceTrace[T]) Records() int {
	if d == nil {
		return 0
	}
	return d.records
}

// Shape returns the traced chains and coordinates per record (0, 0 for a
// nil trace).
func (d *DeviceTrace[T]) Shape() (chains, coords int) {
	if d == nil {
		return 0, 0
	}
	return d.sh.rows, d.sh.cols
}

// Download waits for the sampler's queued work and copies the last call's
// records into the first Records()×chains×coords values of out (Shape
// gives chains and coords), which must hold at least that many: an
// output, as every output of the package, may be longer than what is
// written, and the rest is left as it was.
func (d *DeviceTrace[T]) Download(out []T) error {
	if d == nil || d.s == nil {
		return errors.New("gibbsrt: nil device trace")
	}
	s := d.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ownTrace(d); err != nil {
		return err
	}
	if err := d.sh.checkOut(len(out), d.records); err != nil { // SweepTrace's rule
		return err
	}
	n := d.sh.size(d.records)
	if n == 0 {
		return nil
	}
	return s.ctx.CopyFromDevice(unsafe.Pointer(&out[0]), d.buf, uint64(n)*elemSize[T]())
}

// Free releases the memory. It is idempotent, and after Close of the
// sampler (which freed it) it returns nil.
func (d *DeviceTrace[T]) Free() error {
	if d == nil || d.s == nil {
		return errors.New("gibbsrt: nil device trace")
	}
	s := d.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.freed || s.closed {
		d.freed = true
		return nil
	}
	d.freed = true
	delete(s.traces, d)
	return s.ctx.Do(func(l cuda.Locked) error { return errors.Join(l.Free(d.buf), l.Free(d.idx)) })
}

// ownTrace checks, with s.mu held, that d is a live trace of an open s.
func (s *Sampler[T]) ownTrace(d *DeviceTrace[T]) error {
	switch {
	case s.closed:
		return ErrClosed
	case d == nil:
		return errors.New("gibbsrt: nil device trace")
	case d.s != s:
		return errors.New("gibbsrt: device trace belongs to another sampler")
	case d.freed:
		return errors.New("gibbsrt: device trace is freed")
	}
	return nil
}

// SweepDeviceTrace is SweepDevice that also records states into t, from
// its first record on. t must have been made for x's chain count and hold
// every record of the call. It returns once the work is queued.
func (s *Sampler[T]) SweepDeviceTrace(x *DeviceState[T], sweeps int, st Stream, t *DeviceTrace[T]) error {
	if err := s.open(); err != nil {
		return err
	}
	if t == nil {
		return errors.New("gibbsrt: nil device trace")
	}
	return s.sweepDevice(x, sweeps, st, t)
}

// prepare checks, with s.mu held, that t is s's and can take the records of
// a call of sweeps sweeps over chains chains, and sets its record count.
func (t *DeviceTrace[T]) prepare(s *Sampler[T], chains, sweeps int, st Stream) error {
	if err := s.ownTrace(t); err != nil {
		return err
	}
	if t.chains != chains {
		return fmt.Errorf("gibbsrt: device trace made for %d chains, state has %d", t.chains, chains)
	}
	n := Records(t.sh.thin, st.Sweep, sweeps)
	if n > t.capacity {
		return fmt.Errorf("gibbsrt: %d sweeps from sweep %d with Thin %d make %d records; the device trace holds %d", sweeps, st.Sweep, t.sh.thin, n, t.capacity)
	}
	t.records = n
	return nil
}

// args are the kernel's trace arguments for t.
func (t *DeviceTrace[T]) args() traceArgs {
	return traceArgs{out: t.buf, index: t.idx, coord: t.idx + cuda.DevicePtr(4*len(t.sh.index)), thin: uint32(t.sh.thin), cols: uint32(t.sh.cols),
		chain0: uint64(t.sh.first), chains: uint64(t.sh.rows)}
}
