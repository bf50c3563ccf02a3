package gibbsrt

import "github.com/gibbsgen/gibbsgen/internal/kernels"

// Strategy selects how a sweep is run on the GPU. Every strategy of a form
// (Scheme.Form) draws the same random stream in the same arithmetic order,
// so the choice changes speed, never results. The strategies and Auto's rule are rows of one
// table (internal/kernels); a package holds the strategies gibbsgen
// compiled for its dim and dtype.
type Strategy = kernels.Strategy

const (
	// Auto picks by batch size, sweeps per launch and dimension among the
	// package's strategies (see Sampler.Choose).
	Auto = kernels.Auto
	// ConstMemory runs one chain per thread and reads the weights from
	// constant memory. It needs them to fit the constant cache's fast level
	// (about 2 KB: dim ≤ 21); beyond that it collapses.
	ConstMemory = kernels.ConstMemory
	// SharedMemory runs one chain per thread with the weights staged into
	// shared memory at block start.
	SharedMemory = kernels.SharedMemory
	// WarpPerChain runs one chain per warp, for batches too small to fill
	// the GPU with one thread per chain.
	WarpPerChain = kernels.WarpPerChain
	// Specialized runs one chain per thread with the model's coefficients
	// compiled into the kernel and its zero weights dropped: SetModel
	// specializes the package's PTX and the driver compiles it in the
	// background (see Sampler.Specialization). Auto runs it once it is
	// compiled, wherever it would run SharedMemory.
	Specialized = kernels.Specialized
	// Tiled runs one chain per warp with the state in registers spread over
	// the warp's lanes, and streams the weights through shared memory in
	// tiles shared by the block's warps. It serves every dim up to 1024 and
	// is the only strategy beyond the thread-per-chain limits (dim 64 in
	// float32, 32 in float64).
	Tiled = kernels.Tiled
	// Matrix runs every pass in the matrix form, x' = M·x + c + N·z
	// (FormMatrix): each thread owns a few coordinates of a few chains,
	// none waits for another within a pass, and the tables stream through
	// the caches. It is the only strategy of the matrix form, which
	// Scheme.Form selects, and runs exact draws (DrawExact). Auto never
	// picks it for the sequential form: its results differ in rounding.
	Matrix = kernels.Matrix
)

// Strategies returns every strategy this runtime knows, Auto excluded.
func Strategies() []Strategy { return kernels.Strategies() }
