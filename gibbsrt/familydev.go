package gibbsrt

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// devicePrecision is the GPU sampler's precision per chain (family.go):
// the members on the host (for the tables of a new model), the scales and
// diagonals on the device only, and the family's tables for the model q.
type devicePrecision[T Float] struct {
	members   [][][]float64 // a copy: they rebuild the tables after SetModel
	scaled    bool          // Scales were set (s holds them)
	diag      bool          // Diag was set (w holds it)
	chains    int
	s, w      cuda.DevicePtr // [chains][K], [chains][dim]; 0 where not set
	sN, wN    uint64         // their allocated bytes
	m, md, b  cuda.DevicePtr // the tables (familyTables) of the model q
	tabN      [3]uint64
	bad       cuda.DevicePtr // two uint32: the first chain with a bad diagonal, with a state not finite
	q         *mat.SymDense
	tabMember int // the tables' K
}

// free releases p's buffers.
func (p *devicePrecision[T]) free(l cuda.Locked) error {
	var errs []error
	for _, b := range []*cuda.DevicePtr{&p.s, &p.w, &p.m, &p.md, &p.b, &p.bad} {
		if *b != 0 {
			errs = append(errs, l.Free(*b))
			*b = 0
		}
	}
	return errors.Join(errs...)
}

// ensure makes *ptr hold at least bytes (kept by *have), reallocating
// when it does not.
func ensure(l cuda.Locked, ptr *cuda.DevicePtr, have *uint64, bytes uint64) error {
	if *ptr != 0 && *have >= bytes {
		return nil
	}
	if *ptr != 0 {
		if err := l.Free(*ptr); err != nil {
			return err
		}
		*ptr = 0
	}
	var err error
	*ptr, err = l.Alloc(bytes)
	*have = bytes
	return err
}

// upload copies v (not empty) into *ptr, growing it as needed.
func uploadSlice[T any](l cuda.Locked, ptr *cuda.DevicePtr, have *uint64, v []T) error {
	bytes := uint64(len(v)) * uint64(unsafe.Sizeof(v[0]))
	if err := ensure(l, ptr, have, bytes); err != nil {
		return err
	}
	return l.CopyToDevice(*ptr, unsafe.Pointer(&v[0]), bytes)
}

// SetPrecision is Reference.SetPrecision on the GPU: the scales and
// diagonals are copied to the device (into the buffers of the precision
// before, where they fit: an outer sampler sets one at every iteration),
// and the sweeps form each chain's conditionals from them (kernel
// gibbs_family), the twin's bits. Packages generated before gibbsgen
// 0.15.0 lack the kernel, and packages beyond the thread-per-chain dims
// (64 in float32, 32 in float64): *MissingKernelError.
func (s *Sampler[T]) SetPrecision(p *Precision[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if s.p == nil {
		return errors.New("gibbsrt: SetPrecision called before SetModel")
	}
	if _, err := s.entry(kernels.Family, Auto); err != nil {
		return err
	}
	if p == nil {
		old := s.prec
		s.prec = nil
		if old == nil {
			return nil
		}
		return s.ctx.Do(func(l cuda.Locked) error { return errors.Join(l.StreamSynchronize(s.stream), old.free(l)) })
	}
	chains, err := checkPrecision(s.m.Dim, p)
	if err != nil {
		return err
	}
	// The scales and diagonals go straight from p to the device: a host
	// copy of them cost more than the checks (0.8 s against 0.5 at a
	// million chains, dim 32, on a 2-core VM).
	members := copyMembers(p.Members)
	tab := newFamilyTables[T](s.p.q, s.p.mean, members)
	if err := checkDiagonals(tab, p, chains); err != nil {
		return err
	}
	dp := s.prec
	if dp == nil {
		dp = &devicePrecision[T]{}
	}
	err = s.ctx.Do(func(l cuda.Locked) error {
		// The null stream's copies wait for this stream's launches, which
		// may still read the buffers.
		if err := dp.uploadTables(l, tab, s.p.q); err != nil {
			return err
		}
		for _, v := range []struct {
			src  []T
			ptr  *cuda.DevicePtr
			have *uint64
		}{{p.Scales, &dp.s, &dp.sN}, {p.Diag, &dp.w, &dp.wN}} {
			if v.src == nil {
				continue
			}
			if err := uploadSlice(l, v.ptr, v.have, v.src); err != nil {
				return err
			}
		}
		if dp.bad == 0 {
			var err error
			if dp.bad, err = l.Alloc(8); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// The buffers may hold part of the new precision: drop it.
		s.prec = nil
		return errors.Join(err, s.ctx.Do(dp.free))
	}
	dp.members, dp.scaled, dp.diag, dp.chains = members, p.Scales != nil, p.Diag != nil, chains
	s.prec = dp
	return nil
}

// uploadTables copies the family's tables for model q to the device.
func (p *devicePrecision[T]) uploadTables(l cuda.Locked, t *familyTables[T], q *mat.SymDense) error {
	for k, v := range []struct {
		src []T
		ptr *cuda.DevicePtr
	}{{t.m, &p.m}, {t.md, &p.md}, {t.b, &p.b}} {
		if err := uploadSlice(l, v.ptr, &p.tabN[k], v.src); err != nil {
			return err
		}
	}
	p.q, p.tabMember = q, t.members
	return nil
}

// launchFamily queues forward Gibbs sweeps with the precision per chain
// over the chains at x and waits for them, to report a chain whose
// precision or state went bad. It runs inside ctx.Do, with s.mu held.
func (s *Sampler[T]) launchFamily(l cuda.Locked, x cuda.DevicePtr, chains, sweeps int, st Stream, t traceArgs, ch chebArgs) error {
	switch {
	case t.out != 0:
		return errPrecisionTrace
	case ch.table != 0:
		return errPrecisionScheme("SweepChebyshev")
	case s.p.form() == FormMatrix || s.p.ext():
		return errPrecisionScheme(fmt.Sprintf("the scheme %v", s.p.scheme))
	}
	k, err := s.entry(kernels.Family, Auto)
	if err != nil {
		return err
	}
	bad, err := s.withFamily(l, chains, func(f familyTabs) error {
		for done := 0; done < sweeps; {
			n := min(sweeps-done, maxSweepsPerLaunch)
			part := st
			part.Sweep += uint64(done)
			if err := s.launch(l, k, kernels.EntryPlain, chains, familyArgs(x, chains, n, part, f)); err != nil {
				return err
			}
			done += n
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case bad[0] >= 0:
		return errPrecisionDiagonal[T](bad[0], -1, 0)
	case bad[1] >= 0:
		return errPrecisionDiverged(bad[1])
	}
	return nil
}

// launchFamilyExact draws the chains at x exactly with the precision per
// chain (kernel k, gibbs_family_exact) and waits, to report a chain whose
// precision has no Cholesky factor or whose draw is not finite. It runs
// inside ctx.Do, with s.mu held.
func (s *Sampler[T]) launchFamilyExact(l cuda.Locked, k *kernels.Kernel, x cuda.DevicePtr, chains int, st Stream) error {
	bad, err := s.withFamily(l, chains, func(f familyTabs) error {
		return s.launch(l, k, kernels.EntryPlain, chains, familyExactArgs(x, chains, st, f))
	})
	switch {
	case err != nil:
		return err
	case bad[0] >= 0:
		return errPrecisionNotDefinite(bad[0])
	case bad[1] >= 0:
		return errPrecisionDrawNotFinite(bad[1])
	}
	return nil
}

// withFamily runs launch, which queues the family's kernels with the
// tables and per-chain buffers f, for a call over chains chains, waits
// for it and returns the chains its kernels flagged (-1: none): bad[0]
// the first chain whose precision was refused, bad[1] the first whose
// state is not finite. It runs inside ctx.Do, with s.mu held.
func (s *Sampler[T]) withFamily(l cuda.Locked, chains int, launch func(f familyTabs) error) ([2]int, error) {
	dp, none := s.prec, [2]int{-1, -1}
	if dp.chains != chains {
		return none, errPrecisionChains(dp.chains, chains)
	}
	f := familyTabs{badChains: dp.bad}
	if s.lin != nil {
		if s.lin.chains != chains {
			return none, errLinearChains(s.lin.chains, chains)
		}
		f.h = s.lin.h
	}
	if dp.q != s.p.q { // a new model: its tables
		if err := dp.uploadTables(l, newFamilyTables[T](s.p.q, s.p.mean, dp.members), s.p.q); err != nil {
			return none, err
		}
	}
	f.m, f.md, f.b, f.members = dp.m, dp.md, dp.b, dp.tabMember
	if dp.scaled {
		f.s = dp.s
	}
	if dp.diag {
		f.w = dp.w
	}
	unset := [2]uint32{math.MaxUint32, math.MaxUint32}
	if err := l.CopyToDevice(dp.bad, unsafe.Pointer(&unset[0]), 8); err != nil {
		return none, err
	}
	if err := launch(f); err != nil {
		return none, err
	}
	if err := l.StreamSynchronize(s.stream); err != nil {
		return none, err
	}
	var flags [2]uint32
	if err := l.CopyFromDevice(unsafe.Pointer(&flags[0]), dp.bad, 8); err != nil {
		return none, err
	}
	bad := none
	for i, v := range flags {
		if v != unset[i] {
			bad[i] = int(v)
		}
	}
	return bad, nil
}
