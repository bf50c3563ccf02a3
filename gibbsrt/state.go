package gibbsrt

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// DeviceState is chain state kept in device memory: chains chains, laid out
// [chains][dim] row-major like a host state. SweepDevice runs sweeps on it
// without copying; Upload and Download move it. It belongs to the Sampler
// that made it, and Close of that Sampler frees it.
type DeviceState[T Float] struct {
	s      *Sampler[T]
	ptr    cuda.DevicePtr // 0 once freed, or for zero chains
	chains int
	freed  bool
}

var errStateFreed = errors.New("gibbsrt: device state is freed")

// NewDeviceState allocates device memory for chains chains. Its contents
// are undefined until Upload.
func (s *Sampler[T]) NewDeviceState(chains int) (*DeviceState[T], error) {
	unlock, err := s.lockForChains(chains, 0)
	if err != nil {
		return nil, err
	}
	defer unlock()
	d := &DeviceState[T]{s: s, chains: chains}
	if chains == 0 {
		return d, nil
	}
	p, err := s.ctx.Alloc(uint64(chains) * uint64(s.m.Dim) * elemSize[T]())
	if err != nil {
		return nil, err
	}
	d.ptr = p
	s.states[d] = struct{}{}
	return d, nil
}

// lockForChains checks a chain count of at least least for a new buffer,
// then locks s, which must be open; unlock unlocks it.
func (s *Sampler[T]) lockForChains(chains, least int) (unlock func(), err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	if err := checkChains[T](s.m.Dim, chains, least); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	return s.mu.Unlock, nil
}

// Chains returns the number of chains the state holds (0 for a nil state).
func (d *DeviceState[T]) Chains() int {
	if d == nil {
		return 0
	}
	return d.chains
}

// own checks, with s.mu held, that d is a live state of s.
func (s *Sampler[T]) own(d *DeviceState[T]) error {
	switch {
	case d == nil:
		return errors.New("gibbsrt: nil device state")
	case d.s != s:
		return errors.New("gibbsrt: device state belongs to another sampler")
	case d.freed:
		return errStateFreed
	}
	return nil
}

// transfer copies between x and chains first, first+1, ... of d after the
// checks every copy shares; toDevice says which way.
func (d *DeviceState[T]) transfer(first int, x []T, toDevice bool) error {
	return d.locked(func(s *Sampler[T]) error {
		return d.copy(s, first, x, toDevice)
	})
}

// locked runs f with the sampler's lock held, once d is known to be a live
// state of an open sampler.
func (d *DeviceState[T]) locked(f func(s *Sampler[T]) error) error {
	if d == nil || d.s == nil {
		return errors.New("gibbsrt: nil device state")
	}
	s := d.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.own(d); err != nil {
		return err
	}
	return f(s)
}

// copy is transfer inside locked.
func (d *DeviceState[T]) copy(s *Sampler[T], first int, x []T, toDevice bool) error {
	dim := s.m.Dim
	if len(x)%dim != 0 {
		return fmt.Errorf("gibbsrt: host state has %d elements, not a multiple of dim %d", len(x), dim)
	}
	if n := len(x) / dim; first < 0 || n > d.chains-first {
		return fmt.Errorf("gibbsrt: chains %d..%d requested of a device state of %d chains", first, first+n-1, d.chains)
	}
	if len(x) == 0 {
		return nil
	}
	at := d.ptr + cuda.DevicePtr(uint64(first)*uint64(dim)*elemSize[T]())
	bytes := uint64(len(x)) * elemSize[T]()
	if toDevice {
		return s.ctx.CopyToDevice(at, unsafe.Pointer(&x[0]), bytes)
	}
	return s.ctx.CopyFromDevice(unsafe.Pointer(&x[0]), at, bytes)
}

// wholeState checks that x holds every chain of d.
func (d *DeviceState[T]) wholeState(x []T) error {
	if want := d.chains * d.s.m.Dim; len(x) != want {
		return fmt.Errorf("gibbsrt: host state has %d elements, want chains×dim = %d×%d = %d", len(x), d.chains, d.s.m.Dim, want)
	}
	return nil
}

// whole is transfer of every chain, after the open and ownership checks.
func (d *DeviceState[T]) whole(x []T, toDevice bool) error {
	return d.locked(func(s *Sampler[T]) error {
		if err := d.wholeState(x); err != nil {
			return err
		}
		return d.copy(s, 0, x, toDevice)
	})
}

// Upload copies the host state x, of chains×dim elements, to the device.
func (d *DeviceState[T]) Upload(x []T) error { return d.whole(x, true) }

// Download waits for the sampler's queued work and copies the state into
// x, of chains×dim elements.
func (d *DeviceState[T]) Download(x []T) error { return d.whole(x, false) }

// DownloadChains is Download of chains first, ..., first+len(x)/dim-1 only.
func (d *DeviceState[T]) DownloadChains(first int, x []T) error {
	return d.transfer(first, x, false)
}

// Fill sets every coordinate of every chain to v.
func (d *DeviceState[T]) Fill(v T) error {
	return d.locked(func(s *Sampler[T]) error {
		if d.chains == 0 {
			return nil
		}
		n := uint64(d.chains) * uint64(s.m.Dim)
		if elemSize[T]() == 4 {
			return s.ctx.Memset32(d.ptr, uint32(bitsOf(v)), n)
		}
		// A 64-bit pattern: copies of a host block of it.
		const block = 1 << 16
		buf := make([]T, min(n, block))
		for i := range buf {
			buf[i] = v
		}
		for done := uint64(0); done < n; done += block {
			k := min(block, n-done)
			if err := s.ctx.CopyToDevice(d.ptr+cuda.DevicePtr(done*8), unsafe.Pointer(&buf[0]), k*8); err != nil {
				return err
			}
		}
		return nil
	})
}

// Free releases the device memory. It is idempotent, and after Close of
// the sampler (which freed it) it returns nil; other uses of a freed state
// return an error.
func (d *DeviceState[T]) Free() error {
	if d == nil || d.s == nil {
		return errors.New("gibbsrt: nil device state")
	}
	s := d.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.freed {
		return nil
	}
	d.freed = true
	if d.ptr == 0 || s.closed { // Close freed it
		return nil
	}
	delete(s.states, d)
	p := d.ptr
	d.ptr = 0
	return s.ctx.Free(p)
}
