package kernels

import "fmt"

// The tiled strategy runs a chain on a group of P lanes of a warp: lane l
// of the group holds positions S·l, ..., S·l+S−1 (and their running sums)
// in registers, and every new x_i is broadcast to the group with a
// shuffle. The weights stream through shared memory a tile of rows at a
// time, one copy per block for all its chains, so that no dim² of them has
// to fit anywhere: it runs any dim up to TileMaxDim, in float32 and
// float64. Its loops over positions are runtime loops over the owning lane
// around S unrolled slots: the code has S² statements, not dim².

// TileMaxDim is the largest dim of the tiled strategy: 32 lanes of 32
// slots. A lane's state, sums and normals are then 96 values.
const TileMaxDim = 1024

// TileWarps is the tiled kernel's warps per block: 256 threads share each
// staged tile.
const TileWarps = 8

// TileBytes is the size of one staged tile of weight rows; the kernel
// double-buffers it, 32 KB of shared memory with the normal table's 8 KB.
const TileBytes = 16384

// Tile is the tiled kernel's shape for one dim and dtype.
type Tile struct {
	P, S  int // lanes per chain, slots per lane (a multiple of 4)
	Row   int // a staged row's length: P·S elements
	Rows  int // rows per staged tile
	VW    int // elements per 16-byte vector: 4 (float32), 2 (float64)
	Warps int // warps per block: TileWarps
	Chain int // chains per block: Warps·32/P
}

// TileShape returns the tiled kernel's shape for dim and dt: the fewest
// lanes (of 4, 8, 16, 32) whose slots, at most 16 (32 beyond dim 512),
// hold dim positions. Fewer lanes per chain put more chains in a warp,
// each of whose steps then does more work per shuffle.
func TileShape(dim int, dt DType) Tile {
	p := 4
	for p < 32 && p*16 < dim {
		p *= 2
	}
	s := (dim + 4*p - 1) / (4 * p) * 4 // ceil(dim/p), rounded up to a multiple of 4
	vw := 16 / dt.Size()
	row := p * s
	return Tile{P: p, S: s, Row: row, Rows: max(1, TileBytes/(row*dt.Size())), VW: vw, Warps: TileWarps, Chain: TileWarps * 32 / p}
}

// TileIndex returns where weight k of row j (the weight of position j in
// position k's mean) sits in frame f of the tiled kernel's table, for dim
// dim: rows of t.Row elements, each laid out so that lane l of a group
// reads its slots' weights as 16-byte vectors v = 0, 1, ... at element
// (v·P + l)·VW, consecutive lanes at consecutive addresses.
func (t Tile) TileIndex(dim, f, j, k int) int {
	l, u := k/t.S, k%t.S
	v, c := u/t.VW, u%t.VW
	return (f*dim+j)*t.Row + (v*t.P+l)*t.VW + c
}

// SymbolWeightTile is the tiled kernel's table: the weights of
// gibbs_weight in its own layout (tileTable).
const SymbolWeightTile = "gibbs_weight_tile" // __device__, [2][dim][Tile.Row]

// tileTable is the tiled kernel's table, declared by its row: both frames
// of the weights, rows of Tile.Row elements laid out by TileIndex.
var tileTable = Symbol{
	Name: SymbolWeightTile, Space: "global", Frames: Frames,
	Extents: []Extent{extentDim, {"GG_TROW", func(d int, _ DType) int { return TileShape(d, Float32).Row }}},
	Meaning: func(d int, _ DType) string {
		t := TileShape(d, Float32)
		return fmt.Sprintf("the weights of gibbs_weight by rows of %d elements: weight[f][j][k] at (f*%d + j)*%d + (v*%d + l)*VW + c for k = %d*l + VW*v + c, VW = 4 (float32) or 2 (float64)", t.Row, d, t.Row, t.P, t.S)
	},
	Source: SourceWeight,
	Layout: func(d int, dt DType, put func(dst, src int)) {
		t, st := TileShape(d, dt), Stride(d)
		for f := range Frames {
			for j := range d {
				for k := range d {
					put(t.TileIndex(d, f, j, k), (f*d+j)*st+k)
				}
			}
		}
	},
}
