package kernels

// A precision per chain (gibbsrt.Precision; docs/ARITHMETIC.md, "A
// precision per chain"): chain c's precision is Q_c = Σ_k s_ck·M_k +
// diag(w_c), M_0 the model's Q and M_1.. fixed members, and its linear
// term b_c = Q·mu + h_c. gibbs_family sweeps in the canonical form,
// forming each coordinate's conditional from the members on the fly:
// what stays specialized at generation time is the dim and the dtype; the
// members, scales, diagonals and linear terms are kernel arguments.
//
// A thread takes a chain: its state in registers (loaded and stored as
// the sequential kernels' plain entry points do), each member's row read
// 16 bytes at a time (the same address for the whole warp, so a load feeds
// four fmas in float32, two in float64). The conditional precisions'
// reciprocals and square roots are computed once a launch and kept in
// registers up to FamilyKeepBytes of a row, else once a sweep (the same
// bits).

// FamilyMaxMembers is the most matrices of a precision family, the
// model's own included: a chain's scales stay in registers.
const FamilyMaxMembers = 4

// FamilyKeepBytes is the largest row (dim × the element size) whose
// conditional precisions a chain keeps in registers for the whole
// launch: two values a coordinate beside its state.
const FamilyKeepBytes = 128

// FamilyShape is gibbs_family's shape at a dim and dtype.
type FamilyShape struct {
	MStride int  // a member row's length in the layout of its argument m: Stride(dim)
	Keep    bool // the conditional precisions stay in registers (FamilyKeepBytes)
	Max     int  // FamilyMaxMembers
}

// FamilyShapeOf returns gibbs_family's shape.
func FamilyShapeOf(dim int, dt DType) FamilyShape {
	return FamilyShape{MStride: Stride(dim), Keep: dim*dt.Size() <= FamilyKeepBytes, Max: FamilyMaxMembers}
}

// familyExactDims are the dims of gibbs_family_exact: a chain's Cholesky
// factor, dim·(dim+1)/2 values, stays in registers.
var familyExactDims = map[DType]int{Float32: 16, Float64: 12}

// FamilyExactMaxDim is the largest dim of exact draws with a precision
// per chain in dt.
func FamilyExactMaxDim(dt DType) int { return familyExactDims[dt] }
