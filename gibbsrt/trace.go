package gibbsrt

import (
	"fmt"
	"math"
)

// Trace selects the states a sweep call records, without a launch or a
// copy of the whole state per record.
//
// A call records after every sweep whose absolute index s (Stream.Sweep
// plus its position in the call) has (s+1) % Thin == 0, so splitting sweeps
// into calls does not change what is recorded. Record r of a call (from 0)
// holds, for the traced chains c = FirstChain, …, FirstChain+Chains-1
// (indices within the call) and the traced coordinates Coords[0..K-1],
//
//	out[(r*Chains + c-FirstChain)*K + k] = x_c[Coords[k]]
//
// a row-major [records][Chains][K] array: each record is a state restricted
// to the traced chains and coordinates.
type Trace struct {
	Thin       int   // at least 1
	FirstChain int   // first traced chain of the call
	Chains     int   // number of traced chains; 0 means every chain from FirstChain on
	Coords     []int // traced coordinates, increasing; empty (nil or length 0) means all
}

// traceShape is a Trace resolved for one dim and chain count.
type traceShape struct {
	thin, first, rows, cols int
	index                   []uint32 // per coordinate: its column, or noColumn
}

const noColumn = math.MaxUint32

// shape checks t against a call of chains chains of dim dim.
func (t Trace) shape(dim, chains int) (traceShape, error) {
	if t.Thin < 1 || t.Thin > math.MaxUint32 {
		return traceShape{}, fmt.Errorf("gibbsrt: trace Thin = %d; it must be from 1 to %d", t.Thin, uint32(math.MaxUint32))
	}
	if t.FirstChain < 0 || t.Chains < 0 {
		return traceShape{}, fmt.Errorf("gibbsrt: trace FirstChain = %d, Chains = %d; both must be >= 0", t.FirstChain, t.Chains)
	}
	if chains < 1 || t.FirstChain >= chains {
		return traceShape{}, fmt.Errorf("gibbsrt: trace FirstChain = %d, but the call has %d chains", t.FirstChain, chains)
	}
	rows := t.Chains
	if rows == 0 {
		rows = chains - t.FirstChain
	}
	if rows > chains-t.FirstChain { // no overflow: both are in 0..chains
		return traceShape{}, fmt.Errorf("gibbsrt: trace of chains %d..%d, but the call has chains 0..%d", t.FirstChain, uint64(t.FirstChain)+uint64(rows)-1, chains-1)
	}
	sh := traceShape{thin: t.Thin, first: t.FirstChain, rows: rows, index: make([]uint32, dim)}
	for i := range sh.index {
		sh.index[i] = noColumn
	}
	if len(t.Coords) == 0 { // a selection left empty selects all, as Chains = 0 does
		for i := range sh.index {
			sh.index[i] = uint32(i)
		}
		sh.cols = dim
		return sh, nil
	}
	for k, i := range t.Coords {
		if i < 0 || i >= dim {
			return traceShape{}, fmt.Errorf("gibbsrt: trace coordinate %d is outside 0..%d", i, dim-1)
		}
		if k > 0 && i <= t.Coords[k-1] {
			return traceShape{}, fmt.Errorf("gibbsrt: trace coordinates must increase: %d follows %d", i, t.Coords[k-1])
		}
		sh.index[i] = uint32(k)
	}
	sh.cols = len(t.Coords)
	return sh, nil
}

// Records returns how many states a call of sweeps sweeps from absolute
// sweep sweep0 records with thinning thin.
func Records(thin int, sweep0 uint64, sweeps int) int {
	if thin < 1 {
		return 0
	}
	t := uint64(thin)
	return int((sweep0+uint64(sweeps))/t - sweep0/t)
}

// record writes chain c's traced coordinates into record r of out.
func record[T Float](sh traceShape, out []T, r, c int, x []T) {
	row := out[(r*sh.rows+c-sh.first)*sh.cols:]
	for i, col := range sh.index {
		if col != noColumn {
			row[col] = x[i]
		}
	}
}

// coords returns the coordinate of each column.
func (sh traceShape) coords() []uint32 {
	out := make([]uint32, sh.cols)
	for i, col := range sh.index {
		if col != noColumn {
			out[col] = uint32(i)
		}
	}
	return out
}

// traced reports whether chain c of the call is traced.
func (sh traceShape) traced(c int) bool { return c >= sh.first && c < sh.first+sh.rows }

// size is the length of records records.
func (sh traceShape) size(records int) int { return records * sh.rows * sh.cols }
