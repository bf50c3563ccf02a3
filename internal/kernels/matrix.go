package kernels

// The matrix strategy runs every pass of a sweep as one affine map of the
// state and the pass's normals, x' = M·x + c + N·z (README, "The matrix
// form"): every output coordinate of every chain is then independent of
// the others within the pass, so no coordinate waits for the one before.
// A block holds the state of MatrixShape.Chains chains in shared memory
// (k-major: element (k, c) at k·Chains + c); each thread owns RI
// consecutive coordinates of RC consecutive chains and accumulates them in
// registers, reading the tables, which every block shares, through the L1
// and L2 caches. The normals are drawn a tile of ZTile coordinates at a
// time into a small shared buffer, so that shared memory grows with dim·
// Chains, not twice that.

// MatrixSweepKind is the Ext entry point's kind that draws exact samples
// with the matrix strategy: x = mu + N_exact·z, the normals those of a
// forward pass at the sweep (README, "Exact draws"). Other strategies
// accept only Forward, Backward and Symmetric.
const MatrixExactKind = 3

// MatrixFrames is the number of frames of the matrix tables c and N:
// forward passes, backward passes and exact draws; M has the first two.
const MatrixFrames = 3

// MatrixZTile is the number of coordinates whose normals a block draws at
// once (a multiple of 4, the Philox group).
const MatrixZTile = 32

// MatrixMaxShared is the most dynamic shared memory the matrix kernel
// asks for: with the normal table's 8 KB it stays within the 64 KB a
// block may have on sm_75, the oldest default target.
const MatrixMaxShared = 48 << 10

// MatrixShape is the matrix kernel's shape for one dim and dtype.
type MatrixShape struct {
	RI, RC  int // coordinates and chains per thread
	TX, TY  int // threads along coordinates (ceil(dim/RI)) and along chains
	Threads int // TX·TY
	Chains  int // chains per block: TY·RC
	Stride  int // a table row's padded length: TX·RI
	Shared  int // dynamic shared memory in bytes: the state and a normal tile
}

// MatrixShapeOf returns the matrix kernel's shape for dim and dt: RI
// coordinates per thread (2 up to dim 48, 4 up to 256, 8 beyond) and RC =
// 4 chains, so that each table element read serves 4 FMAs and each state
// element RI; 128 threads a block up to dim 64 (small dims need many
// blocks to fill the GPU at a few thousand chains), 256 beyond; and as
// many chains a block as that gives, halved until the state fits
// MatrixMaxShared.
func MatrixShapeOf(dim int, dt DType) MatrixShape {
	ri := 8
	switch {
	case dim <= 48:
		ri = 2
	case dim <= 256:
		ri = 4
	}
	rc := 4
	tx := (dim + ri - 1) / ri
	threads := 128
	if dim > 64 {
		threads = 256
	}
	ty := max(1, threads/tx)
	for ty > 1 && matrixShared(dim, ty*rc, dt) > MatrixMaxShared {
		ty /= 2
	}
	for rc > 1 && matrixShared(dim, ty*rc, dt) > MatrixMaxShared {
		rc /= 2
	}
	return MatrixShape{RI: ri, RC: rc, TX: tx, TY: ty, Threads: tx * ty, Chains: ty * rc, Stride: tx * ri,
		Shared: matrixShared(dim, ty*rc, dt)}
}

func matrixShared(dim, chains int, dt DType) int {
	return (dim + MatrixZTile) * chains * dt.Size()
}

// matrixStride is the padded row length of the matrix tables, which does
// not depend on the dtype.
func matrixStride(dim int) int { return MatrixShapeOf(dim, Float32).Stride }
