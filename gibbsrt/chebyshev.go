package gibbsrt

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// Chebyshev acceleration (Fox & Parker, Bernoulli 2017, Algorithm 3;
// docs/GUIDE.md, "Chebyshev acceleration"): symmetric sweeps at the scheme's ω whose
// iterates are combined with the previous ones by a Chebyshev recurrence,
// so that the mean error falls at about (1 − √λ)/(1 + √λ) per iteration
// (λ = λmin/λmax of the SSOR splitting) instead of 1 − λ. It needs one more
// state per chain: the previous iterates. The iterates are exact draws in
// the limit; it is meant for burn-in, after which plain or over-relaxed
// sweeps sample as usual.

// Chebyshev returns the schedule SweepChebyshev follows on the model: ω,
// the eigenvalue interval and τ, δ of the recurrence, with its rate.
func (s *Sampler[T]) Chebyshev() (mixing.Chebyshev, error) {
	s.mu.Lock()
	p, closed := s.p, s.closed
	s.mu.Unlock()
	if closed {
		return mixing.Chebyshev{}, ErrClosed
	}
	if p == nil {
		return mixing.Chebyshev{}, errors.New("gibbsrt: Chebyshev called before SetModel")
	}
	return p.chebyshev()
}

// Chebyshev returns the schedule SweepChebyshev follows (see
// Sampler.Chebyshev).
func (r *Reference[T]) Chebyshev() (mixing.Chebyshev, error) {
	if err := r.ready("Chebyshev"); err != nil {
		return mixing.Chebyshev{}, err
	}
	return r.p.chebyshev()
}

// SweepChebyshevDevice is SweepChebyshev on the device state x, with prev
// (a state of as many chains) its previous iterates, both updated in place.
// It returns once the work is queued.
func (s *Sampler[T]) SweepChebyshevDevice(x, prev *DeviceState[T], first, iterations int, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(x, prev); err != nil {
		return err
	}
	if x == prev {
		return errors.New("gibbsrt: SweepChebyshev needs a state of previous iterates apart from the state")
	}
	if prev.chains != x.chains {
		return fmt.Errorf("gibbsrt: Chebyshev previous iterates hold %d chains, the state %d", prev.chains, x.chains)
	}
	// Before any table is sliced, with the twin's error.
	if err := checkChebyshevArgs(first, iterations); err != nil {
		return err
	}
	if _, err := checkSweepArgs(s.m.Dim, x.chains*s.m.Dim, iterations, st); err != nil {
		return err
	}
	table, err := s.p.chebyshevTable(first, iterations)
	if err != nil || x.chains == 0 || iterations == 0 {
		return err
	}
	return s.ctx.Do(func(l cuda.Locked) error {
		ch, err := s.chebyshevBuffer(l, table)
		if err != nil {
			return err
		}
		ch.prev = prev.ptr
		return s.launchSweeps(l, x.ptr, x.chains, iterations, st, traceArgs{}, ch)
	})
}

// SweepChebyshev runs iterations Chebyshev iterations on the host state x,
// with prev its previous iterates, both [chains][dim] and updated in place
// (copied to the device and back). first is the index of the first
// iteration since the acceleration began: at 0, prev must equal x.
// Iteration k of the call draws the normals of a symmetric sweep at stream
// sweep st.Sweep + k, and its result equals Reference.SweepChebyshev's bit
// for bit.
func (s *Sampler[T]) SweepChebyshev(x, prev []T, first, iterations int, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	if err := checkChebyshevArgs(first, iterations); err != nil {
		return err
	}
	chains, err := checkSweepArgs(s.m.Dim, len(x), iterations, st)
	if err != nil {
		return err
	}
	run, err := s.p.chebyshevRun(prev, len(x), first, iterations)
	if err != nil || chains == 0 || iterations == 0 {
		return err
	}
	return s.ctx.Do(func(l cuda.Locked) error {
		dx, dp, err := s.toScratchPair(l, x, prev)
		if err != nil {
			return err
		}
		ch, err := s.chebyshevBuffer(l, run.table)
		if err != nil {
			return err
		}
		ch.prev = dp
		if err := s.launchSweeps(l, dx, chains, iterations, st, traceArgs{}, ch); err != nil {
			return err
		}
		b := uint64(len(x)) * elemSize[T]()
		if err := l.CopyFromDevice(unsafe.Pointer(&x[0]), dx, b); err != nil {
			return err
		}
		return l.CopyFromDevice(unsafe.Pointer(&prev[0]), dp, b)
	})
}

// chebyshevBuffer copies a call's coefficient table to the device. The copy
// is synchronous on the null stream, which the sampler's stream
// synchronizes with, so it waits for launches still reading the buffer.
func (s *Sampler[T]) chebyshevBuffer(l cuda.Locked, table []T) (chebArgs, error) {
	p, err := s.toScratch(l, 2, table)
	if err != nil {
		return chebArgs{}, err
	}
	return chebArgs{table: p}, nil
}

// setChebyshevInRows (a test hook) has later Chebyshev launches keep the
// iterates in x and prev even where the device would let them stay in
// shared memory, so that the GPU suites run both layouts.
func (s *Sampler[T]) setChebyshevInRows(rows bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chebInRows = rows
}

// setStagedNormals (a test hook) has the per-model kernels of the models
// set after it draw their Ext passes' normals before each pass (*staged)
// or inside it, whatever stagedNormals would choose, so that the GPU
// suites run both; nil restores the choice.
func (s *Sampler[T]) setStagedNormals(staged *bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stagedForced = staged
}

// lastChebyshevShared (a test hook) is the dynamic shared memory in which
// the last Chebyshev launch kept its iterates: 0 for x and prev.
func (s *Sampler[T]) lastChebyshevShared() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chebShared
}
