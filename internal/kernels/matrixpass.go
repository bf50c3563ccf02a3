package kernels

import "fmt"

// The matrix form as a GEMM (issue 28): gibbs_matrix_pass runs one pass of
// the matrix form, y = c_f + M_f·x + N_f·z, over every chain, bit for bit
// the matrix strategy's gg_mpass, with the structure of a SIMT SGEMM
// (CUTLASS's): a block owns a tile of BM chains by BN positions and a
// thread a register tile of TM chains by TN positions, so that each value
// it loads from shared memory feeds TN or TM fmas; K (the positions
// summed) runs in slabs of BK, first over M with the state's slab as the A
// operand, then over N's lower triangle with the normals', drawn by
// Philox as the slab is stored and never written to memory. It reads x
// and writes y, so a tile need not hold a chain's every coordinate and a
// batch of a few thousand chains still fills the GPU; a sweep is then a
// launch a pass, the state going through memory between passes (the
// matrix strategy holds a block's chains in shared memory for a whole
// launch, a block per 32 or 64 chains at dims 128 to 1024).
//
// Packages of the matrix strategy hold it from dim 65 (ExactGemmMinDim),
// where the matrix strategy's thread no longer holds its rows of the
// tables in registers. No GPU has run it yet, so the runtime launches it
// only where a test or the bench asks (gibbstest.SetMatrixPasses); gen's
// TestMatrixPassOnHost runs it under the host emulation, bit for bit
// against the twin's forward, backward and symmetric sweeps, and
// bench/calibrate/matrix_pass.py times its shapes on a device.

// MatrixPassShape is the matrix-form pass kernel's shape for one dim and
// dtype.
type MatrixPassShape struct {
	TM, TN     int // chains and positions of a thread's register tile
	TY, TX     int // threads along chains (fastest in the block) and along positions
	Threads    int // TY·TX
	BM, BN, BK int // chains and positions of a block's tile; positions of K a slab
	Tiles      int // position tiles of a group of chains: ceil(dim/BN)
	NL         int // elements of a table's slab a thread loads: BK·BN/Threads
	MinBlocks  int // blocks a multiprocessor should hold (__launch_bounds__)
}

// MatrixPassShapeOf returns the pass kernel's shape: gibbs_exact_gemm's
// (16 by 16 threads, 8 chains by 8 positions a thread in float32, by 4 in
// float64, slabs of 8), whose A operand's slab is a Philox group of 4
// positions a thread. Two blocks a multiprocessor (128 registers) in
// float32, where ptxas 11.8 spills 16 to 24 bytes (sm_90, dims 128 and
// 1024); one in float64, where at two it spilled 188.
func MatrixPassShapeOf(dim int, dt DType) MatrixPassShape {
	e := ExactGemmShapeOf(dim, dt)
	s := MatrixPassShape{TM: e.TM, TN: e.TN, TY: e.TY, TX: e.TX, Threads: e.Threads, BM: e.BM, BN: e.BN, BK: e.BK,
		Tiles: e.Tiles, NL: e.NL, MinBlocks: e.MinBlocks}
	if dt == Float64 {
		s.MinBlocks = 1
	}
	return s
}

// matrixPassGeometry is the pass kernel's launch: BM chains a block, Tiles
// work items a group, the grid capped at MinBlocks blocks a
// multiprocessor, each block looping over its work items.
func matrixPassGeometry(dim int, dt DType) Geometry {
	s := MatrixPassShapeOf(dim, dt)
	return loopingGeometry(s.BM, s.Threads, s.Tiles, s.MinBlocks,
		fmt.Sprintf("a thread per %d chains × %d positions, %d positions a tile", s.TM, s.TN, s.BN))
}

// matrixPassParams is the pass kernel's argument list: the state it reads,
// the array it writes, the pass's frame (0 forward, 1 backward) and the
// stream of its normals (the pass's sweep index).
var matrixPassParams = []Param{
	{Name: "x", Kind: ConstRealP}, {Name: "y", Kind: RealP}, {Name: "chains", Kind: U64}, {Name: "frame", Kind: U32},
	{Name: "seed", Kind: U64, Break: true}, {Name: "sweep", Kind: U64}, {Name: "chain0", Kind: U64},
}
