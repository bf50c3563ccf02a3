package gibbsrt

import (
	"errors"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
)

// HostState is chain state in page-locked host memory that the GPU reads
// and writes directly: Sweep on X, or on any whole-chain slice of it, runs
// the kernels on it in place, with no copy on either side. Use it for
// frequent short Sweep calls on host state. X is not Go memory: do not use
// it after Free, or after Close of the sampler that made it.
type HostState[T Float] struct {
	s   *Sampler[T]
	mem cuda.HostMemory
	X   []T // [chains][dim], row-major
}

// NewHostState allocates page-locked host memory for chains chains,
// zeroed.
func (s *Sampler[T]) NewHostState(chains int) (*HostState[T], error) {
	unlock, err := s.lockForChains(chains, 1)
	if err != nil {
		return nil, err
	}
	defer unlock()
	n := chains * s.m.Dim
	h := &HostState[T]{s: s}
	err = s.ctx.Do(func(l cuda.Locked) error {
		m, err := l.AllocHost(uint64(n) * elemSize[T]())
		h.mem = m
		return err
	})
	if err != nil {
		return nil, err
	}
	h.X = unsafe.Slice((*T)(h.mem.Host), n)
	clear(h.X)
	s.hosts[h] = struct{}{}
	return h, nil
}

// Free releases the memory; X becomes nil. It is idempotent, and after
// Close of the sampler (which freed it) it returns nil.
func (h *HostState[T]) Free() error {
	if h == nil || h.s == nil {
		return errors.New("gibbsrt: nil host state")
	}
	s := h.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.X == nil || s.closed {
		return nil
	}
	delete(s.hosts, h)
	h.X = nil
	mem := h.mem
	h.mem = cuda.HostMemory{}
	return s.ctx.Do(func(l cuda.Locked) error { return l.FreeHost(mem) })
}

// mapped returns the device address of x when x lies in one of s's host
// states. It must run with s.mu held.
func (s *Sampler[T]) mapped(x []T) (cuda.DevicePtr, bool) {
	p := unsafe.Pointer(&x[0])
	for h := range s.hosts {
		if h.mem.Contains(p, uint64(len(x))*elemSize[T]()) {
			return h.mem.Device + cuda.DevicePtr(uintptr(p)-uintptr(h.mem.Host)), true
		}
	}
	return 0, false
}
