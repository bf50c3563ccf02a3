package gibbsrt

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// Multi runs one sampler per GPU of a host and splits every call's chains
// across them by Shard, in device order, so that its results equal one
// sampler's bit for bit (see "Sharding a run"). Each device has its own
// context and sampler, and a call runs one goroutine per device, so the
// devices work concurrently. Errors name the device ordinal. Its methods
// are safe for concurrent use; calls are serialized.
type Multi[T Float] struct {
	mu       sync.Mutex
	devices  []int
	samplers []*Sampler[T]
	closed   bool
	// lin and prec are the chain counts of the linear term and the
	// precision per chain (0: none), which every call must match.
	lin, prec int
}

// newMulti opens a sampler of m on each of devices (CUDA ordinals, in the
// order the chains are split), or on every visible device if devices is
// empty (gibbsimpl.NewMulti).
func newMulti[T Float](m impl.Module, devices ...int) (*Multi[T], error) {
	if len(devices) == 0 {
		n, err := cuda.DeviceCount()
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("%w (the driver reports 0 devices)", ErrNoDevice)
		}
		for d := 0; d < n; d++ {
			devices = append(devices, d)
		}
	}
	mg := &Multi[T]{devices: append([]int(nil), devices...)}
	for _, d := range mg.devices {
		s, err := newSampler[T](m, d)
		if err != nil {
			mg.Close()
			return nil, fmt.Errorf("gibbsrt: device %d: %w", d, err)
		}
		mg.samplers = append(mg.samplers, s)
	}
	return mg, nil
}

// Devices returns the device ordinals, in the order the chains are split.
func (mg *Multi[T]) Devices() []int { return append([]int(nil), mg.devices...) }

// Samplers returns the per-device samplers, in device order, for what
// Multi does not forward (traces, moments, specialization state).
func (mg *Multi[T]) Samplers() []*Sampler[T] { return append([]*Sampler[T](nil), mg.samplers...) }

// Dim returns the state dimension.
func (mg *Multi[T]) Dim() int { return mg.samplers[0].Dim() }

// each runs f on every device concurrently and joins the errors, each
// naming its device.
func (mg *Multi[T]) each(f func(i int, s *Sampler[T]) error) error {
	return onDevices(mg.devices, func(i int) error { return f(i, mg.samplers[i]) })
}

// onDevices runs f(i) for every i of devices concurrently, one goroutine
// each, and joins the errors, each naming devices[i].
func onDevices(devices []int, f func(i int) error) error {
	errs := make([]error, len(devices))
	var wg sync.WaitGroup
	for i := range devices {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(i); err != nil {
				errs[i] = fmt.Errorf("gibbsrt: device %d: %w", devices[i], err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// locked runs f with mg.mu held, if mg is open.
func (mg *Multi[T]) locked(f func() error) error {
	mg.mu.Lock()
	defer mg.mu.Unlock()
	if mg.closed {
		return ErrClosed
	}
	return f()
}

// SetModel sets the model on every device (see Sampler.SetModel).
func (mg *Multi[T]) SetModel(Q [][]float64, mu []float64) error {
	return mg.locked(func() error {
		return mg.each(func(_ int, s *Sampler[T]) error { return s.SetModel(Q, mu) })
	})
}

// SetScheme sets the sweep scheme on every device (see Sampler.SetScheme).
func (mg *Multi[T]) SetScheme(sc Scheme) error {
	return mg.locked(func() error {
		return mg.each(func(_ int, s *Sampler[T]) error { return s.SetScheme(sc) })
	})
}

// SetStrategy sets the strategy on every device (see Sampler.SetStrategy).
func (mg *Multi[T]) SetStrategy(st Strategy) error {
	return mg.locked(func() error {
		return mg.each(func(_ int, s *Sampler[T]) error { return s.SetStrategy(st) })
	})
}

// Sweep runs sweeps sweeps on the host state x ([chains][dim]), device i
// sweeping shard i of len(Devices()) of its chains, and returns when all
// are done.
func (mg *Multi[T]) Sweep(x []T, sweeps int, st Stream) error {
	return mg.onShards(x, sweeps, st, func(s *Sampler[T], part []T, st Stream) error {
		return s.Sweep(part, sweeps, st)
	})
}

// onShards runs f on every device's shard of the host state x at once,
// each with its shard's stream, after the checks of a call of sweeps
// sweeps.
func (mg *Multi[T]) onShards(x []T, sweeps int, st Stream, f func(s *Sampler[T], part []T, st Stream) error) error {
	return mg.locked(func() error {
		dim := mg.Dim()
		chains, err := checkSweepArgs(dim, len(x), sweeps, st)
		if err != nil {
			return err
		}
		if err := mg.checkTerms(chains); err != nil {
			return err
		}
		return sweepShards(len(mg.samplers), chains, dim, x, st, func(i int, part []T, st Stream) error {
			return f(mg.samplers[i], part, st)
		}, mg.devices)
	})
}

// sweepShards runs sweep on shard i of n of the chains of x concurrently,
// with the shard's part of x and its stream; errors name devices[i].
func sweepShards[T Float](n, chains, dim int, x []T, st Stream, sweep func(i int, part []T, st Stream) error, devices []int) error {
	return onDevices(devices[:n], func(i int) error {
		first, count, err := Shard(chains, i, n)
		if err != nil || count == 0 {
			return err
		}
		sub := st
		sub.Chain += uint64(first)
		return renumber(sweep(i, x[first*dim:(first+count)*dim], sub), first)
	})
}

// MultiState is device-resident state split across a Multi's devices:
// shard i of its chains lives on device i.
type MultiState[T Float] struct {
	mg     *Multi[T]
	chains int
	parts  []*DeviceState[T] // nil for an empty shard
}

// NewState allocates device state for chains chains, split by Shard.
func (mg *Multi[T]) NewState(chains int) (*MultiState[T], error) {
	mg.mu.Lock()
	defer mg.mu.Unlock()
	if mg.closed {
		return nil, ErrClosed
	}
	if err := checkChains[T](mg.Dim(), chains, 0); err != nil {
		return nil, err
	}
	ms := &MultiState[T]{mg: mg, chains: chains, parts: make([]*DeviceState[T], len(mg.samplers))}
	err := mg.each(func(i int, s *Sampler[T]) error {
		_, count, err := Shard(chains, i, len(mg.samplers))
		if err != nil || count == 0 {
			return err
		}
		ms.parts[i], err = s.NewDeviceState(count)
		return err
	})
	if err != nil {
		ms.Free()
		return nil, err
	}
	return ms, nil
}

// Chains returns the state's chain count.
func (ms *MultiState[T]) Chains() int { return ms.chains }

// Free releases every device's part.
func (ms *MultiState[T]) Free() {
	for _, p := range ms.parts {
		if p != nil {
			p.Free()
		}
	}
}

// Upload copies x ([chains][dim]) to the devices' parts.
func (ms *MultiState[T]) Upload(x []T) error { return ms.copy(x, (*DeviceState[T]).Upload) }

// Download copies the devices' parts to x ([chains][dim]), waiting for
// their work.
func (ms *MultiState[T]) Download(x []T) error { return ms.copy(x, (*DeviceState[T]).Download) }

func (ms *MultiState[T]) copy(x []T, f func(*DeviceState[T], []T) error) error {
	if ms == nil || ms.mg == nil {
		return errors.New("gibbsrt: nil multi-device state")
	}
	ms.mg.mu.Lock()
	closed := ms.mg.closed
	ms.mg.mu.Unlock()
	if closed {
		return ErrClosed
	}
	n := len(ms.parts)
	if ms.chains == 0 {
		if len(x) != 0 {
			return fmt.Errorf("gibbsrt: %d elements for a state of 0 chains", len(x))
		}
		return nil
	}
	dim := len(x) / ms.chains
	if dim*ms.chains != len(x) {
		return fmt.Errorf("gibbsrt: %d elements for a state of %d chains", len(x), ms.chains)
	}
	for i, p := range ms.parts {
		first, count, err := Shard(ms.chains, i, n)
		if err != nil {
			return err
		}
		if p == nil {
			continue
		}
		if err := f(p, x[first*dim:(first+count)*dim]); err != nil {
			return fmt.Errorf("gibbsrt: part %d of %d: %w", i, n, err)
		}
	}
	return nil
}

// SweepDevice queues sweeps sweeps on every device's part of x at once,
// each with its shard's stream, and returns once all are queued.
func (mg *Multi[T]) SweepDevice(x *MultiState[T], sweeps int, st Stream) error {
	if _, err := checkSweepArgs(mg.Dim(), 0, sweeps, st); err != nil {
		return err
	}
	return mg.onParts(x, st, func(s *Sampler[T], part *DeviceState[T], st Stream) error {
		return s.SweepDevice(part, sweeps, st)
	})
}

// onParts runs f on every device's part of x at once, each with its
// shard's stream, after the checks every call on a MultiState makes.
func (mg *Multi[T]) onParts(x *MultiState[T], st Stream, f func(s *Sampler[T], part *DeviceState[T], st Stream) error) error {
	return mg.locked(func() error {
		if err := mg.own(x); err != nil {
			return err
		}
		if err := mg.checkTerms(x.chains); err != nil {
			return err
		}
		return mg.each(func(i int, s *Sampler[T]) error {
			first, _, err := Shard(x.chains, i, len(mg.samplers))
			if err != nil || x.parts[i] == nil {
				return err
			}
			sub := st
			sub.Chain += uint64(first)
			return renumber(f(s, x.parts[i], sub), first)
		})
	})
}

// Synchronize waits for every device's queued work.
func (mg *Multi[T]) Synchronize() error {
	mg.mu.Lock()
	closed := mg.closed
	mg.mu.Unlock()
	if closed {
		return ErrClosed
	}
	return mg.each(func(_ int, s *Sampler[T]) error { return s.Synchronize() })
}

// Close closes every device's sampler. It is idempotent; any later call
// of a method that returns an error returns ErrClosed.
func (mg *Multi[T]) Close() error {
	mg.mu.Lock()
	defer mg.mu.Unlock()
	mg.closed = true
	var errs []error
	for i, s := range mg.samplers {
		if err := s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("gibbsrt: device %d: %w", mg.devices[i], err))
		}
	}
	return errors.Join(errs...)
}
