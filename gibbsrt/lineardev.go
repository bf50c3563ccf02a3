package gibbsrt

import (
	"errors"
	"math"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"gonum.org/v1/gonum/mat"
)

// deviceLinear is the GPU sampler's linear term per chain (linear.go): its
// h, the shifts d for the model q, and Q⁻¹ in float64, all on the device.
type deviceLinear struct {
	chains int
	h, d   cuda.DevicePtr // [chains][dim] of T
	inv    cuda.DevicePtr // [dim][dim] float64: Q⁻¹ of the model invQ
	bad    cuda.DevicePtr // one uint32: the first chain whose shift is not finite
	q      *mat.SymDense  // the model whose shifts d holds; nil while none
	invQ   *mat.SymDense
}

// free releases l's buffers.
func (l *deviceLinear) free(lk cuda.Locked) error {
	var errs []error
	for _, p := range []cuda.DevicePtr{l.h, l.d, l.inv, l.bad} {
		if p != 0 {
			errs = append(errs, lk.Free(p))
		}
	}
	return errors.Join(errs...)
}

// SetLinear is Reference.SetLinear on the GPU: h is copied to the device,
// and the shifts Q⁻¹·h_c are computed there (kernel gibbs_linear), so the
// same bits as the twin's. It waits for them, to report a chain whose
// shift is not finite. Packages generated before gibbsgen 0.14.0 lack the
// kernels: *MissingKernelError.
func (s *Sampler[T]) SetLinear(h []T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.linearReady(); err != nil {
		return err
	}
	if len(h) == 0 {
		return s.clearLinear()
	}
	chains, err := checkLinear(s.m.Dim, h)
	if err != nil {
		return err
	}
	return s.setLinear(s.p, chains, func(l cuda.Locked, dst cuda.DevicePtr) error {
		return l.CopyToDevice(dst, unsafe.Pointer(&h[0]), uint64(len(h))*elemSize[T]())
	})
}

// SetLinearDevice is SetLinear with h on the device: a copy of it is
// taken, device to device, after the sampler's queued launches. A NaN or
// infinity in h surfaces as the error of a shift that is not finite,
// which names the chain.
func (s *Sampler[T]) SetLinearDevice(h *DeviceState[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.linearReady(); err != nil {
		return err
	}
	if err := s.own(h); err != nil {
		return err
	}
	if h.chains == 0 {
		return s.clearLinear()
	}
	return s.setLinear(s.p, h.chains, func(l cuda.Locked, dst cuda.DevicePtr) error {
		return l.CopyDeviceToDevice(dst, h.ptr, uint64(h.chains)*uint64(s.m.Dim)*elemSize[T]())
	})
}

// linearReady is SetLinear's prologue, with s.mu held: open, a model set,
// and the kernels in the module.
func (s *Sampler[T]) linearReady() error {
	if s.closed {
		return ErrClosed
	}
	if s.p == nil {
		return errors.New("gibbsrt: SetLinear called before SetModel")
	}
	if _, err := s.entry(kernels.Linear, Auto); err != nil {
		return err
	}
	_, err := s.entry(kernels.Shift, Auto)
	return err
}

// clearLinear drops the linear term and its spare buffers, with s.mu
// held.
func (s *Sampler[T]) clearLinear() error {
	ls := []*deviceLinear{s.lin, s.linSpare}
	s.lin, s.linSpare = nil, nil
	return s.ctx.Do(func(lk cuda.Locked) error { return freeLinear(lk, s.stream, ls...) })
}

// freeLinear frees ls (nil entries skipped) once the stream's queued
// launches, which may read them, are done.
func freeLinear(lk cuda.Locked, st cuda.Stream, ls ...*deviceLinear) error {
	errs := []error{lk.StreamSynchronize(st)}
	for _, l := range ls {
		if l != nil {
			errs = append(errs, l.free(lk))
		}
	}
	return errors.Join(errs...)
}

// setLinear makes a linear term of chains chains for p's model, fill
// copying h into its buffer, and computes its shifts; if every one is
// finite it replaces the current term, whose buffers the next call reuses
// (an outer sampler sets a new term at every iteration). On an error the
// current term stays. The caller holds s.mu.
func (s *Sampler[T]) setLinear(p *plan[T], chains int, fill func(l cuda.Locked, dst cuda.DevicePtr) error) error {
	bytes := uint64(chains) * uint64(s.m.Dim) * elemSize[T]()
	nl := s.linSpare
	s.linSpare = nil
	err := s.ctx.Do(func(l cuda.Locked) error {
		if nl != nil && nl.chains != chains {
			if err := freeLinear(l, s.stream, nl); err != nil {
				return err
			}
			nl = nil
		}
		if nl == nil {
			nl = &deviceLinear{chains: chains}
		}
		var err error
		for _, b := range []struct {
			p    *cuda.DevicePtr
			size uint64
		}{{&nl.h, bytes}, {&nl.d, bytes}, {&nl.bad, 4}, {&nl.inv, uint64(s.m.Dim) * uint64(s.m.Dim) * 8}} {
			if *b.p == 0 {
				if *b.p, err = l.Alloc(b.size); err != nil {
					return err
				}
			}
		}
		// The null stream's copies wait for this stream's launches (it
		// synchronizes with the null stream), which may still read the
		// spare's buffers.
		if err := fill(l, nl.h); err != nil {
			return err
		}
		return s.linearShifts(l, nl, p)
	})
	if err != nil {
		s.linSpare = nl // its buffers; the current term is unchanged
		return err
	}
	s.lin, s.linSpare = nl, s.lin
	return nil
}

// linearShifts computes l's shifts for p's model into l.d and waits for
// them: the first chain whose shift is not finite is an error. It runs
// inside ctx.Do, with s.mu held.
func (s *Sampler[T]) linearShifts(l cuda.Locked, nl *deviceLinear, p *plan[T]) error {
	nl.q = nil // until the shifts are p's
	if nl.invQ != p.q {
		inv, err := p.inverse()
		if err != nil {
			return err
		}
		if err := l.CopyToDevice(nl.inv, unsafe.Pointer(&inv[0]), uint64(len(inv))*8); err != nil {
			return err
		}
		nl.invQ = p.q
	}
	none := uint32(math.MaxUint32)
	if err := l.CopyToDevice(nl.bad, unsafe.Pointer(&none), 4); err != nil {
		return err
	}
	k, err := s.entry(kernels.Linear, Auto)
	if err != nil {
		return err
	}
	units := nl.chains * s.m.Dim // a thread an element, or a chain (kernels.LinearShape)
	if k.Launch(s.m.Dim, dtypeOf[T]()).Unit == "chains" {
		units = nl.chains
	}
	if err := s.launch(l, k, kernels.EntryPlain, units, linearArgs(nl.d, nl.h, nl.inv, nl.chains, nl.bad)); err != nil {
		return err
	}
	if err := l.StreamSynchronize(s.stream); err != nil {
		return err
	}
	var bad uint32
	if err := l.CopyFromDevice(unsafe.Pointer(&bad), nl.bad, 4); err != nil {
		return err
	}
	if bad != none {
		return errLinearShift(int(bad))
	}
	nl.q = p.q
	return nil
}

// relinear computes the linear term's shifts for p's model, with s.mu
// held, before SetModel installs p: from a copy of its h, so that on an
// error the term, and the model, stay as they were.
func (s *Sampler[T]) relinear(p *plan[T]) error {
	old := s.lin
	if old == nil || old.q == p.q {
		return nil
	}
	bytes := uint64(old.chains) * uint64(s.m.Dim) * elemSize[T]()
	return s.setLinear(p, old.chains, func(l cuda.Locked, dst cuda.DevicePtr) error {
		return l.CopyDeviceToDevice(dst, old.h, bytes)
	})
}

// shift queues gibbs_shift: out − d (sub) or out + d over n elements; with
// coord 0, out is a state of the linear term's chains, else a trace's
// records of rows chains (from d's) by cols columns.
func (s *Sampler[T]) shift(l cuda.Locked, out, d cuda.DevicePtr, n, rows uint64, cols uint32, coord cuda.DevicePtr, sub bool) error {
	if n == 0 {
		return nil
	}
	k, err := s.entry(kernels.Shift, Auto)
	if err != nil {
		return err
	}
	if n > math.MaxInt {
		return errors.New("gibbsrt: a shift of more elements than an int holds")
	}
	return s.launch(l, k, kernels.EntryPlain, int(n), shiftArgs(out, d, n, rows, cols, coord, sub))
}

// fusedShift returns the linear term, and the per-model kernel whose
// Shifted entry point runs a launch of sweeps plain sweeps over chains
// chains with it; a nil kernel where the launch shifts in passes of its
// own (shifted): the hook has not asked for it (setFusedShift), the
// launch is not plain (a trace, Chebyshev, another scheme), there is no
// linear term, the strategy is not the per-model kernel's, or the
// package's PTX lacks the entry point (before gibbsgen 0.17); and where
// the sweeps take more than one launch, since x + d − d need not be x
// between them. The caller holds s.mu.
func (s *Sampler[T]) fusedShift(chains, sweeps int, t traceArgs, ch chebArgs) (*deviceLinear, *kernels.Kernel, error) {
	if !s.shiftFused || t.out != 0 || ch.table != 0 || s.p.ext() || sweeps > maxSweepsPerLaunch {
		return nil, nil, nil
	}
	lin, err := s.linearFor(chains)
	if err != nil || lin == nil {
		return nil, nil, err
	}
	k := s.ptxKernel()
	if k == nil || !ptxHas(s.m.PTX, k.Shifted) || s.chooseFor(chains, sweeps, kernels.EntryPlain) != Specialized {
		return nil, nil, nil
	}
	return lin, k, nil
}

// linearFor returns the linear term for a launch over chains chains, or
// nil without one. The caller holds s.mu.
func (s *Sampler[T]) linearFor(chains int) (*deviceLinear, error) {
	if s.lin == nil || chains == 0 {
		return nil, nil
	}
	if s.lin.chains != chains {
		return nil, errLinearChains(s.lin.chains, chains)
	}
	if s.lin.q != s.p.q {
		return nil, errors.New("gibbsrt: the linear term's shifts are of another model (a SetModel failed after computing them); set the term again")
	}
	return s.lin, nil
}

// shiftStates queues the shift of each state of chains chains in ps (0s
// skipped) by lin's shifts. It runs inside ctx.Do, with s.mu held.
func (s *Sampler[T]) shiftStates(l cuda.Locked, lin *deviceLinear, chains int, sub bool, ps ...cuda.DevicePtr) error {
	for _, p := range ps {
		if p == 0 {
			continue
		}
		if err := s.shift(l, p, lin.d, uint64(chains)*uint64(s.m.Dim), uint64(chains), uint32(s.m.Dim), 0, sub); err != nil {
			return err
		}
	}
	return nil
}

// shifted runs launch on the state x of chains chains (and Chebyshev's
// prev, if not 0) shifted by the linear term, if one is set: x − d (and
// prev − d) before, + d after, and + d on the records t gets. It runs
// inside ctx.Do, with s.mu held.
func (s *Sampler[T]) shifted(l cuda.Locked, x, prev cuda.DevicePtr, chains, records int, t traceArgs, launch func() error) error {
	lin, err := s.linearFor(chains)
	if err != nil || lin == nil {
		if err != nil {
			return err
		}
		return launch()
	}
	if err := s.shiftStates(l, lin, chains, true, x, prev); err != nil {
		return err
	}
	if err := launch(); err != nil {
		return err
	}
	if err := s.shiftStates(l, lin, chains, false, x, prev); err != nil {
		return err
	}
	if t.out == 0 || records == 0 {
		return nil
	}
	d := lin.d + cuda.DevicePtr(t.chain0*uint64(s.m.Dim)*elemSize[T]())
	return s.shift(l, t.out, d, uint64(records)*t.chains*uint64(t.cols), t.chains, t.cols, t.coord, false)
}
