package kernels

// A linear term per chain (gibbsrt.Sampler.SetLinear): gibbs_linear
// computes each chain's shift d_c = Q⁻¹·h_c, dim float64 fmas an element,
// and gibbs_shift moves the state by it. Up to LinearChainMaxDim a thread
// takes a chain: its h in registers (loaded through shared memory, so
// that the warp's reads are coalesced), its dim sums in float64 registers,
// and Q⁻¹ staged once a block in shared memory and read 16 bytes (two
// values, both used by every thread of the warp) at a time, so each load
// feeds two fmas; the thread-per-element form it replaced there read an
// element of h and of Q⁻¹ for every fma and ran L1-bound. On an H100 at
// dim 32 and a million chains the chain form ran 386 µs against 426:
// with 160 registers a thread only 3 blocks fit an SM, and each waits
// for its Q⁻¹ and h (docs/log/BENCHMARKS-runs.md, run 32). Beyond dim 32
// the unrolled sums would outgrow the registers and the instruction
// cache, and a thread takes an element.

// LinearChainMaxDim is the largest dim whose gibbs_linear takes a chain a
// thread: dim float64 sums and dim values of h in registers, 128 of them
// in float64 at dim 32.
const LinearChainMaxDim = 32

// LinearShape is gibbs_linear's shape at a dim and dtype.
type LinearShape struct {
	PerChain bool // a chain per thread; else an element per thread
	PStride  int  // a staged row of Q⁻¹'s length (even: 16-byte pairs)
}

// LinearShapeOf returns gibbs_linear's shape.
func LinearShapeOf(dim int, _ DType) LinearShape {
	return LinearShape{PerChain: dim <= LinearChainMaxDim, PStride: (dim + 1) &^ 1}
}

// linearGeometry is gibbs_linear's launch: a chain per thread in blocks
// of ThreadBlock, or an element per thread.
func linearGeometry(dim int, dt DType) Geometry {
	if LinearShapeOf(dim, dt).PerChain {
		return Geometry{Unit: "chains", PerBlock: ThreadBlock, Threads: ThreadBlock, Note: "a chain per thread"}
	}
	return onePerElement
}
