package kernels

import "fmt"

// DType is the element type of a module's state and tables.
type DType string

const (
	Float32 DType = "float32"
	Float64 DType = "float64"
)

// Generated lists the dtypes gibbsgen generates.
var Generated = []DType{Float32, Float64}

// CType is the C name of the type.
func (d DType) CType() string {
	if d == Float64 {
		return "double"
	}
	return "float"
}

// Size is the element size in bytes.
func (d DType) Size() int {
	if d == Float64 {
		return 8
	}
	return 4
}

// ParseDType checks a dtype name.
func ParseDType(s string) (DType, error) {
	for _, d := range []DType{Float32, Float64} {
		if string(d) == s {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown dtype %q (want float32 or float64)", s)
}

// Stride returns the padded row length of the weight table for dim: a
// multiple of four, so that rows can be read as float4.
func Stride(dim int) int { return (dim + 3) &^ 3 }

// The module tables the host fills before launching. Each holds two
// frames: frame 0 for the natural coordinate order and frame 1, after it, for
// the reversed order (position p is coordinate dim-1-p), which backward
// passes use (README, "Sweeps").
const (
	SymbolWeight     = "gibbs_weight"        // __constant__, [2][dim*stride]
	SymbolWeightG    = "gibbs_weight_global" // __device__, same contents
	SymbolOffset     = "gibbs_offset"        // __constant__, [2][dim]
	SymbolScale      = "gibbs_scale"         // __constant__, [2][dim]
	SymbolKeep       = "gibbs_keep"          // __constant__, [1]
	SymbolWeightTile = "gibbs_weight_tile"   // __device__, [2][dim][Tile.Row], the tiled kernel's layout
	SymbolMatM       = "gibbs_mat_m"         // __device__, [2][dim][MatrixShape.Stride]
	SymbolMatN       = "gibbs_mat_n"         // __device__, [3][dim][MatrixShape.Stride]
	SymbolMatC       = "gibbs_mat_c"         // __device__, [3][MatrixShape.Stride]
)

// Frames is the number of frames in each table but gibbs_keep.
const Frames = 2

// Symbol describes one module table.
type Symbol struct {
	Name    string
	Space   string // "constant" or "global"
	Length  func(dim int) int
	Meaning func(dim int) string
}

// Symbols lists every table, in the manifest's order.
func Symbols() []Symbol {
	weights := func(d int) int { return Frames * d * Stride(d) }
	vector := func(d int) int { return Frames * d }
	fixed := func(s string) func(int) string { return func(int) string { return s } }
	return []Symbol{
		{SymbolWeight, "constant", weights, func(d int) string {
			return fmt.Sprintf("weight[f*%d + j*%d + i] = -omega*Q[i][j]/Q[i][i] in frame f, the weight of position j in the conditional mean of position i (frame 0: position i is coordinate i; frame 1: coordinate %d-i); 0 on the diagonal and for i >= %d (padding)", d*Stride(d), Stride(d), d-1, d)
		}},
		{SymbolWeightG, "global", weights, fixed("same contents as gibbs_weight; the source the shared-memory kernels stage from")},
		{SymbolOffset, "constant", vector, fixed("offset[f*dim + i] = omega*(mu_i - sum_{j!=i} c_ij*mu_j), c_ij = -Q[i][j]/Q[i][i], computed in float64, for position i of frame f")},
		{SymbolScale, "constant", vector, fixed("scale[f*dim + i] = sqrt(omega*(2-omega))/sqrt(Q[i][i]) for position i of frame f: the conditional standard deviation at omega = 1")},
		{SymbolKeep, "constant", func(int) int { return 1 }, fixed("keep = 1 - omega, the weight of a coordinate's old value in its over-relaxed update (the Ext entry points)")},
		{SymbolWeightTile, "global", func(d int) int { return Frames * d * TileShape(d, Float32).Row }, func(d int) string {
			t := TileShape(d, Float32)
			return fmt.Sprintf("the weights of gibbs_weight by rows of %d elements: weight[f][j][k] at (f*%d + j)*%d + (v*%d + l)*VW + c for k = %d*l + VW*v + c, VW = 4 (float32) or 2 (float64)", t.Row, d, t.Row, t.P, t.S)
		}},
		{SymbolMatM, "global", func(d int) int { return 2 * d * matrixStride(d) }, func(d int) string {
			return fmt.Sprintf("the matrix form's state matrices, transposed: M_f[i][k] at (f*%d + k)*%d + i, i and k positions of frame f (0: forward passes, position p is coordinate p; 1: backward passes, position p is coordinate dim-1-p; README, \"The matrix form\"); 0 for i >= %d", d, matrixStride(d), d)
		}},
		{SymbolMatN, "global", func(d int) int { return MatrixFrames * d * matrixStride(d) }, func(d int) string {
			return fmt.Sprintf("the matrix form's noise matrices, transposed: N_f[i][p] at (f*%d + p)*%d + i, i and p positions of frame f (0 forward, 1 backward, as gibbs_mat_m; 2 exact draws, in coordinate order), lower triangular in every frame, p the position whose normal it weighs; 0 for i >= %d", d, matrixStride(d), d)
		}},
		{SymbolMatC, "global", func(d int) int { return MatrixFrames * matrixStride(d) }, func(d int) string {
			return fmt.Sprintf("the matrix form's offsets c_f[i] at f*%d + i, i a position of frame f (frame 2: mu); 0 for i >= %d", matrixStride(d), d)
		}},
	}
}

// SymbolsOf returns the tables that ks read, in Symbols order.
func SymbolsOf(ks []*Kernel) []Symbol {
	used := map[string]bool{}
	for _, k := range ks {
		for _, s := range k.Symbols {
			used[s] = true
		}
	}
	var out []Symbol
	for _, s := range Symbols() {
		if used[s.Name] {
			out = append(out, s)
		}
	}
	return out
}

// ParamKind is a kernel parameter's type. Pointers to the state's element
// type are written with the module's dtype.
type ParamKind int

const (
	StateP     ParamKind = iota + 1 // T*: the chain state, updated in place
	RealP                           // T*: an output array
	ConstRealP                      // const T*
	U32P                            // unsigned int*
	ConstU32P                       // const unsigned int*
	U64                             // unsigned long long
	U32                             // unsigned int
	F64P                            // double*
)

// CType is the parameter's C type for dtype dt.
func (k ParamKind) CType(dt DType) string {
	switch k {
	case StateP, RealP:
		return dt.CType() + "*"
	case ConstRealP:
		return "const " + dt.CType() + "*"
	case U32P:
		return "unsigned int*"
	case ConstU32P:
		return "const unsigned int*"
	case U64:
		return "unsigned long long"
	case U32:
		return "unsigned int"
	case F64P:
		return "double*"
	}
	return fmt.Sprintf("ParamKind(%d)", int(k))
}

// GoKind is how a launch passes a parameter: a device address, or an
// unsigned integer of 64 or 32 bits.
type GoKind int

const (
	GoPointer GoKind = iota + 1
	GoUint64
	GoUint32
)

func (g GoKind) String() string {
	switch g {
	case GoPointer:
		return "device pointer"
	case GoUint64:
		return "uint64"
	case GoUint32:
		return "uint32"
	}
	return fmt.Sprintf("GoKind(%d)", int(g))
}

// Go returns how a launch passes a parameter of kind k.
func (k ParamKind) Go() GoKind {
	switch k {
	case U64:
		return GoUint64
	case U32:
		return GoUint32
	}
	return GoPointer
}

// Param is one kernel parameter, in order. The parameter lists are the
// kernel ABI's one writing: gen renders the entry points' C signatures from
// them and gibbsrt builds the launch arguments from them.
type Param struct {
	Name string
	Kind ParamKind
	// Break starts a new line of the rendered C signature before this
	// parameter: layout only, so that the source reads as it was written
	// by hand.
	Break bool
}

// CheckArgs reports whether a launch's arguments, given as their GoKinds,
// match params, the parameters of the entry point name, in number and kind.
func CheckArgs(name string, params []Param, args []GoKind) error {
	if len(args) != len(params) {
		return fmt.Errorf("kernel %s takes %d arguments, launched with %d", name, len(params), len(args))
	}
	for i, p := range params {
		if args[i] != p.Kind.Go() {
			return fmt.Errorf("kernel %s argument %d (%s) must be a %v, launched as a %v", name, i, p.Name, p.Kind.Go(), args[i])
		}
	}
	return nil
}
