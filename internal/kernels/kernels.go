// Package kernels is the one table of a generated module's device entry
// points. Each row says what a kernel is called, which template block
// defines it, its parameters, its launch geometry, the dims and dtypes it
// supports and, for a sweep strategy, when Auto picks it. gen renders,
// compiles and describes the kernels from this table; gibbsrt loads and
// launches them from it. Adding a strategy is one row here, one template
// block in templates/, and its tests (docs/CONTRIBUTING.md, "Adding a
// strategy").
//
// The package imports nothing of this module but the stream
// (gibbsrt/stream, a leaf), so the generator does not link the runtime and
// the runtime does not link the generator.
package kernels

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// Strategy selects how a sweep runs on the GPU. Every strategy draws the
// same random stream in the same arithmetic order, so the choice changes
// speed, never results.
type Strategy int

// The strategies, in the order of their rows. Auto is not a kernel: it asks
// the runtime to choose (see Choose).
const (
	Auto Strategy = iota
	ConstMemory
	SharedMemory
	WarpPerChain
	Specialized
	Tiled
	Matrix
)

func (s Strategy) String() string {
	if s == Auto {
		return "auto"
	}
	if k := ForStrategy(s); k != nil {
		return k.StrategyName
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

// Role is what a kernel does; the runtime launches each role with its own
// argument list.
type Role int

const (
	// Sweep runs sweeps on the Philox stream: one per strategy.
	Sweep Role = iota + 1
	// SweepNoise runs sweeps on caller-supplied normals.
	SweepNoise
	// Normals writes the normals the samplers draw (a test entry point).
	Normals
	// Philox evaluates Philox4x32-10 on given counters (a test entry point).
	Philox
	// Moments reduces recorded states to per-block counts, means and
	// comoments in float64.
	Moments
	// Transform evaluates the normal transform on a range of words (a
	// test entry point).
	Transform
	// Exact draws every chain exactly, x = mu + N·z, from the matrix
	// strategy's tables (docs/GUIDE.md, "Exact draws"): as a tiled product
	// or a chain per thread, the same bits (ChooseExact picks).
	Exact
	// Linear computes each chain's mean shift d_c = Q⁻¹·h_c from a
	// per-chain linear term h (docs/ARITHMETIC.md, "A linear term per
	// chain").
	Linear
	// Shift adds a per-chain shift to, or subtracts it from, the state or
	// the records of a trace: the sweeps of a model with a linear term per
	// chain run on x − d_c and hand back x + d_c.
	Shift
	// Family runs Gibbs sweeps with a precision per chain from a family
	// of matrices (docs/ARITHMETIC.md, "A precision per chain").
	Family
	// FamilyExact draws every chain exactly with its precision per chain:
	// a Cholesky factor per chain (docs/ARITHMETIC.md, "Exact draws with a
	// precision per chain").
	FamilyExact
	// MatrixPass runs one pass of the matrix form over every chain from
	// one state array into another: a sweep a launch a pass.
	MatrixPass
)

// String is the role's name in the manifest.
func (r Role) String() string {
	switch r {
	case Sweep:
		return "sweep"
	case SweepNoise:
		return "sweep_noise"
	case Normals:
		return "normals"
	case Philox:
		return "philox"
	case Moments:
		return "moments"
	case Transform:
		return "transform"
	case Exact:
		return "exact"
	case Linear:
		return "linear"
	case Shift:
		return "shift"
	case Family:
		return "family"
	case FamilyExact:
		return "family_exact"
	case MatrixPass:
		return "matrix_pass"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Shape is what Auto knows about a launch.
type Shape struct {
	Dim, Chains, Sweeps int
	Multiprocessors     int   // of the device
	Ext                 bool  // the launch needs the Ext entry point
	DType               DType // the module's; set for exact draws (ChooseExact)
}

// Geometry is a kernel's launch shape: a 1-D grid of ceil(units/PerBlock)
// blocks of Threads threads. Unit names what the grid counts.
type Geometry struct {
	Unit     string // "chains" or "n"
	PerBlock int    // units per block
	Threads  int    // threads per block
	Shared   int    // dynamic shared memory per block, in bytes
	// PerSM, if > 0, says that a block of the Ext entry point loops over
	// groups of PerBlock units (blockIdx.x, then every gridDim.x-th), so
	// its grid may be smaller than the groups: it is capped at PerSM
	// blocks per multiprocessor, and what a block stages once serves all
	// its groups. The other entry points run one group a block.
	PerSM int
	// Loops says that every entry point's blocks loop over their groups,
	// as the Ext entry point does with PerSM, so that PerSM caps the grid
	// of each.
	Loops bool
	// PlainLoops says that the plain entry point's blocks loop over their
	// groups, as PerSM's do, while its warps copy their next group's rows
	// into shared memory (gg_rows_loop in templates/sampler.cu.tmpl): its
	// grid is capped at the blocks that fit on the multiprocessors at once,
	// which the runtime asks the driver for, since a block that waited for
	// a second wave would run all its groups late.
	PlainLoops bool
	// Tiles, if > 1, splits each group's outputs into tiles, a block (or a
	// work item of a looping block) each: the grid counts groups × Tiles.
	Tiles int
	// ChebyshevShared, if > 0, is the dynamic shared memory per block in
	// which a Chebyshev launch of the Ext entry point may keep its two
	// iterates for the whole launch (ChebyshevOnChip). Launched with less,
	// the entry point keeps them in x and prev, as before.
	ChebyshevShared int
	Note            string // for the manifest, e.g. "one warp per chain"
}

// Blocks returns the grid size for units units: a block per group of
// PerBlock units and output tile.
func (g Geometry) Blocks(units int) int {
	return (units + g.PerBlock - 1) / g.PerBlock * max(1, g.Tiles)
}

// Grid returns the grid size of entry point e over units units on a device
// of sms multiprocessors, each of which holds resident blocks of e at once
// (0: unknown): Blocks, capped at PerSM per multiprocessor where the entry
// point loops over its groups, and at resident where its plain entry point
// does (PlainLoops).
func (g Geometry) Grid(e Entry, units, sms, resident int) int {
	b := g.Blocks(units)
	if (e == EntryExt || g.Loops) && g.PerSM > 0 && sms > 0 {
		b = min(b, g.PerSM*sms)
	}
	if e.Plain() && g.PlainLoops && resident > 0 && sms > 0 {
		b = min(b, resident*sms)
	}
	return b
}

// String describes the geometry as the manifest does.
func (g Geometry) String() string {
	s := fmt.Sprintf("1-D grid of ceil(%s/%d) blocks of %d threads", g.Unit, g.PerBlock, g.Threads)
	if g.Shared > 0 {
		s += fmt.Sprintf(", %d bytes of dynamic shared memory", g.Shared)
	}
	if g.Tiles > 1 {
		s += fmt.Sprintf(", times %d output tiles", g.Tiles)
	}
	switch {
	case g.PerSM > 0 && g.Loops:
		s += fmt.Sprintf(", at most %d blocks per multiprocessor, each looping over its work items (a group of %d and a tile)", g.PerSM, g.PerBlock)
	case g.PerSM > 0:
		s += fmt.Sprintf(", the _ext entry point's at most %d blocks per multiprocessor, each looping over its groups of %d", g.PerSM, g.PerBlock)
	}
	if g.PlainLoops {
		s += ", the plain entry point's at most the blocks that fit on the multiprocessors at once, each looping over its groups"
	}
	if g.ChebyshevShared > 0 {
		s += fmt.Sprintf(", a Chebyshev launch of the _ext entry point up to %d bytes of dynamic shared memory", g.ChebyshevShared)
	}
	if g.Note != "" {
		s += " (" + g.Note + ")"
	}
	return s
}

// Kernel is one row of the table.
type Kernel struct {
	Name  string // extern "C" entry point
	Role  Role
	Block string // the template block in templates/ that defines it
	Doc   string // for the manifest

	// PTX marks a kernel that ships as PTX text instead of in the fatbin:
	// the runtime specializes it to each model and the driver compiles it.
	PTX bool

	// Strategy, StrategyName and GoName (the constant's name in gibbsrt
	// and in generated packages) are set for Role Sweep only.
	Strategy     Strategy
	StrategyName string
	GoName       string
	// Traced is a sweep strategy's second entry point, the same plain
	// sweeps recording states, with parameters TracedParams; Ext is its
	// third, with parameters ExtParams: the sweeps of every scheme (backward
	// and symmetric sweeps, over-relaxation), Chebyshev acceleration, and
	// traces of them (docs/GUIDE.md, "Sweeps"). Separate kernels keep the plain
	// one's code (and registers) as they were, and the traced one's: the
	// Ext arithmetic costs two operations more per coordinate.
	Traced       string
	TracedParams []Param
	Ext          string
	ExtParams    []Param
	// Pulled, for a PTX sweep kernel, is an entry point (EntryPulled):
	// the plain one (parameters Params) with each position's sum pulled
	// rather than pushed, the same bits in other code: faster in launches
	// of few sweeps, slower in long ones (run 39; PullSums). gibbsrt
	// compiles it beside the plain one where a launch is short enough, or
	// in its place where a test asks (its hooks); the manifest does not
	// list it.
	Pulled string
	// Shifted, for a PTX kernel, is an entry point (EntryShifted) with the
	// plain one's parameters and d, a linear term's shifts (a row per
	// chain): a sweep kernel's plain sweeps on x − d, handing back x + d,
	// an exact-draw kernel's draws plus d. It fuses gibbs_shift's passes
	// over the state into the launch, the same bits; gibbsrt launches it
	// only where a test or the bench asks (its hook): run 39 timed it
	// slower than the passes in float32, before a fix of its store that
	// no GPU has timed yet; the manifest does not list it.
	Shifted string

	Params   []Param
	Geometry Geometry
	// GeometryOf, if set, is the launch shape for a dim and dtype, in
	// place of Geometry (the tiled kernel's chains per block depend on it).
	GeometryOf func(dim int, dt DType) Geometry
	// ChebyshevOnChip marks a thread-per-chain strategy whose Ext entry
	// point keeps a Chebyshev launch's iterates in dynamic shared memory
	// when the launch gives it Geometry.ChebyshevShared bytes.
	ChebyshevOnChip bool
	Symbols         []string // the module tables it reads (see Symbols)
	// Tables are the tables of the kernel's own layout, which its template
	// block declares (see Symbols).
	Tables []Symbol
	// Shape, if set, is what its template block reads as .Shape for a dim
	// and dtype (the tiled kernel's Tile, say).
	Shape func(dim int, dt DType) any

	// Dims is the largest dim it supports in each dtype it supports; why
	// is in the comment of its row.
	Dims map[DType]int
	// MinDim, if set, is the least dim it is generated for (1 if not).
	MinDim int

	// With, if set, is the sweep strategy whose tables the kernel reads:
	// a module holds the kernel only with that strategy.
	With Strategy

	// MatrixForm marks the strategy of the matrix form (docs/GUIDE.md,
	// "The matrix form"): its results differ from the others' in rounding, so
	// Auto never picks it by shape (Choose skips it); the scheme's form
	// selects it.
	MatrixForm bool

	// For sweep strategies and exact-draw kernels: Auto tries the
	// module's rows of the role in increasing AutoRank and runs the first
	// whose Prefer holds, or the last it tried if none does (Choose,
	// ChooseExact). AutoDoc says when, for the docs.
	AutoRank int
	// Spills, where set, gives the spill bytes ptxas may report for an
	// entry point at dim and dtype without failing the build: a measured
	// exception, explained at the row. Nil means none.
	Spills  func(dim int, dt DType) map[string]int
	Prefer  func(Shape) bool
	AutoDoc string
}

// Supports reports whether the kernel can be generated for dim and dt.
func (k *Kernel) Supports(dim int, dt DType) bool { return dim >= k.minDim() && dim <= k.Dims[dt] }

func (k *Kernel) minDim() int { return max(1, k.MinDim) }

// DimsString says which dims and dtypes k supports, for messages.
func (k *Kernel) DimsString() string {
	var parts []string
	for _, dt := range []DType{Float32, Float64} {
		if n := k.Dims[dt]; n > 0 {
			parts = append(parts, fmt.Sprintf("dims %d to %d in %s", k.minDim(), n, dt))
		}
	}
	return strings.Join(parts, ", ")
}

// Launch returns k's launch shape for dim and dt.
func (k *Kernel) Launch(dim int, dt DType) Geometry {
	g := k.Geometry
	if k.GeometryOf != nil {
		g = k.GeometryOf(dim, dt)
	}
	if k.ChebyshevOnChip {
		g.ChebyshevShared = ChebyshevShared(dim, dt)
	}
	return g
}

// ChebyshevShared is the dynamic shared memory a block of a
// ChebyshevOnChip entry point needs to keep a Chebyshev launch's iterates
// on chip: two vectors of each of its ThreadBlock chains, element i of
// thread t's at i*(ThreadBlock+1) + t (the second vector's after the
// first's; the pad column keeps the block's coalesced copies of its rows
// in and out free of bank conflicts). Kept in x and prev instead, they are
// addressed with a runtime stride, so each element's loads wait for the
// element before's stores: on an H200 at a million chains an iteration
// cost 484 µs there against 410 µs on chip at dim 64 (AR(1)), and 324
// against 308 at dim 32 (docs/log/BENCHMARKS-runs.md, runs 19 and 24; ncu put DRAM
// at 2.7% of its peak, so the cost was latency, not traffic). It is about
// 64 KB at the largest thread-per-chain dims (64 in float32, 32 in
// float64): sm_80 and sm_90 give it beside any of these kernels' static
// shared memory; where a device cannot, the runtime launches without it.
func ChebyshevShared(dim int, dt DType) int { return 2 * dim * dt.Size() * (ThreadBlock + 1) }

// Launch geometry compiled into the kernels. The thread-per-chain kernels
// use 128-thread blocks: small enough that B=4096 still spreads over 32
// blocks, large enough to amortize staging the weights. The warp kernel runs
// four chains (warps) per block.
const (
	ThreadBlock   = 128
	WarpsPerBlock = 4
)

// threadPerChainOf is the thread-per-chain kernels' geometry at dim in dt,
// for a kernel whose plain entry point has other bytes of static shared
// memory of its own (beside the normal table and the staging of its
// stores): its plain entry point loops over its groups (rowLoops) where
// its state's pipeline fits beside them, up to dim maxDim (0: no limit).
func threadPerChainOf(other func(dim int, dt DType) int, maxDim int) func(int, DType) Geometry {
	return func(dim int, dt DType) Geometry {
		g := threadPerChain
		g.PlainLoops = rowLoops(dim, dt, other(dim, dt)) && (maxDim == 0 || dim <= maxDim)
		return g
	}
}

// sharedLoopMax is the largest dim at which gibbs_sweep_shared's plain
// entry point loops: above it, the loop's registers on top of a sweep
// that already holds about 250 made ptxas spill at dims 36, 38, 40 and
// 42 to 49 on sm_75 and sm_80 (make resources, run 29), and run 29
// measured the gain only at dim 32.
const sharedLoopMax = 32

// RowStride is a row's length in the state's pipeline (gg_rows_next in
// templates/sampler.cu.tmpl): with 16-byte vectors (dims that are
// multiples of 4) an odd number of vectors, so that the 8 lanes of a
// quarter warp reading a vector of their rows hit distinct banks; else an
// odd number of elements.
func RowStride(dim int) int {
	switch {
	case dim%4 != 0:
		return dim | 1
	case dim%8 != 0:
		return dim + 8
	}
	return dim + 4
}

// rowLoops reports whether a thread-per-chain kernel's plain entry point
// loops over its groups (Geometry.PlainLoops): at the dims whose rows it
// stages through shared memory (float32 rows longer than a 32-byte sector,
// dims 9 to 64; GG_STAGE_ROWS), where the pipeline's rows, the normal
// table, the staging of its stores (9 values a thread) and other bytes of
// its own fit in the 48 KB of static shared memory every target allows.
func rowLoops(dim int, dt DType, other int) bool {
	if dt != Float32 || dim*dt.Size() <= 32 {
		return false
	}
	return other+ThreadBlock*(RowStride(dim)+9)*dt.Size()+stream.NormalCells*16 <= 48<<10
}

// noShared and frameShared are a kernel's own static shared memory in its
// plain entry point: none, or one frame of weights (gibbs_sweep_shared).
func noShared(int, DType) int           { return 0 }
func frameShared(dim int, dt DType) int { return dim * Stride(dim) * dt.Size() }

var (
	threadPerChain = Geometry{Unit: "chains", PerBlock: ThreadBlock, Threads: ThreadBlock}
	warpPerChain   = Geometry{Unit: "chains", PerBlock: WarpsPerBlock, Threads: 32 * WarpsPerBlock, Note: "one warp per chain"}
	onePerRecord   = Geometry{Unit: "n", PerBlock: 128, Threads: 128}
	onePerElement  = Geometry{Unit: "elements", PerBlock: 256, Threads: 256}
	onePerBlock    = Geometry{Unit: "blocks", PerBlock: 1, Threads: MomentThreads}
)

// MomentThreads is the moments kernel's block size and MomentTile the most
// rows it reduces at a time, in a tile of MomentTileBytes; MomentBlocks is
// the most blocks it runs, so that the partial sums, and with them the
// result, do not depend on the device.
const (
	MomentThreads   = 256
	MomentTile      = 128
	MomentTileBytes = 32768
	MomentBlocks    = 256
)

// MomentRows is the moments kernel's rows per tile for k coordinates of
// dt: MomentTile while they fit the tile (k ≤ 64 in float32, 32 in
// float64), fewer beyond.
func MomentRows(k int, dt DType) int {
	return min(MomentTile, max(1, MomentTileBytes/dt.Size()/k))
}

// MomentBlockCount is the most blocks of the moments kernel for k
// coordinates: MomentBlocks, or fewer where their partial sums, 1+k+k²
// float64s each, would pass 128 MB (k > 362).
func MomentBlockCount(k int) int {
	return min(MomentBlocks, max(1, (128<<20)/(8*(1+k+k*k))))
}

// threadDims are the largest dims of the thread-per-chain kernels: they
// keep the state and one running sum per coordinate in registers, 2·dim
// values plus about 30 registers for Philox and addressing; at dim 64 in
// float32 that is about 160 of the 255 a thread may have, and ptxas spills
// beyond it. A float64 value takes two registers: dim 32.
var threadDims = map[DType]int{Float32: 64, Float64: 32}

// constDims are the largest dims of the constant-memory kernel.
var constDims = map[DType]int{Float32: 32, Float64: 16}

// anyDims are the largest dims of the kernels that hold no state in
// registers: the tiled strategy's, and the test and reduction entry
// points'.
var anyDims = map[DType]int{Float32: TileMaxDim, Float64: TileMaxDim}

// constCacheBytes is the constant cache's fast level.
const constCacheBytes = 2048

// warpChainsPerSM is the batch size per multiprocessor below which one warp
// per chain beats one thread per chain: with fewer chains than that, one
// thread per chain cannot occupy the multiprocessor's schedulers.
const warpChainsPerSM = 64

// sweepParams is the argument list of every Philox sweep kernel: the state
// and the stream.
var sweepParams = []Param{
	{Name: "x", Kind: StateP}, {Name: "chains", Kind: U64}, {Name: "sweeps", Kind: U32},
	{Name: "seed", Kind: U64}, {Name: "sweep0", Kind: U64, Break: true}, {Name: "chain0", Kind: U64},
}

// familyParams are the tables and per-chain buffers of a precision per
// chain (gibbsrt.Precision), after the state and the stream.
var familyParams = []Param{
	{Name: "m", Kind: ConstRealP, Break: true}, {Name: "md", Kind: ConstRealP}, {Name: "b", Kind: ConstRealP},
	{Name: "members", Kind: U32}, {Name: "s", Kind: ConstRealP, Break: true}, {Name: "w", Kind: ConstRealP},
	{Name: "h", Kind: ConstRealP}, {Name: "bad", Kind: U32P},
}

// shiftedParams is the argument list of a Shifted entry point: the plain
// one's, ps, then the shifts d ([chains][dim]).
func shiftedParams(ps []Param) []Param {
	return append(slices.Clip(ps), Param{Name: "d", Kind: ConstRealP})
}

// traceParams is the argument list of every traced sweep kernel: a sweep
// kernel's, then the trace (see gibbsrt.Trace for the layout).
var traceParams = append(append([]Param(nil), sweepParams...),
	Param{Name: "trace", Kind: RealP}, Param{Name: "thin", Kind: U32},
	Param{Name: "trace_chain0", Kind: U64, Break: true}, Param{Name: "trace_chains", Kind: U64},
	Param{Name: "trace_index", Kind: ConstU32P, Break: true}, Param{Name: "trace_cols", Kind: U32},
)

// extParams is the argument list of every Ext sweep entry point: a sweep
// kernel's; the sweep kind (mixing.Sweep); the Chebyshev coefficients and the
// previous iterates (both null outside Chebyshev acceleration); then the
// trace (see gibbsrt.Trace for the layout; trace null records nothing).
var extParams = append(append([]Param(nil), sweepParams...),
	Param{Name: "kind", Kind: U32}, Param{Name: "cheb", Kind: ConstRealP}, Param{Name: "prev", Kind: RealP},
	Param{Name: "trace", Kind: RealP, Break: true}, Param{Name: "thin", Kind: U32},
	Param{Name: "trace_chain0", Kind: U64}, Param{Name: "trace_chains", Kind: U64},
	Param{Name: "trace_index", Kind: ConstU32P, Break: true}, Param{Name: "trace_cols", Kind: U32},
)

// table holds every kernel, in the order the module source defines them. The Auto
// rule was measured on an H200 (docs/log/BENCHMARKS-runs.md, run 4): it picks the
// fastest strategy at every measured shape (dims 8, 32, 64; 4096 and 1M
// chains; 1 and 100 sweeps per launch).
var table = []Kernel{
	{
		Name: "gibbs_sweep_const", Role: Sweep, Block: "kernel_const",
		Traced: "gibbs_sweep_const_trace", TracedParams: traceParams,
		Ext: "gibbs_sweep_const_ext", ExtParams: extParams,
		Strategy: ConstMemory, StrategyName: "const", GoName: "ConstMemory",
		Doc:    "sweeps sweeps over x ([chains][dim] row-major, in place), one chain per thread, weights read from constant memory; chain j draws the normals of chain chain0+j at sweeps sweep0..sweep0+sweeps-1. The _trace kernel also records: after each sweep s with (s+1) % thin == 0, chains trace_chain0..trace_chain0+trace_chains-1 write coordinate i to column trace_index[i] (none if 0xFFFFFFFF) of their row of trace, [records][trace_chains][trace_cols]. The _ext kernel runs sweeps of kind (0 forward, 1 backward, 2 symmetric) with the over-relaxation of gibbs_keep; with cheb, each sweep is a Chebyshev iteration (cheb[5s..5s+4] = forward and backward noise factors, then the weights of the new iterate, the current one and prev, the previous one, [chains][dim], updated in place); with trace, it records as the _trace kernel does",
		Params: sweepParams,
		// Its plain entry point does not loop (Geometry.PlainLoops): in
		// gg_rows_loop it ran slower at dim 32 on an H100, a 100-sweep
		// launch 2.5 times (355.8 → 878.6 µs a sweep at a million chains)
		// and a one-sweep launch 1.26 times (885.9 → 1114.1); not
		// investigated (docs/log/BENCHMARKS-runs.md, run 29).
		Geometry:        threadPerChain,
		ChebyshevOnChip: true,
		Symbols:         []string{SymbolWeight, SymbolOffset, SymbolScale, SymbolKeep},
		// Beyond dim 32 the weights are more than twice the constant
		// cache's fast level and the kernel runs 3.6 times slower than
		// shared memory (docs/log/BENCHMARKS-runs.md, run 1, dim 64), so Auto never
		// picks it there; generating it would double the compile time.
		Dims: constDims,
		// Reading the weights where they are skips staging them, which
		// pays only when a launch is one plain sweep and they fit the
		// constant cache's fast level (dim ≤ 21, rows padded to 4). The
		// Ext entry point addresses its weights by frame at run time, one
		// load more per weight.
		AutoRank: 0,
		Prefer: func(s Shape) bool {
			return !s.Ext && s.Sweeps == 1 && 4*s.Dim*Stride(s.Dim) <= constCacheBytes
		},
		AutoDoc: "a single plain sweep per launch while the weights fit the constant cache's 2 KB fast level (dim ≤ 21)",
	},
	{
		Name: "gibbs_sweep_shared", Role: Sweep, Block: "kernel_shared",
		Traced: "gibbs_sweep_shared_trace", TracedParams: traceParams,
		Ext: "gibbs_sweep_shared_ext", ExtParams: extParams,
		Strategy: SharedMemory, StrategyName: "shared", GoName: "SharedMemory",
		Doc:             "as gibbs_sweep_const, weights staged from gibbs_weight_global into shared memory",
		Params:          sweepParams,
		GeometryOf:      threadPerChainOf(frameShared, sharedLoopMax),
		ChebyshevOnChip: true,
		Symbols:         []string{SymbolWeightG, SymbolOffset, SymbolScale, SymbolKeep},
		Dims:            threadDims,
		// On sm_90 ptxas (nvcc 11.8) gives the traced entry point 255
		// registers and spills a few at float32 dims 53 to 63: 8 to 24
		// bytes of stores, 4 to 20 of loads (the all-dims scan of every
		// default target, issue 18: dims 53, 56-63). The plain entry
		// point, which Auto runs for untraced sweeps, does not spill.
		Spills: func(dim int, dt DType) map[string]int {
			if dt == Float32 && dim >= 53 && dim <= 63 {
				return map[string]int{"gibbs_sweep_shared_trace": 24}
			}
			return nil
		},
		AutoRank: 3,
		Prefer:   func(Shape) bool { return true },
		AutoDoc:  "otherwise",
	},
	{
		Name: "gibbs_sweep_noise", Role: SweepNoise, Block: "kernel_noise",
		Doc: "as gibbs_sweep_shared with caller-supplied normals: noise[(s*dim+i)*chains+c] is the normal of chain c, sweep s, coordinate i",
		Params: []Param{
			{Name: "x", Kind: StateP}, {Name: "noise", Kind: ConstRealP}, {Name: "chains", Kind: U64}, {Name: "sweeps", Kind: U32},
		},
		Geometry: threadPerChain,
		Symbols:  []string{SymbolWeightG, SymbolOffset, SymbolScale},
		Dims:     threadDims,
		// ptxas keeps this entry point (for callers' own normals, not the
		// sampler's hot path) to 80 registers and may spill one of them:
		// 8 bytes of stores, 4 of loads at dim 26 on sm_80 (nvcc 11.8, a
		// scan of every dim; 3 local accesses in its 3000 instructions);
		// at float32 dim 57 on sm_90, 40 bytes of stores and 40 of loads
		// (the all-dims scan of every default target, issue 18).
		Spills: func(dim int, dt DType) map[string]int {
			if dt == Float32 && dim == 57 {
				return map[string]int{"gibbs_sweep_noise": 40}
			}
			return map[string]int{"gibbs_sweep_noise": 16}
		},
	},
	{
		Name: "gibbs_sweep_warp", Role: Sweep, Block: "kernel_warp",
		Traced: "gibbs_sweep_warp_trace", TracedParams: traceParams,
		Ext: "gibbs_sweep_warp_ext", ExtParams: extParams,
		Strategy: WarpPerChain, StrategyName: "warp", GoName: "WarpPerChain",
		Doc:      "as gibbs_sweep_shared, one chain per warp: for small batches",
		Params:   sweepParams,
		Geometry: warpPerChain,
		Symbols:  []string{SymbolWeightG, SymbolOffset, SymbolScale, SymbolKeep},
		// One Philox group per lane bounds it at dim 128; the shared
		// weight array is static (at most 48 KB with the normal table):
		// both frames at dim 64 are 32 KB in float32, 64 KB in float64.
		Dims:     map[DType]int{Float32: 64, Float64: 48},
		AutoRank: 1,
		Prefer: func(s Shape) bool {
			return s.Chains < warpChainsPerSM*s.Multiprocessors
		},
		AutoDoc: "fewer than 64 chains per multiprocessor, where one thread per chain leaves the schedulers idle",
	},
	{
		Name: "gibbs_sweep_model", Role: Sweep, Block: "kernel_model", PTX: true,
		Traced: "gibbs_sweep_model_trace", TracedParams: traceParams,
		Ext: "gibbs_sweep_model_ext", ExtParams: extParams,
		Pulled:   "gibbs_sweep_model_pulled",
		Shifted:  "gibbs_sweep_model_shift",
		Strategy: Specialized, StrategyName: "model", GoName: "Specialized",
		Doc:             "as gibbs_sweep_const with the model's coefficients in the instructions and its zero weights' fmas dropped. Shipped as PTX in which each coefficient is a marker on its own line of inline PTX: GGW_k (weight[k], k = j*stride+i), GGO_i (offset[i]), GGS_i (scale[i]); the host writes each as its float32 bits (0fXXXXXXXX), deletes the lines whose GGW_k is a zero weight, and has the driver compile the result (cuLinkCreate … cuLinkComplete in a context of its own, then cuModuleLoadData of the cubin)",
		Params:          sweepParams,
		GeometryOf:      threadPerChainOf(noShared, 0),
		ChebyshevOnChip: true,
		Dims:            threadDims,
		// The runtime offers it to Auto only once the model's kernel is
		// compiled; until then, or if the JIT fails, Auto picks among the rest.
		AutoRank: 2,
		Prefer:   func(Shape) bool { return true },
		AutoDoc:  "once the model's kernel is compiled, wherever shared memory would run",
	},
	{
		Name: "gibbs_sweep_tile", Role: Sweep, Block: "kernel_tile",
		Traced: "gibbs_sweep_tile_trace", TracedParams: traceParams,
		Ext: "gibbs_sweep_tile_ext", ExtParams: extParams,
		Strategy: Tiled, StrategyName: "tile", GoName: "Tiled",
		Doc:    "as gibbs_sweep_shared, a chain per group of lanes of a warp (kernels.TileShape: P lanes of S positions each), the weights streamed through shared memory a tile of rows at a time from gibbs_weight_tile, whose rows (row j: the weights of position j, in frame f) are laid out by kernels.Tile.TileIndex; for any dim",
		Params: sweepParams,
		GeometryOf: func(dim int, _ DType) Geometry {
			t := TileShape(dim, Float32)
			return Geometry{Unit: "chains", PerBlock: t.Chain, Threads: 32 * TileWarps, Note: fmt.Sprintf("%d lanes per chain", t.P)}
		},
		Symbols: []string{SymbolWeightTile, SymbolOffset, SymbolScale, SymbolKeep},
		Tables:  []Symbol{tileTable},
		Shape:   func(dim int, dt DType) any { return TileShape(dim, dt) },
		// Nothing of dim² size is held anywhere; 32 lanes of 32 slots.
		Dims: anyDims,
		// The only strategy beyond dim 64 (dim 32 in float64); below, the
		// others are faster where measured, and Auto reaches it only in a
		// package generated with it alone.
		AutoRank: 4,
		Prefer:   func(Shape) bool { return true },
		AutoDoc:  "where no other strategy is in the package: beyond dim 64 (float32) or 32 (float64)",
		// Beyond dim 512 in float64 a lane holds 32 doubles of state and
		// 32 of sums, 128 of its 255 registers, and ptxas spills a few of
		// the Ext entry point's scalars: at most 52 bytes of stores and 76
		// of loads on sm_75..sm_89 (nvcc 11.8), 16 on sm_90. The steps
		// are unrolled inside a runtime loop over windows of 32, so a
		// spill load runs at most once per 32 steps (cuobjdump
		// --dump-sass, sm_90: 8 in the entry point's 37 thousand
		// instructions).
		Spills: func(dim int, dt DType) map[string]int {
			if dt == Float64 && dim > 512 {
				return map[string]int{"gibbs_sweep_tile_ext": 96}
			}
			return nil
		},
	},
	{
		Name: "gibbs_sweep_matrix", Role: Sweep, Block: "kernel_matrix",
		Traced: "gibbs_sweep_matrix_trace", TracedParams: traceParams,
		Ext: "gibbs_sweep_matrix_ext", ExtParams: extParams,
		Strategy: Matrix, StrategyName: "matrix", GoName: "Matrix", MatrixForm: true,
		Doc:    "the matrix form of every pass: x' = M_f x + c_f + N_f z over the positions of frame f (0: the coordinates in order, forward passes; 1: reversed, position p is coordinate dim-1-p, backward passes; 2: exact draws, in order) with the tables of gibbs_mat_m, gibbs_mat_c and gibbs_mat_n, each output i accumulated as acc = c[i], then fma(M[i][k], x_k, acc) for k = 0..dim-1 (not in frame 2), then fma(N[i][p], z_p, acc) for p = 0..i (N is lower triangular in every frame), z_p the pass's normal of position p (times the Chebyshev factor in the _ext kernel); kernels.MatrixShape: a thread owns RI coordinates of RC chains, the block's state in dynamic shared memory. The _ext kernel's kind 3 draws exact samples: x = c_2 + N_2 z with the normals of a forward pass. Its results are those of the matrix form, which Scheme.Form selects (gibbsrt.Reference computes it too); they differ from the sequential strategies' in rounding",
		Params: sweepParams,
		GeometryOf: func(dim int, dt DType) Geometry {
			m := MatrixShapeOf(dim, dt)
			return Geometry{Unit: "chains", PerBlock: m.Chains, Threads: m.Threads, Shared: m.Shared, PerSM: MatrixBlocksPerSM,
				Note: fmt.Sprintf("a thread per %d coordinates of %d chains", m.RI, m.RC)}
		},
		Symbols: []string{SymbolMatM, SymbolMatN, SymbolMatC},
		Tables:  matrixTables,
		Shape: func(dim int, dt DType) any {
			return MatrixBlock{MatrixShapeOf(dim, dt), MatrixExactKind}
		},
		// Nothing of dim² size is held on chip: the tables stream through
		// the caches.
		Dims: anyDims,
		// The matrix form is another arithmetic (results differ from the
		// sequential strategies' in rounding), so Auto never switches to
		// it by shape: a launch in the matrix form (Scheme.Form) runs it,
		// one in the sequential form never does (gibbsrt.Sampler.Choose).
		AutoRank: 5,
		Prefer:   func(Shape) bool { return false },
		AutoDoc:  "never among the sequential strategies: it runs the matrix form (Scheme.Form), and only it does",
	},
	{
		Name: "gibbs_exact", Role: Exact, Block: "kernel_exact", With: Matrix,
		Doc:        "exact draws: x[c][i] = c_2[i] + sum_{p<=i} N_2[i][p] z_p (fma in increasing p, as the matrix strategy's _ext kind 3, bit for bit) with the normals z of a forward sweep at sweep0 for chain chain0+c, every chain of x overwritten; kernels.ExactShape: a block owns BM chains by BN coordinates, a thread RM chains by RN coordinates in registers, the normals drawn by Philox into shared memory a slab of BK positions at a time and never stored, the slabs of N past a tile's last coordinate skipped",
		Params:     exactParams,
		GeometryOf: exactGeometry,
		Symbols:    []string{SymbolMatN, SymbolMatC},
		Shape:      func(dim int, dt DType) any { return ExactShapeOf(dim, dt) },
		Dims:       anyDims,
		AutoRank:   1,
		Prefer:     func(Shape) bool { return true },
		AutoDoc:    "otherwise",
	},
	{
		Name: "gibbs_exact_chain", Role: Exact, Block: "kernel_exact_chain", With: Matrix,
		Doc:        "exact draws as gibbs_exact, bit for bit, a chain per thread: the sums of a chain's coordinates in registers, each z_p pushed into the sums of coordinates p..dim-1 in increasing p, frame 2 of N and c staged once a block in shared memory; the grid is the blocks resident at once, each looping over groups of 128 chains",
		Params:     exactParams,
		GeometryOf: exactChainGeometry,
		Symbols:    []string{SymbolMatN, SymbolMatC},
		Shape:      func(dim int, dt DType) any { return ExactChainShapeOf(dim, dt) },
		Dims:       threadDims,
		// ptxas keeps a few of the chain loop's scalars (the stream's
		// seed and first chain, the loop's bounds) in local memory at some
		// dims and targets: in 118 of the 210 builds of make resources
		// (nvcc 11.8, every dim and default target), at most 80 bytes
		// (dim 56, sm_75), each read a few times per chain against
		// thousands of instructions of sums (cuobjdump --dump-sass of
		// sm_90 at dims 32 and 64, float64 32).
		Spills: func(int, DType) map[string]int { return map[string]int{"gibbs_exact_chain": 96} },
		// Run 31 (docs/log/BENCHMARKS-runs.md; H200, µs a draw, this
		// kernel against gibbs_exact): float32 dim 32 at 4096, 65,536 and
		// 1,048,576 chains 17.8/20.3, 26.3/31.4, 163.2/228.6; dim 64
		// 29.2/32.4, 49.2/58.4, 523.2/595.2; float64 dim 32 25.2/23.6,
		// 60.3/40.8, 549.1/390.4. Other dims were not measured.
		AutoRank: 0,
		Prefer:   func(s Shape) bool { return s.DType == Float32 },
		AutoDoc:  "in float32 (faster than the tiled kernel at every batch measured at dims 32 and 64; slower in float64)",
	},
	{
		Name: "gibbs_exact_model", Role: Exact, Block: "kernel_exact_model", With: Matrix, PTX: true,
		Shifted:    "gibbs_exact_model_shift",
		Doc:        "exact draws as gibbs_exact_chain, bit for bit, with the model's factor and mean in the instructions: shipped as PTX in which N_2[i][p] (i >= p) is the marker GGN_<p*dim+i> and c_2[i] is GGC_<i>, each on its own line of inline PTX; the host writes each as its bits (no line is deleted) and has the driver compile the result at the first exact draw after SetModel, as gibbs_sweep_model's",
		Params:     exactParams,
		GeometryOf: exactChainGeometry,
		Shape:      func(dim int, dt DType) any { return ExactChainShapeOf(dim, dt) },
		Dims:       threadDims,
		// The runtime runs it only once the model's kernel is compiled
		// (gibbsrt.Sampler.exactKernel); until then, or if the JIT fails,
		// the others are chosen among. Run 34 (docs/log/BENCHMARKS-runs.md;
		// H100, µs a draw, this kernel against gibbs_exact_chain and
		// gibbs_exact): float32 dim 32 at 4096 and 1,048,576 chains
		// 20.0/20.4/24.1, 106.3/162.8/228.5; dim 64 20.4/22.7/26.6,
		// 269.8/524.6/582.2; float64 dim 32 21.6/24.5/22.2,
		// 578.4/636.7/385.6. Other dims were not measured.
		AutoRank: -1,
		Prefer:   func(s Shape) bool { return s.DType == Float32 },
		AutoDoc:  "in float32, once the model's kernel is compiled (faster than the other two at every batch measured at dims 32 and 64; slower than the tiled one in float64)",
	},
	{
		Name: "gibbs_exact_gemm", Role: Exact, Block: "kernel_exact_gemm", With: Matrix,
		Doc:        "exact draws as gibbs_exact, bit for bit, with the structure of a SIMT SGEMM: kernels.ExactGemmShape: a block owns BM chains by BN coordinates, a thread TM chains by TN coordinates in registers; the slabs of BK positions double buffered in shared memory, each thread loading its share of the next slab of N into registers before it sums the current one and storing it, with one Philox group of the next slab's normals, after; one barrier a slab; the coordinate tiles of a group paired longest with shortest, a work item each",
		Params:     exactParams,
		GeometryOf: exactGemmGeometry,
		Symbols:    []string{SymbolMatN, SymbolMatC},
		Shape:      func(dim int, dt DType) any { return ExactGemmShapeOf(dim, dt) },
		Dims:       anyDims,
		MinDim:     ExactGemmMinDim,
		// ptxas (nvcc 11.8, 128 registers for 2 blocks an SM) keeps a few
		// of a work item's scalars in local memory in float32: 20 to 64
		// bytes stored at dims 65 to 1024 (make resources, sm_75 to
		// sm_90), none in float64. On sm_90 they sit outside the slab
		// loop (cuobjdump --dump-sass at dim 128: in the item's setup and
		// before its stores); on sm_80 at dim 1024 about eight loads a
		// slab of 512 fmas a thread read them back.
		Spills: func(int, DType) map[string]int { return map[string]int{"gibbs_exact_gemm": 128} },
		// Run 37 (docs/log/BENCHMARKS-runs.md; H100, µs a draw, this
		// kernel against gibbs_exact, both checked bit for bit by the GPU
		// suites): float32 dim 128 at 1,048,576 chains 1982/1474, dim
		// 256 at 65,536 373.1/292.8, dim 1024 at 4096 247.2/517.7;
		// float64 dim 128 at 1,048,576 2613/2837, dim 1024 at 4096
		// 369.9/806.6. Other dims were not measured: in float32 it is
		// preferred where gibbs_exact's own shape changes (beyond dim 512,
		// 32 chains a group), in float64 from its first dim.
		AutoRank: 0,
		Prefer:   func(s Shape) bool { return s.DType == Float64 || s.Dim > 512 },
		AutoDoc:  "in float64, and beyond dim 512 in float32 (faster than the tiled kernel at float64 dims 128 and 1024 and float32 dim 1024; slower at float32 dims 128 and 256)",
	},
	{
		Name: "gibbs_exact_tri", Role: Exact, Block: "kernel_exact_tri", With: Matrix,
		Doc:        "exact draws as gibbs_exact, bit for bit, with the lower triangle of N resident in shared memory: kernels.ExactTriShape: a block loops over groups of BM chains, draws every normal of a group into shared memory, then each warp sums the positions its coordinates need with no barrier until the group's outputs are stored; a thread holds 8 chains by 8 coordinates in registers, 4 from the low half of the padded coordinates and 4 mirrored from the high half, so that the warps' sums are alike in length",
		Params:     exactParams,
		GeometryOf: exactTriGeometry,
		Symbols:    []string{SymbolMatN, SymbolMatC},
		Shape:      func(dim int, _ DType) any { return ExactTriShapeOf(dim) },
		Dims:       map[DType]int{Float32: ExactTriMaxDim},
		MinDim:     ExactTriMinDim,
		// ptxas (nvcc 11.8) keeps a few of a group's scalars in local
		// memory at some dims (dim 200 on sm_90: 12 bytes stored, 20
		// loaded, at 128 registers); cuobjdump --dump-sass there shows
		// them in a group's setup and before its stores, about six loads
		// a group against some 20,000 fmas a thread.
		Spills: func(int, DType) map[string]int { return map[string]int{"gibbs_exact_tri": 64} },
		// Its dynamic shared memory (67.5 to 213.5 KB) is more than
		// sm_75 and sm_86 give a block: there the runtime leaves it out
		// (gibbsrt.Sampler.load) and Auto chooses among the others.
		// Run 38 (docs/log/BENCHMARKS-runs.md; H200, µs a draw, this
		// kernel against gibbs_exact, both checked bit for bit by the GPU
		// suites): dim 72 at 1,048,576 chains 683.5/805.9, dim 128
		// 980.5/1487.9, dim 200 at 65,536 250.1/260.1, dim 256
		// 292.8/288.4; a calibration copy at dim 128 and 40,003 chains
		// (H100) 81.7/76.3, where the last of its two waves of groups
		// left most blocks idle. So Auto takes it to dim 128 (two blocks
		// a multiprocessor) once a batch is at least ExactTriWaves waves.
		AutoRank: 0,
		Prefer:   exactTriPrefer,
		AutoDoc:  "in float32 to dim 128 at batches of at least 8 waves of its groups (1.18 and 1.52 times faster than the tiled kernel at dims 72 and 128, a million chains; within 4% at dims 200 and 256)",
	},
	{
		Name: "gibbs_matrix_pass", Role: MatrixPass, Block: "kernel_matrix_pass", With: Matrix,
		Doc:        "one pass of the matrix form over every chain from x into y, y = c_f + M_f x + N_f z, bit for bit the matrix strategy's pass, as a SIMT GEMM: kernels.MatrixPassShape: a block owns BM chains by BN positions, a thread TM chains by TN positions in registers; the slabs of BK positions, M's with the state as the A operand, then N's lower triangle with the normals drawn as the slab is stored, double buffered in shared memory, one barrier a slab",
		Params:     matrixPassParams,
		GeometryOf: matrixPassGeometry,
		Symbols:    []string{SymbolMatM, SymbolMatN, SymbolMatC},
		Shape:      func(dim int, dt DType) any { return MatrixPassShapeOf(dim, dt) },
		Dims:       anyDims,
		MinDim:     ExactGemmMinDim,
		// ptxas (nvcc 11.8, 128 registers for 2 blocks an SM) keeps a few
		// of a work item's scalars in local memory in float32, as in
		// gibbs_exact_gemm, whose shape it has: 16 to 48 bytes stored at
		// dims 65 to 1024, sm_75 to sm_90 (make resources); none in
		// float64 (one block an SM, 182 to 194 registers).
		Spills: func(int, DType) map[string]int { return map[string]int{"gibbs_matrix_pass": 128} },
	},
	{
		Name: "gibbs_philox", Role: Philox, Block: "kernel_philox",
		Doc: "test entry point: Philox4x32-10 of in[6t..6t+5] = (ctr0..3, key0..1) into out[4t..4t+3]",
		Params: []Param{
			{Name: "in", Kind: ConstU32P}, {Name: "out", Kind: U32P}, {Name: "n", Kind: U32},
		},
		Geometry: onePerRecord,
		Dims:     anyDims,
	},
	{
		Name: "gibbs_transform", Role: Transform, Block: "kernel_transform",
		Doc: "test entry point: out[t] = the stream's normal of the word first+t (mod 2^32), t < n",
		Params: []Param{
			{Name: "out", Kind: RealP}, {Name: "first", Kind: U32}, {Name: "n", Kind: U32},
		},
		Geometry: onePerRecord,
		Dims:     anyDims,
	},
	{
		Name: "gibbs_moments", Role: Moments, Block: "kernel_moments",
		Doc: "reduces rows[0..n-1] ([n][k] row-major, k <= dim) block by block: block b takes rows b*per_block.. in tiles of 128 and writes count, mean[k] and comoment[k][k] (float64, Chan et al.'s pairwise merge) to partials[b*(1+k+k*k)..]",
		Params: []Param{
			{Name: "rows", Kind: ConstRealP}, {Name: "n", Kind: U64}, {Name: "k", Kind: U32}, {Name: "per_block", Kind: U64},
			{Name: "partials", Kind: F64P, Break: true},
		},
		Geometry: onePerBlock,
		Dims:     anyDims,
	},
	{
		Name: "gibbs_linear", Role: Linear, Block: "kernel_linear",
		Doc: "the mean shifts of a linear term per chain: d[c][i] = the float64 sum of p[k][i]·h[c][k] for k = 0..dim-1 (each fma rounded once in float64, from 0), rounded once to T, with p = Q⁻¹ in float64; a non-finite d[c][i] lowers *bad to min(*bad, c)",
		Params: []Param{
			{Name: "d", Kind: RealP}, {Name: "h", Kind: ConstRealP}, {Name: "p", Kind: ConstF64P},
			{Name: "chains", Kind: U64, Break: true}, {Name: "bad", Kind: U32P},
		},
		GeometryOf: linearGeometry,
		Shape:      func(dim int, dt DType) any { return LinearShapeOf(dim, dt) },
		Dims:       anyDims,
	},
	{
		Name: "gibbs_shift", Role: Shift, Block: "kernel_shift",
		Doc: "out[e] = out[e] + d[c][k] (sub = 0) or out[e] - d[c][k] (sub = 1), each rounded once to T, for e < n, with c = (e / cols) % rows and k = coord[e % cols] (with coord null: cols = dim, rows = chains, k = e % cols): the state's shift by a linear term's means, and a trace's records'",
		Params: []Param{
			{Name: "out", Kind: RealP}, {Name: "d", Kind: ConstRealP}, {Name: "n", Kind: U64},
			{Name: "rows", Kind: U64, Break: true}, {Name: "cols", Kind: U32}, {Name: "coord", Kind: ConstU32P}, {Name: "sub", Kind: U32},
		},
		Geometry: onePerElement,
		Dims:     anyDims,
	},
	{
		Name: "gibbs_family", Role: Family, Block: "kernel_family",
		Doc:      "forward Gibbs sweeps with a precision per chain (kernels.FamilyShape): chain c's precision is Q_c = sum_k s[c][k]·M_k + diag(w[c]) over the members' off-diagonal rows m[k][i][j] (layout [members][dim][MStride], diagonal entries unread) and diagonals md[k][i], its linear term b[i] + h[c][i]; position i's update: q = w[c][i] (0 if w is null), then q = fma(s_k, md[k][i], q) for k = 0..members-1 (s_k = 1 if s is null); u = b[i] (+ h[c][i], rounded once, if h is set), then for each k: a = the fma sum from 0 of m[k][i][j]·x_j over j = i+1..dim-1, 0..i-1, and u = fma(-s_k, a, u); r = 1/q, x_i = fma(sqrt(r), z_i, u·r), z_i the normal of a forward sweep (each operation rounded once). A chain whose q is not positive and finite at some i, or whose r is not finite, is left unchanged and lowers bad[0] to its index (chain0 not added); one whose state is not finite after the launch lowers bad[1]",
		Params:   append(append([]Param(nil), sweepParams...), familyParams...),
		Geometry: Geometry{Unit: "chains", PerBlock: ThreadBlock, Threads: ThreadBlock, Note: "a chain per thread"},
		Shape:    func(dim int, dt DType) any { return FamilyShapeOf(dim, dt) },
		// The state and a member's row in registers, as the
		// thread-per-chain strategies hold theirs.
		Dims: threadDims,
	},
	{
		Name: "gibbs_family_exact", Role: FamilyExact, Block: "kernel_family_exact",
		Doc: "exact draws with a precision per chain, from gibbs_family's tables and per-chain buffers: chain c's Q_c (off the diagonal a[i][j] = the fma sum from 0 of s_k·m[k][i][j] over k = 0..members-1; on it gibbs_family's q) is factored as L·Lᵀ column by column (v = fma(-L[j][k], L[j][k], v) over k < j from a[j][j], L[j][j] = sqrt(v), r_j = 1/L[j][j]; for i > j, v = fma(-L[i][k], L[j][k], v) over k < j from a[i][j], L[i][j] = v·r_j); then y_i = u·r_i with u = b[i] (+ h[c][i], rounded once) and u = fma(-L[i][k], y_k, u) over k < i; then t_i = y_i + z_i; then for i from dim-1 down x_i = u·r_i with u = t_i and u = fma(-L[k][i], x_k, u) over k = i+1..dim-1 (z the normals of an exact draw: frame 0 of sweep sweep0; each operation rounded once). A chain whose pivot v is not positive and finite, or whose r_j is not finite, is left unchanged and lowers bad[0] to its index (chain0 not added); one whose draw is not finite lowers bad[1]",
		Params: append([]Param{
			{Name: "x", Kind: StateP}, {Name: "chains", Kind: U64}, {Name: "seed", Kind: U64},
			{Name: "sweep0", Kind: U64, Break: true}, {Name: "chain0", Kind: U64}},
			familyParams...),
		Geometry: Geometry{Unit: "chains", PerBlock: ThreadBlock, Threads: ThreadBlock, Note: "a chain per thread"},
		Shape:    func(dim int, dt DType) any { return FamilyShapeOf(dim, dt) },
		// A chain's Cholesky factor in registers.
		Dims: familyExactDims,
	},
	{
		Name: "gibbs_normals", Role: Normals, Block: "kernel_normals",
		Doc: "test entry point: writes the normals the samplers draw to out, laid out as gibbs_sweep_noise's noise",
		Params: []Param{
			{Name: "out", Kind: RealP}, {Name: "chains", Kind: U64}, {Name: "sweeps", Kind: U32},
			{Name: "seed", Kind: U64}, {Name: "sweep0", Kind: U64, Break: true}, {Name: "chain0", Kind: U64},
		},
		Geometry: threadPerChain,
		Dims:     anyDims,
	},
}

// All returns every kernel, in table order. The rows are shared: callers
// must not modify them.
func All() []*Kernel {
	out := make([]*Kernel, len(table))
	for i := range table {
		out[i] = &table[i]
	}
	return out
}

// Named returns the kernel whose row is called name, or nil.
func Named(name string) *Kernel {
	for i := range table {
		if table[i].Name == name {
			return &table[i]
		}
	}
	return nil
}

// ForStrategy returns the sweep kernel of strategy s, or nil.
func ForStrategy(s Strategy) *Kernel {
	for i := range table {
		if table[i].Role == Sweep && table[i].Strategy == s {
			return &table[i]
		}
	}
	return nil
}

// Strategies returns every strategy, in table order.
func Strategies() []Strategy {
	var out []Strategy
	for i := range table {
		if table[i].Role == Sweep {
			out = append(out, table[i].Strategy)
		}
	}
	return out
}

// ParseStrategy returns the strategy called name ("const", ...; "auto").
func ParseStrategy(name string) (Strategy, error) {
	if name == "auto" {
		return Auto, nil
	}
	for i := range table {
		if table[i].Role == Sweep && table[i].StrategyName == name {
			return table[i].Strategy, nil
		}
	}
	return 0, fmt.Errorf("unknown strategy %q", name)
}

// Supported returns the kernels that support dim and dt, in table order.
func Supported(dim int, dt DType) []*Kernel {
	var out []*Kernel
	for _, k := range All() {
		if k.Supports(dim, dt) {
			out = append(out, k)
		}
	}
	return out
}

// MaxDim is the largest dim any sweep strategy supports for dt.
func MaxDim(dt DType) int {
	m := 0
	for _, k := range All() {
		if k.Role == Sweep {
			m = max(m, k.Dims[dt])
		}
	}
	return m
}

// Choose returns the strategy Auto runs for shape s among the strategies
// of the sequential form in have (a module's): the first, by increasing
// AutoRank, whose Prefer holds, or else the last of them; Auto if have
// holds no such strategy.
func Choose(s Shape, have []Strategy) Strategy {
	var ks []*Kernel
	for _, st := range have {
		if k := ForStrategy(st); k != nil && !k.MatrixForm {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return Auto
	}
	return pick(s, ks).Strategy
}

// ChooseExact returns the exact-draw kernel Auto runs for shape s among
// have (a module's kernels): of its Exact rows, the first by increasing
// AutoRank whose Prefer holds, or else the last; nil if it has none.
func ChooseExact(s Shape, have []*Kernel) *Kernel {
	var ks []*Kernel
	for _, k := range have {
		if k.Role == Exact {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	return pick(s, ks)
}

// pick returns the first of ks, by increasing AutoRank, whose Prefer holds
// for s, or else the last; ks is not empty.
func pick(s Shape, ks []*Kernel) *Kernel {
	ks = slices.Clone(ks)
	slices.SortStableFunc(ks, func(a, b *Kernel) int { return a.AutoRank - b.AutoRank })
	for _, k := range ks {
		if k.Prefer(s) {
			return k
		}
	}
	return ks[len(ks)-1]
}

// ABIVersion is the version of this table, the templates and the module
// description that a generated package records (gibbsimpl.GenVersion). Bump
// it when a change makes packages generated before it unusable with the
// new runtime, or the reverse.
const ABIVersion = 15
