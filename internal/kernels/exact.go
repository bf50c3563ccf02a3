package kernels

import "fmt"

// The exact-draw kernel computes x = c_2 + N_2·z for a batch of chains as
// one GEMM-shaped product (docs/GUIDE.md, "Exact draws"): the output is a matrix
// of chains × coordinates, the left operand the normals Z (chains ×
// positions), drawn by Philox into shared memory a slab of positions at a
// time and never written to device memory, and the right operand Nᵀ, the
// transposed lower-triangular factor, staged a slab of rows at a time. A
// block owns a tile of BM chains × BN outputs; each thread a register tile
// of RM chains × RN outputs, so every normal it loads from shared memory
// feeds RN FMAs and every table element RM. Each output keeps the one
// summation order of the twin (c[i], then p = 0, 1, ..., i): slabs run in
// increasing p, a thread's accumulators never leave its registers, and
// nothing splits the sum. Slabs past a tile's last output are skipped (N is
// lower triangular), and within the diagonal slab each FMA is predicated on
// p ≤ i, as the twin stops at i.

// exactMaxShared is the most static shared memory the exact kernel's
// slabs and output staging may take: with the normal table's 8 KB the
// block stays within the 48 KB of static shared memory every target
// allows.
const exactMaxShared = 40 << 10

// ExactShape is the exact-draw kernel's shape for one dim and dtype.
type ExactShape struct {
	RM, RN  int // chains and outputs of a thread's register tile
	TX, TY  int // threads along outputs and along chains
	Threads int // TX·TY
	BM, BN  int // chains and outputs of a block's tile: TY·RM, TX·RN
	BK      int // positions per slab (a multiple of 4, the Philox group)
	Tiles   int // output tiles of a chain group: ceil(dim/BN)
	// Pad pads the rows of BN outputs through which the block stores its
	// tile, 4·TY chains at a time, so that each chain's stores are
	// coalesced: 16 bytes, which makes a row an odd number of 16-byte
	// vectors and the threads' vector stores into it free of bank
	// conflicts.
	Pad    int
	Shared int // static shared memory for the slabs or the staged outputs, bytes
	// Prefetch: a thread loads its share of the next slab of N into
	// registers before it sums the current one, so that the loads' latency
	// hides behind the sums (dims 65 to 512; elsewhere it made ptxas spill
	// or gained nothing).
	Prefetch bool
	// Unroll is the unrolling of a slab's loop over positions: where it
	// was 8 at large tiles, ptxas issued the loads of 8 positions ahead and
	// spilled.
	Unroll int
	// MinBlocks is the blocks per multiprocessor the kernel asks ptxas to
	// fit (__launch_bounds__), from a register budget: 96 registers a
	// thread up to dim 64 in float32 where the threads along coordinates
	// are a power of two (five blocks of 128 threads), 128 otherwise. With the bound of its threads alone it took 143 to 187
	// registers at dims 64 to 1024, one block of 8 warps a multiprocessor.
	// The runtime caps the grid at MinBlocks blocks a multiprocessor.
	MinBlocks int
}

// exactPlan is what ExactShapeOf chooses for a range of dims: chains a
// thread (RM), the most threads along chains (a power of two), threads a
// block, the registers a thread may have (MinBlocks follows), positions a
// slab, and whether the next slab of N waits in registers.
type exactPlan struct {
	rm, tyMax, threads, regs, bk, unroll int
	prefetch                             bool
}

// exactPlans are the plans by dim, each up to its dim. Run 27
// (docs/log/BENCHMARKS-runs.md) measured three sets on an H200: 8 chains a thread
// beyond dim 64 (168 registers, three blocks of 4 warps an SM) ran 1.3 to
// 1.8 times slower than these 4-chain shapes at dims 128 to 1024, and up
// to dim 64 these ran as fast as 128 registers and 8-position unrolling.
var exactPlans = []struct {
	upTo int
	plan exactPlan
}{
	{16, exactPlan{rm: 4, tyMax: 128, threads: 128, regs: 102, bk: 0, unroll: 4, prefetch: false}},
	{64, exactPlan{rm: 4, tyMax: 32, threads: 128, regs: 102, bk: 0, unroll: 4, prefetch: false}},
	{512, exactPlan{rm: 4, tyMax: 16, threads: 256, regs: 128, bk: 16, unroll: 8, prefetch: true}},
	{TileMaxDim, exactPlan{rm: 4, tyMax: 8, threads: 256, regs: 128, bk: 8, unroll: 4, prefetch: false}},
}

// ExactShapeOf returns the exact-draw kernel's shape for dim and dt from
// its plan (exactPlans): a thread's register tile is RM chains by 8
// coordinates (4 in float64; the normals stay float32 in shared memory in
// either dtype); a tile has at most 128 coordinates, 256 in float32 beyond
// dim 512, where each tile draws again the normals of all the positions
// before its last coordinate (a wider tile draws them fewer times); up to
// dim 64 a slab holds every position (at most 32). The threads along
// chains, TY, are a power of two and fastest in the block, so that a warp
// spans one or a few threads along coordinates and skips the upper
// triangle's slabs as a whole (ncu of a shape whose warps spanned 32 of
// them: 22.7 of 32 lanes active, docs/log/BENCHMARKS-runs.md, run 27a); TY is
// halved until the slabs and the staged outputs fit.
func ExactShapeOf(dim int, dt DType) ExactShape {
	var pl exactPlan
	for _, e := range exactPlans {
		if pl = e.plan; dim <= e.upTo {
			break
		}
	}
	rn := 8
	if dt == Float64 {
		rn = 4
		pl.regs = max(pl.regs, 128) // at 102 (96), dims 5 to 32 spilled
	}
	bnMax := 128
	if dim > 512 && dt == Float32 {
		bnMax = 256
	}
	tx := min((dim+rn-1)/rn, bnMax/rn)
	ty := 1
	for ty*2 <= pl.tyMax && tx*ty*2 <= pl.threads {
		ty *= 2
	}
	if pl.bk == 0 {
		pl.bk = min(32, (dim+3)&^3)
	}
	if tx&(tx-1) != 0 {
		// Threads along coordinates that are not a power of two: at 96
		// registers float32 dims 33 to 40 and 49 to 56 spilled (nvcc
		// 11.8, sm_75 to sm_90; docs/log/BENCHMARKS-runs.md, after run 27d).
		pl.regs = max(pl.regs, 128)
	}
	s := exactShape(dim, dt, pl, rn, tx, ty)
	for s.Shared > exactMaxShared && s.TY > 1 {
		s = exactShape(dim, dt, pl, rn, tx, s.TY/2)
	}
	return s
}

func exactShape(dim int, dt DType, pl exactPlan, rn, tx, ty int) ExactShape {
	s := ExactShape{RM: pl.rm, RN: rn, TX: tx, TY: ty, Threads: tx * ty, BM: ty * pl.rm, BN: tx * rn, BK: pl.bk}
	s.Tiles = (dim + s.BN - 1) / s.BN
	s.Pad = 16 / dt.Size()
	s.Shared = max(s.BK*s.BM*4+s.BK*s.BN*dt.Size(), 4*s.TY*(s.BN+s.Pad)*dt.Size())
	// Registers are allocated to whole warps: count a block's threads so.
	s.MinBlocks = max(1, 65536/((s.Threads+31)/32*32*pl.regs))
	s.Unroll = pl.unroll
	s.Prefetch = pl.prefetch
	return s
}

// exactGeometry is the exact kernel's launch: a group of BM chains a
// block, Tiles blocks a group, the grid capped at the MinBlocks blocks a
// multiprocessor that its launch bounds keep resident. A block loops over
// its work items (a group and a tile), so that a batch of a million chains
// stages the normal table once a resident block, not once per group.
func exactGeometry(dim int, dt DType) Geometry {
	s := ExactShapeOf(dim, dt)
	return loopingGeometry(s.BM, s.Threads, s.Tiles, s.MinBlocks,
		fmt.Sprintf("a thread per %d chains × %d coordinates, %d coordinates a tile", s.RM, s.RN, s.BN))
}

// loopingGeometry is the launch of a kernel whose blocks loop over work
// items of a group of perBlock chains and one of tiles tiles, its grid
// capped at perSM blocks a multiprocessor.
func loopingGeometry(perBlock, threads, tiles, perSM int, note string) Geometry {
	return Geometry{Unit: "chains", PerBlock: perBlock, Threads: threads, Tiles: tiles, PerSM: perSM, Loops: true, Note: note}
}

// exactParams is the exact kernel's argument list: the state it
// overwrites and the stream (the normals of a forward sweep at sweep0).
var exactParams = []Param{
	{Name: "x", Kind: RealP}, {Name: "chains", Kind: U64},
	{Name: "seed", Kind: U64}, {Name: "sweep0", Kind: U64, Break: true}, {Name: "chain0", Kind: U64},
}

// The chain-per-thread exact kernel (gibbs_exact_chain) computes the same
// draws, bit for bit, with a chain per thread: the sums of a chain's
// coordinates in registers, frame 2 of N and c staged once a block in
// shared memory, each 16-byte load of N (the same address across the
// warp) feeding four fmas (two in float64), and each normal drawn once.
// The tiled kernel draws the normals into shared memory and reads them
// back, a register tile at a time, and stages its outputs through shared
// memory between barriers; at dims the thread-per-chain kernels support
// (threadDims) the chain-per-thread kernel does neither.

// ExactChainShape is the chain-per-thread exact kernel's shape for one dim
// and dtype.
type ExactChainShape struct {
	// MinBlocks is the blocks of ThreadBlock threads a multiprocessor
	// should hold (__launch_bounds__), from a register budget of the
	// sums (dim values, two registers each in float64) and 72 registers
	// for Philox, the normal transform, the loads of N in flight and
	// addressing: 3 blocks at dim 64 in float32 (at most 170 registers),
	// 5 at dim 32. With 48, ptxas (nvcc 11.8, sm_90) spilled 8 to 44 bytes
	// at float32 dims 48, 57 and 64 and float64 dim 32. The grid is the
	// blocks resident at once (Geometry.PlainLoops), each looping over
	// groups of chains.
	MinBlocks int
}

// ExactChainShapeOf returns the chain-per-thread exact kernel's shape.
func ExactChainShapeOf(dim int, dt DType) ExactChainShape {
	regs := (dim*dt.Size()/4 + 48 + 7) &^ 7
	return ExactChainShape{MinBlocks: min(8, 65536/(ThreadBlock*regs))}
}

// exactChainGeometry is the chain-per-thread exact kernel's launch: a
// chain per thread, the grid the blocks resident at once, each looping
// over its groups of ThreadBlock chains.
func exactChainGeometry(int, DType) Geometry {
	return Geometry{Unit: "chains", PerBlock: ThreadBlock, Threads: ThreadBlock, PlainLoops: true, Note: "a chain per thread"}
}

// The GEMM-shaped exact kernel (gibbs_exact_gemm) computes the same draws,
// bit for bit, as a product with the structure of a SIMT SGEMM: a block
// owns a tile of BM = 128 chains by BN coordinates and a thread a register
// tile of TM = 8 chains by TN coordinates (64 or 32 sums), so that each
// normal it loads from shared memory feeds TN fmas and each element of N
// TM. The K dimension (the positions) runs in slabs of BK = 8, double
// buffered in shared memory: each thread loads its BK·BN/256 elements of
// slab s+1 of N into registers before it sums slab s, so that the loads'
// latency hides behind the sums, and after them stores those and one
// Philox group of slab s+1's normals into the other buffer; one barrier a
// slab. Every thread draws one Philox group a slab, so no warp waits on a
// few others' draws. The tiles of a group of chains
// are paired, the longest with the shortest (N is lower triangular: tile t
// has (t+1)·BN positions), so that every work item has about the same
// length.

// ExactGemmMinDim is the least dim the GEMM-shaped kernel is generated
// for: below, the chain-per-thread kernels hold a chain's sums in
// registers and its tiles of 128 chains by up to 128 coordinates would be
// mostly padding.
const ExactGemmMinDim = 65

// ExactGemmShape is the GEMM-shaped exact kernel's shape for one dim and
// dtype.
type ExactGemmShape struct {
	TM, TN     int // chains and coordinates of a thread's register tile
	TY, TX     int // threads along chains (fastest in the block) and along coordinates
	Threads    int // TY·TX
	BM, BN, BK int // chains and coordinates of a block's tile; positions a slab
	Tiles      int // coordinate tiles of a group of chains: ceil(dim/BN)
	Pairs      int // work items of a group: the tiles paired longest with shortest, ceil(Tiles/2)
	NL         int // elements of N a thread loads a slab: BK·BN/Threads
	MinBlocks  int // blocks a multiprocessor should hold (__launch_bounds__): 128 registers a thread
}

// ExactGemmShapeOf returns the GEMM-shaped exact kernel's shape: 16 by 16
// threads, 8 chains by 8 coordinates a thread in float32 (4 in float64, so
// that the sums take the same 64 registers), slabs of 8 positions.
func ExactGemmShapeOf(dim int, dt DType) ExactGemmShape {
	s := ExactGemmShape{TM: 8, TN: 8, TY: 16, TX: 16, BK: 8, MinBlocks: 2}
	if dt == Float64 {
		s.TN = 4
	}
	s.Threads = s.TY * s.TX
	s.BM, s.BN = s.TY*s.TM, s.TX*s.TN
	s.Tiles = (dim + s.BN - 1) / s.BN
	s.Pairs = (s.Tiles + 1) / 2
	s.NL = s.BK * s.BN / s.Threads
	return s
}

// exactGemmGeometry is the GEMM-shaped kernel's launch: BM chains a
// block, Pairs work items a group, the grid capped at MinBlocks blocks a
// multiprocessor, each block looping over its work items.
func exactGemmGeometry(dim int, dt DType) Geometry {
	s := ExactGemmShapeOf(dim, dt)
	return loopingGeometry(s.BM, s.Threads, s.Pairs, s.MinBlocks,
		fmt.Sprintf("a thread per %d chains × %d coordinates, %d coordinates a tile, two tiles a work item", s.TM, s.TN, s.BN))
}

// ExactLoopChains returns a batch at which every exact kernel's blocks
// each run several work items on any device of up to 132 multiprocessors
// (the GPU suites draw it, so that each block's loop runs): each grid is
// MinBlocks blocks a multiprocessor, and a work item a group of BM chains
// and a tile (gibbs_exact) or a pair of tiles (gibbs_exact_gemm).
// TestExactLoopChains checks it against every dim's shapes. Smaller beyond
// dim 64, where the twin's draws cost dim² a chain; not a multiple of a
// group.
func ExactLoopChains(dim int) int {
	switch {
	case dim <= 64:
		return 600_003
	case dim <= 256:
		return 40_003
	}
	return 20_003
}

// The resident-triangle exact kernel (gibbs_exact_tri) computes the same
// draws, bit for bit, with the whole lower triangle of N held in shared
// memory for the block's life and a group's normals drawn before its sums:
// no barrier inside the sums, no slab of N reloaded per group. A block
// runs groups of BM chains: its threads first draw every normal of the
// group (BM·DP/4 Philox groups in turn) into shared memory, then, after one
// barrier, each warp runs over the positions its coordinates need, reading
// normals and rows of N from shared memory, with no barrier until the
// group ends. A thread's register tile is 8 chains by 8 coordinates: 4
// from the low half of the padded coordinates (4·tx..) and 4 mirrored from
// the high half (DP-4-4·tx..), so that every warp sums about the same
// number of terms (a warp of the low coordinates alone would sum few, one
// of the high ones many, and the group would wait on the longest). Each
// output keeps the twin's order: c[i], then p = 0, 1, ..., i; a slab of 8
// positions holding one of the warp's coordinates predicates each fma on
// p ≤ i, the slabs before it count in full, those after are skipped.

// ExactTriMinDim and ExactTriMaxDim bound the dims the resident-triangle
// kernel is generated for, in float32 only: from the first dim past the chain-per-thread
// kernels to the largest whose triangle and group of normals fit one
// block's shared memory on sm_90 (227 KB). In float64 a thread's 64 sums
// would take 128 registers alone.
const (
	ExactTriMinDim = 65
	ExactTriMaxDim = 256
)

// exactTriSharedTwo is the dynamic shared memory a block may take so that
// two blocks, each with the normal table's 8 KB and the 1 KB the driver
// keeps, fit the 228 KB of an sm_90 multiprocessor; exactTriSharedOne so
// that one does, within the 227 KB a block may opt in to.
const (
	exactTriSharedTwo = 104 << 10
	exactTriSharedOne = 218 << 10
)

// ExactTriShape is the resident-triangle exact kernel's shape for a dim.
type ExactTriShape struct {
	TY, TX    int // threads along chains (fastest in the block) and along coordinates, 8 coordinates each
	Threads   int // TY·TX
	BM        int // chains a group: 8·TY
	DP        int // coordinates padded: 8·TX, a multiple of 16 that two halves of whole warps cover
	NPack     int // elements of the packed triangle: row p holds coordinates (p & ~7) to DP-1
	Shared    int // dynamic shared memory: the packed triangle and BM·DP normals, bytes
	MinBlocks int // blocks a multiprocessor holds (__launch_bounds__): 2 where they fit, else 1
}

// ExactTriShapeOf returns the resident-triangle kernel's shape: 16
// threads along chains (groups of 128), two blocks a multiprocessor where
// they fit (to dim 128), else one; beyond dim 224, 8 threads along chains
// (groups of 64, one block).
func ExactTriShapeOf(dim int) ExactTriShape {
	s := exactTriShape(dim, 16)
	if s.Shared > exactTriSharedTwo {
		s.MinBlocks = 1
	}
	if s.Shared > exactTriSharedOne {
		s = exactTriShape(dim, 8)
		s.MinBlocks = 1
	}
	return s
}

func exactTriShape(dim, ty int) ExactTriShape {
	wtx := 32 / ty // threads along coordinates a warp spans
	tx := ((dim+7)/8 + 2*wtx - 1) / (2 * wtx) * (2 * wtx)
	s := ExactTriShape{TY: ty, TX: tx, Threads: ty * tx, BM: 8 * ty, DP: 8 * tx, MinBlocks: 2}
	slabs := s.DP / 8
	s.NPack = 8 * (s.DP*slabs - 4*slabs*(slabs-1))
	s.Shared = 4 * (s.NPack + s.DP*s.BM)
	return s
}

// exactTriGeometry is the resident-triangle kernel's launch: BM chains a
// group, the grid the MinBlocks blocks a multiprocessor holds, each
// looping over its groups.
func exactTriGeometry(dim int, _ DType) Geometry {
	s := ExactTriShapeOf(dim)
	return Geometry{Unit: "chains", PerBlock: s.BM, Threads: s.Threads, Shared: s.Shared, PerSM: s.MinBlocks, Loops: true,
		Note: fmt.Sprintf("a thread per 8 chains × 8 coordinates (4 low, 4 mirrored high), the triangle of N resident in shared memory, %d coordinates padded", s.DP)}
}

// ExactTriWaves is the least batch, in waves of gibbs_exact_tri's groups
// (MinBlocks blocks of BM chains on every multiprocessor), at which Auto
// prefers it: the last wave's idle blocks then cost at most an eighth.
const ExactTriWaves = 8

// exactTriPrefer says whether Auto takes gibbs_exact_tri at s: float32
// where two blocks share a multiprocessor (to dim 128), and at least
// ExactTriWaves waves of groups (a device of unknown size counts as 132
// multiprocessors).
func exactTriPrefer(s Shape) bool {
	if s.DType != Float32 || s.Dim < ExactTriMinDim || s.Dim > ExactTriMaxDim {
		return false
	}
	t, sms := ExactTriShapeOf(s.Dim), s.Multiprocessors
	if t.MinBlocks < 2 {
		return false
	}
	if sms <= 0 {
		sms = 132
	}
	return s.Chains >= ExactTriWaves*t.MinBlocks*sms*t.BM
}
