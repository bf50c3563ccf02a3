package gibbsrt

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// Moments of recorded states: the device reduces a trace's rows (the
// records' traced chains, each a vector of the traced coordinates) block by
// block in float64, and the host merges the blocks in order. The plan
// depends only on the number of rows, and TraceMoments computes the same
// operations in the same order on the CPU, so the two agree bit for bit.

// MaxTraceCoords is the most coordinates of a row that TraceMoments
// reduces: the largest dim of any package, so every trace's (its
// covariance alone is k² float64s).
const MaxTraceCoords = kernels.TileMaxDim

// momentPlan returns the rows per block and the number of blocks for n rows
// of k coordinates of T.
func momentPlan[T Float](n, k int) (perBlock, blocks int) {
	tile := kernels.MomentRows(k, dtypeOf[T]())
	nb := kernels.MomentBlockCount(k)
	per := (n + nb - 1) / nb
	per = max(tile, (per+tile-1)/tile*tile)
	return per, (n + per - 1) / per
}

// TraceMoments is the CPU twin of Sampler.TraceMoments: the count, mean and
// covariance of the rows of records, a row-major [rows][k] array such as a
// trace's, as mcstat.Moments.
func TraceMoments[T Float](records []T, k int) (*mcstat.Moments, error) {
	if k < 1 || k > MaxTraceCoords {
		return nil, fmt.Errorf("gibbsrt: rows of %d coordinates; k must be from 1 to MaxTraceCoords (%d)", k, MaxTraceCoords)
	}
	if len(records)%k != 0 {
		return nil, fmt.Errorf("gibbsrt: %d values are not whole rows of %d coordinates", len(records), k)
	}
	n := len(records) / k
	per, blocks := momentPlan[T](n, k)
	partials := make([]float64, blocks*(1+k+k*k))
	for b := 0; b < blocks; b++ {
		blockMoments(records, k, b*per, min(n, (b+1)*per), partials[b*(1+k+k*k):])
	}
	return mergePartials(partials, k, blocks)
}

// blockMoments is one block of the gibbs_moments kernel. The explicit
// float64 conversions keep Go from fusing a product into a sum, which the
// kernel does not do either.
func blockMoments[T Float](x []T, k, lo, hi int, out []float64) {
	tile := kernels.MomentRows(k, dtypeOf[T]())
	tmean, bmean, delta := make([]float64, k), make([]float64, k), make([]float64, k)
	m2 := make([]float64, k*k)
	count := 0.0
	for r0 := lo; r0 < hi; r0 += tile {
		rt := min(tile, hi-r0)
		tn := float64(rt)
		rows := x[r0*k : (r0+rt)*k]
		for a := 0; a < k; a++ {
			s := 0.0
			for r := 0; r < rt; r++ {
				s += float64(rows[r*k+a])
			}
			tmean[a] = s / tn
			delta[a] = tmean[a] - bmean[a]
		}
		f := float64(count*tn) / (count + tn)
		for e := range m2 {
			a, b := e/k, e%k
			c := 0.0
			for r := 0; r < rt; r++ {
				da := float64(rows[r*k+a]) - tmean[a]
				db := float64(rows[r*k+b]) - tmean[b]
				c += float64(da * db)
			}
			m2[e] += c + float64(float64(delta[a]*delta[b])*f)
		}
		for a := range bmean {
			bmean[a] += float64(delta[a] * (tn / (count + tn)))
		}
		count += tn
	}
	out[0] = count
	copy(out[1:], bmean)
	copy(out[1+k:], m2)
}

// mergePartials merges the blocks' partial moments in block order.
func mergePartials(p []float64, k, blocks int) (*mcstat.Moments, error) {
	m, err := mcstat.NewMoments(k)
	if err != nil {
		return nil, err
	}
	for b := 0; b < blocks; b++ {
		q := p[b*(1+k+k*k):]
		part, err := mcstat.FromComoments(k, q[0], q[1:1+k], q[1+k:1+k+k*k])
		if err != nil {
			return nil, err
		}
		if err := m.Merge(part); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// momentsArgs is the argument list of the Moments kernel.
func momentsArgs(rows cuda.DevicePtr, n, k, perBlock int, partials cuda.DevicePtr) []any {
	return []any{rows, uint64(n), uint32(k), uint64(perBlock), partials}
}

// TraceMoments reduces the last call's records in t on the device: the
// count, mean and covariance of the traced coordinates over every record
// and traced chain. Only the blocks' partial sums come back to the host.
// Merge results of several calls, GPUs or machines with mcstat's Merge.
func (s *Sampler[T]) TraceMoments(t *DeviceTrace[T]) (*mcstat.Moments, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ownTrace(t); err != nil {
		return nil, err
	}
	k, err := s.entry(kernels.Moments, Auto)
	if err != nil {
		return nil, err
	}
	cols := t.sh.cols
	n := t.records * t.sh.rows
	if n == 0 {
		return mcstat.NewMoments(cols)
	}
	per, blocks := momentPlan[T](n, cols)
	partials := make([]float64, blocks*(1+cols+cols*cols))
	err = s.ctx.Do(func(l cuda.Locked) error {
		bytes := uint64(len(partials)) * 8
		d, err := s.scratchBuffer(l, 1, bytes)
		if err != nil {
			return err
		}
		if err := s.launch(l, k, kernels.EntryPlain, blocks, momentsArgs(t.buf, n, cols, per, d)...); err != nil {
			return err
		}
		if err := l.StreamSynchronize(s.stream); err != nil {
			return err
		}
		return l.CopyFromDevice(unsafe.Pointer(&partials[0]), d, bytes)
	})
	if err != nil {
		return nil, err
	}
	return mergePartials(partials, cols, blocks)
}

// SweepMoments is Sweep that records states as tr says and returns the
// count, mean and covariance of the records' rows (each a traced chain's
// traced coordinates), reduced on the device: the records never come to
// the host. It equals Reference.SweepMoments bit for bit.
func (s *Sampler[T]) SweepMoments(x []T, sweeps int, st Stream, tr Trace) (*mcstat.Moments, error) {
	if err := s.open(); err != nil {
		return nil, err
	}
	chains, err := CheckSweepArgs(s.m.Dim, len(x), sweeps, st)
	if err != nil {
		return nil, err
	}
	sh, err := tr.shape(s.m.Dim, chains)
	if err != nil {
		return nil, err
	}
	n := Records(tr.Thin, st.Sweep, sweeps)
	if n == 0 {
		if err := s.Sweep(x, sweeps, st); err != nil {
			return nil, err
		}
		return mcstat.NewMoments(sh.cols)
	}
	t, err := s.NewDeviceTrace(tr, chains, n)
	if err != nil {
		return nil, err
	}
	defer t.Free()
	s.mu.Lock()
	err = s.sweepHost(x, sweeps, st, t.args(), chebArgs{})
	t.records = n
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return s.TraceMoments(t)
}

// SweepMoments is SweepTrace whose records are reduced to their count,
// mean and covariance (TraceMoments) instead of returned: the GPU
// sampler's SweepMoments, bit for bit. The records are held in memory
// for the reduction.
func (r *Reference[T]) SweepMoments(x []T, sweeps int, st Stream, tr Trace) (*mcstat.Moments, error) {
	if err := r.ready("SweepMoments"); err != nil {
		return nil, err
	}
	chains, err := CheckSweepArgs(r.dim, len(x), sweeps, st)
	if err != nil {
		return nil, err
	}
	sh, err := tr.shape(r.dim, chains)
	if err != nil {
		return nil, err
	}
	n := Records(tr.Thin, st.Sweep, sweeps)
	size, ok := sh.sizeOK(n)
	if !ok || uint64(size) > math.MaxInt/elemSize[T]() {
		return nil, fmt.Errorf("gibbsrt: %d records of %d chains × %d coordinates: their bytes must fit an int", n, sh.rows, sh.cols)
	}
	out := make([]T, size)
	if _, err := r.sweep(x, sweeps, st, &tr, out, chebyshevRun[T]{}); err != nil {
		return nil, err
	}
	return TraceMoments(out, sh.cols)
}
