package gibbsrt

import (
	"fmt"
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

// blockMoments is one block of the gibbs_moments kernel: rows lo..hi-1 of
// x, in tiles of kernels.MomentRows rows from lo.
func blockMoments[T Float](x []T, k, lo, hi int, out []float64) {
	b := newBlockSums[T](k)
	for r0 := lo; r0 < hi; r0 += b.tile {
		b.addTile(x[r0*k : min(r0+b.tile, hi)*k])
	}
	b.emit(out)
}

// blockSums is a block's running count, mean and comoments, to which the
// block's tiles are added in order.
type blockSums[T Float] struct {
	k, tile                 int
	tmean, bmean, delta, m2 []float64
	count                   float64
}

func newBlockSums[T Float](k int) *blockSums[T] {
	return &blockSums[T]{k: k, tile: kernels.MomentRows(k, dtypeOf[T]()),
		tmean: make([]float64, k), bmean: make([]float64, k), delta: make([]float64, k), m2: make([]float64, k*k)}
}

// addTile adds a tile of rows (at most tile rows of k values): two passes
// over it, then Chan et al.'s update of the block's sums. The explicit
// float64 conversions keep Go from fusing a product into a sum, which the
// kernel does not do either.
func (b *blockSums[T]) addTile(rows []T) {
	k := b.k
	rt := len(rows) / k
	tn := float64(rt)
	for a := 0; a < k; a++ {
		s := 0.0
		for r := 0; r < rt; r++ {
			s += float64(rows[r*k+a])
		}
		b.tmean[a] = s / tn
		b.delta[a] = b.tmean[a] - b.bmean[a]
	}
	f := float64(b.count*tn) / (b.count + tn)
	for e := range b.m2 {
		i, j := e/k, e%k
		c := 0.0
		for r := 0; r < rt; r++ {
			di := float64(rows[r*k+i]) - b.tmean[i]
			dj := float64(rows[r*k+j]) - b.tmean[j]
			c += float64(di * dj)
		}
		b.m2[e] += c + float64(float64(b.delta[i]*b.delta[j])*f)
	}
	for a := range b.bmean {
		b.bmean[a] += float64(b.delta[a] * (tn / (b.count + tn)))
	}
	b.count += tn
}

// emit writes the block's partial sums (count, mean, comoments) to out
// and starts the next block.
func (b *blockSums[T]) emit(out []float64) {
	out[0] = b.count
	copy(out[1:], b.bmean)
	copy(out[1+b.k:], b.m2)
	b.count = 0
	clear(b.bmean)
	clear(b.m2)
}

// rowMoments reduces n rows of k values, given in order in any number of
// pieces, as TraceMoments reduces them at once: the same blocks and
// tiles, so the same bits, with one tile of rows held at a time.
type rowMoments[T Float] struct {
	sums           *blockSums[T]
	k, n, per, row int
	partials       []float64
	tile           []T
}

func newRowMoments[T Float](n, k int) *rowMoments[T] {
	per, blocks := momentPlan[T](n, k)
	b := newBlockSums[T](k)
	return &rowMoments[T]{sums: b, k: k, n: n, per: per, partials: make([]float64, blocks*(1+k+k*k)), tile: make([]T, 0, b.tile*k)}
}

// add adds whole rows, in order; rows past the n planned are not
// counted (callers plan n exactly).
func (m *rowMoments[T]) add(rows []T) {
	for len(rows) >= m.k && m.row < m.n { // so every pass takes a row
		end := min(m.n, (m.row/m.per+1)*m.per) // the current block's end
		take := min(len(rows)/m.k, cap(m.tile)/m.k-len(m.tile)/m.k, end-m.row)
		m.tile = append(m.tile, rows[:take*m.k]...)
		rows = rows[take*m.k:]
		m.row += take
		if len(m.tile) == cap(m.tile) || m.row == end {
			m.sums.addTile(m.tile)
			m.tile = m.tile[:0]
		}
		if m.row == end {
			m.sums.emit(m.partials[(m.row-1)/m.per*(1+m.k+m.k*m.k):])
		}
	}
}

// moments merges the blocks once every row is added.
func (m *rowMoments[T]) moments() (*mcstat.Moments, error) {
	return mergePartials(m.partials, m.k, len(m.partials)/(1+m.k+m.k*m.k))
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
		if err := s.launch(l, k, kernels.EntryPlain, blocks, momentsArgs(t.buf, n, cols, per, d)); err != nil {
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
	chains, err := checkSweepArgs(s.m.Dim, len(x), sweeps, st)
	if err != nil {
		return nil, err
	}
	sh, err := tr.shape(s.m.Dim, chains)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	prec := s.prec != nil
	s.mu.Unlock()
	if prec { // refused before any sweep, with no records to make as with them
		return nil, errPrecisionTrace
	}
	n := Records(tr.Thin, st.Sweep, sweeps)
	if n == 0 {
		if err := s.Sweep(x, sweeps, st); err != nil {
			return nil, err
		}
		return mcstat.NewMoments(sh.cols)
	}
	t, err := s.sweepHostTraced(x, sweeps, st, tr, chains, n)
	if err != nil {
		return nil, err
	}
	defer t.Free()
	return s.TraceMoments(t)
}

// SweepMoments is SweepTrace whose records are reduced to their count,
// mean and covariance (TraceMoments) instead of returned: the GPU
// sampler's SweepMoments, bit for bit. It sweeps from record to record and
// reduces each record as it is made, so it holds one record at a time.
func (r *Reference[T]) SweepMoments(x []T, sweeps int, st Stream, tr Trace) (*mcstat.Moments, error) {
	if err := r.ready("SweepMoments"); err != nil {
		return nil, err
	}
	chains, err := checkSweepArgs(r.dim, len(x), sweeps, st)
	if err != nil {
		return nil, err
	}
	sh, err := tr.shape(r.dim, chains)
	if err != nil {
		return nil, err
	}
	if r.prec != nil { // refused before the linear term's shifts touch x
		return nil, errPrecisionTrace
	}
	if sh.cols > MaxTraceCoords { // a twin may have any dim
		return nil, fmt.Errorf("gibbsrt: a trace of %d coordinates; moments reduce at most MaxTraceCoords (%d)", sh.cols, MaxTraceCoords)
	}
	records := Records(tr.Thin, st.Sweep, sweeps)
	rows, ok := mulInts(records, sh.rows)
	if !ok {
		return nil, fmt.Errorf("gibbsrt: %d records of %d chains: more rows than an int holds", records, sh.rows)
	}
	m := newRowMoments[T](rows, sh.cols)
	record := make([]T, sh.size(1))
	// A linear term's shifts come off once and go back once, as around
	// the GPU's one launch.
	var lin []T
	if chains > 0 && sweeps > 0 {
		if lin, err = r.linearFor(chains); err != nil {
			return nil, err
		}
	}
	shiftChain(x, lin, true)
	defer shiftChain(x, lin, false)
	for done := 0; done < sweeps; {
		s := st.Sweep + uint64(done)
		n := min(sweeps-done, tr.Thin-int(s%uint64(tr.Thin))) // through the next recorded sweep
		part := st
		part.Sweep = s
		got, err := r.sweepShifted(x, n, part, &tr, record, chebyshevRun[T]{}, false)
		if err != nil {
			return nil, err
		}
		m.add(record[:sh.size(got)])
		done += n
	}
	return m.moments()
}
