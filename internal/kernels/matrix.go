package kernels

import "fmt"

// The matrix strategy runs every pass of a sweep as one affine map of the
// state and the pass's normals, x' = M·x + c + N·z (docs/ARITHMETIC.md,
// "The matrix form"): every output coordinate of every chain is then independent of
// the others within the pass, so no coordinate waits for the one before.
// A block holds the state of MatrixShape.Chains chains in shared memory
// (k-major: element (k, c) at k·Chains + c); each thread owns RI
// consecutive coordinates of RC consecutive chains and accumulates them in
// registers, its rows of the tables in registers too where they fit, else
// read through the L1 and L2 caches, which every block shares. The normals
// are drawn a tile of ZTile coordinates at a time into a small shared
// buffer, so that shared memory grows with dim·Chains, not twice that.

// MatrixExactKind is the Ext entry point's kind that draws exact samples
// with the matrix strategy: x = mu + N_exact·z, the normals those of a
// forward pass at the sweep (docs/ARITHMETIC.md, "Exact draws"). Other
// strategies accept only the sweep kinds (mixing.Sweep: Forward, Backward
// and Symmetric, 0 to 2).
const MatrixExactKind = 3

// MatrixFrames is the number of frames of the matrix tables c and N:
// forward passes, backward passes and exact draws; M has the first two.
const MatrixFrames = 3

// matrixZTile is the number of coordinates whose normals a block draws at
// once beyond the register-resident shapes (a multiple of 4, the Philox
// group).
const matrixZTile = 32

// matrixRegisterBytes is the most a thread's rows of M and N may take to be
// held in registers: 128 registers, half of what a thread may have.
const matrixRegisterBytes = 512

// MatrixMaxShared is the most dynamic shared memory the matrix kernel
// asks for: with the normal table's 8 KB it stays within the 64 KB a
// block may have on sm_75, the oldest default target.
const MatrixMaxShared = 48 << 10

// MatrixBlocksPerSM caps the matrix kernel's grid: 32 blocks per
// multiprocessor, as many as sm_80 and sm_90 keep resident, so a full
// device never waits on the cap, while a block of a large batch runs many
// groups of chains and stages the normal table and its table rows once for
// all of them (at B = 1M and dim 32, 65,536 blocks each staged 8 KB for one
// exact draw of 16 chains: docs/log/BENCHMARKS-runs.md, run 17).
const MatrixBlocksPerSM = 32

// MatrixShape is the matrix kernel's shape for one dim and dtype.
type MatrixShape struct {
	// Registers: a thread per coordinate holds its rows of M and N in
	// registers (RI = 1), and the normals of a pass are one tile.
	Registers bool
	RI, RC    int // coordinates and chains per thread
	TX, TY    int // threads along coordinates (ceil(dim/RI)) and along chains
	Threads   int // TX·TY
	Chains    int // chains per block: TY·RC
	Stride    int // a table row's padded length: TX·RI
	Shared    int // dynamic shared memory in bytes: the state and a normal tile
	ZTile     int // positions per tile of normals
}

// MatrixShapeOf returns the matrix kernel's shape for dim and dt. Where a
// thread's rows of M and N fit 128 registers (dim 64 in float32, 32 in
// float64) a thread owns one coordinate of 4 chains and holds its rows in
// registers, so that a sweep reads no table: ncu showed the 2×4 register
// tile with its tables in L1 at dim 32, B = 4096 bound by latency with a
// warp per scheduler (docs/log/BENCHMARKS-runs.md, run 14). Beyond, a thread owns a
// register tile of 8 coordinates by 8 chains (8 by 4 in float64, where 8
// by 8 spilled), so that each table element read serves 8 FMAs (ncu showed
// a 4×4 tile at dims 128 and 1024 bound by L1 traffic and issue slots).
// Blocks have 128 threads up to dim 64 (small dims need many blocks to fill
// the GPU at a few thousand chains), 256 beyond, and as many chains as that
// gives, halved (then RC halved) until the state and a tile of normals fit
// MatrixMaxShared. In float64 up to dim 256 the tile stays 4×4 with 256
// threads: at dim 128 it ran 5.7 ms per sweep at B = 1M against 9.2 ms for
// 8×4 with 128 (runs 14 and 15).
func MatrixShapeOf(dim int, dt DType) MatrixShape {
	regs := 2*dim*dt.Size() <= matrixRegisterBytes
	ri, rc, zt := 8, 8, matrixZTile
	switch {
	case regs:
		ri, rc, zt = 1, 4, (dim+3)&^3
	case dim <= 64, dt == Float64 && dim <= 256:
		ri, rc = 4, 4
	case dt == Float64:
		rc = 4
	}
	tx := (dim + ri - 1) / ri
	threads := 128
	if dim > 64 {
		threads = 256
	}
	ty := max(1, threads/tx)
	for ty > 1 && matrixShared(dim, ty*rc, zt, dt) > MatrixMaxShared {
		ty /= 2
	}
	for rc > 1 && matrixShared(dim, ty*rc, zt, dt) > MatrixMaxShared {
		rc /= 2
	}
	return MatrixShape{Registers: regs, RI: ri, RC: rc, TX: tx, TY: ty, Threads: tx * ty, Chains: ty * rc,
		Stride: tx * ri, Shared: matrixShared(dim, ty*rc, zt, dt), ZTile: zt}
}

func matrixShared(dim, chains, ztile int, dt DType) int {
	return (dim + ztile) * chains * dt.Size()
}

// MatrixAt is the matrix kernel's layout function: where its tables
// gibbs_mat_m and gibbs_mat_n hold entry (i, k) of frame f's matrix, M_f or
// N_f, at dim with rows of stride (MatrixShape.Stride) elements. They are
// transposed, row k holding column k, so that a thread's consecutive
// positions i are consecutive addresses. The runtime builds its tables,
// and the twin reads them, through it.
func MatrixAt(dim, stride, f, i, k int) int { return (f*dim+k)*stride + i }

// MatrixVectorAt is where gibbs_mat_c holds entry i of frame f's c.
func MatrixVectorAt(stride, f, i int) int { return f*stride + i }

// MatrixBlock is what the matrix kernel's template block reads as .Shape:
// its shape and the Ext kind of an exact draw.
type MatrixBlock struct {
	MatrixShape
	ExactKind int
}

// The matrix kernel's tables (docs/ARITHMETIC.md, "The matrix form").
const (
	SymbolMatM = "gibbs_mat_m" // __device__, [2][dim][MatrixShape.Stride]
	SymbolMatN = "gibbs_mat_n" // __device__, [3][dim][MatrixShape.Stride]
	SymbolMatC = "gibbs_mat_c" // __device__, [3][MatrixShape.Stride]
)

// matrixTables are the matrix kernel's tables, declared by its row. The
// runtime's source, gibbsrt.MatrixTables, is built in their layout
// (MatrixAt, MatrixVectorAt), which the twin reads too. They are
// computed on demand: an O(dim³) solve (1.1 s at dim 1024 on 2 cores,
// against the model's checks' 0.09 s) that a package's other strategies
// do not need.
var matrixTables = func() []Symbol {
	// The padded row length depends on the dtype: a thread's rows fit its
	// registers at twice the dim in float32 (dim 33: 33 in float32, 36 in
	// float64).
	stride := Extent{"GG_MST", func(d int, dt DType) int { return MatrixShapeOf(d, dt).Stride }}
	dim := extentDim
	return []Symbol{
		{Name: SymbolMatM, Space: "global", Frames: 2, Extents: []Extent{dim, stride}, Source: SourceMatM, OnDemand: true,
			Meaning: func(d int, dt DType) string {
				return fmt.Sprintf("the matrix form's state matrices, transposed: M_f[i][k] at (f*%d + k)*%d + i, i and k positions of frame f (0: forward passes, position p is coordinate p; 1: backward passes, position p is coordinate dim-1-p; README, \"The matrix form\"); 0 for i >= %d", d, stride.Of(d, dt), d)
			}},
		{Name: SymbolMatN, Space: "global", Frames: MatrixFrames, Extents: []Extent{dim, stride}, Source: SourceMatN, OnDemand: true,
			Meaning: func(d int, dt DType) string {
				return fmt.Sprintf("the matrix form's noise matrices, transposed: N_f[i][p] at (f*%d + p)*%d + i, i and p positions of frame f (0 forward, 1 backward, as gibbs_mat_m; 2 exact draws, in coordinate order), lower triangular in every frame, p the position whose normal it weighs; 0 for i >= %d", d, stride.Of(d, dt), d)
			}},
		{Name: SymbolMatC, Space: "global", Frames: MatrixFrames, Extents: []Extent{stride}, Source: SourceMatC, OnDemand: true,
			Meaning: func(d int, dt DType) string {
				return fmt.Sprintf("the matrix form's offsets c_f[i] at f*%d + i, i a position of frame f (frame 2: mu); 0 for i >= %d", stride.Of(d, dt), d)
			}},
	}
}()
