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
// passes use (docs/ARITHMETIC.md, "Sweeps"). The tables every sequential strategy
// shares are listed here; a strategy with a layout of its own declares its
// tables in its row (Kernel.Tables).
const (
	SymbolWeight  = "gibbs_weight"        // __constant__, [2][dim*stride]
	SymbolWeightG = "gibbs_weight_global" // __device__, same contents
	SymbolOffset  = "gibbs_offset"        // __constant__, [2][dim]
	SymbolScale   = "gibbs_scale"         // __constant__, [2][dim]
	SymbolKeep    = "gibbs_keep"          // __constant__, [1]
)

// Frames is the number of frames in each table but gibbs_keep.
const Frames = 2

// Source is the model data the runtime fills a table from.
type Source int

const (
	// SourceWeight is gibbsrt.Coefficients.Weight, [Frames][dim][Stride(dim)]:
	// the weight of position j in position i's mean in frame f at
	// (f*dim + j)*Stride(dim) + i.
	SourceWeight Source = iota + 1
	SourceOffset        // Coefficients.Offset, [Frames][dim]
	SourceScale         // Coefficients.Scale, [Frames][dim]
	SourceKeep          // Coefficients.Keep, one value
	SourceMatM          // gibbsrt.MatrixTables.M, in its own layout
	SourceMatN          // MatrixTables.N
	SourceMatC          // MatrixTables.C
)

// Extent is one dimension of a table: the C macro the module source
// defines for it and its value.
type Extent struct {
	Macro string
	Of    func(dim int, dt DType) int
}

var (
	extentDim   = Extent{"GG_DIM", func(d int, _ DType) int { return d }}
	extentFrame = Extent{"GG_FRAME", func(d int, _ DType) int { return d * Stride(d) }} // a frame of weights
)

// Symbol describes one module table: its declaration in the module
// source, its entry in the manifest, and how the runtime fills it.
type Symbol struct {
	Name  string
	Space string // "constant" or "global"
	// The table holds Frames times the product of Extents elements; the
	// source declares it so, with the extents' macros.
	Frames  int
	Extents []Extent
	Meaning func(dim int, dt DType) string
	// Source is the model data the table holds. Layout, if set, is its
	// layout function: it calls put(dst, src) for every element the table
	// takes from the source (the others are 0); nil means the source's
	// own layout.
	Source Source
	Layout func(dim int, dt DType, put func(dst, src int))
	// OnDemand tables are computed and uploaded by the first launch that
	// reads them after SetModel, not by SetModel.
	OnDemand bool
}

// Length is the table's number of elements at dim and dt.
func (s Symbol) Length(dim int, dt DType) int {
	n := s.Frames
	for _, e := range s.Extents {
		n *= e.Of(dim, dt)
	}
	return n
}

// shared lists the tables the sequential strategies share, in the
// manifest's order.
func shared() []Symbol {
	fixed := func(s string) func(int, DType) string { return func(int, DType) string { return s } }
	weights := []Extent{extentFrame}
	vector := []Extent{extentDim}
	return []Symbol{
		{Name: SymbolWeight, Space: "constant", Frames: Frames, Extents: weights, Source: SourceWeight, Meaning: func(d int, _ DType) string {
			return fmt.Sprintf("weight[f*%d + j*%d + i] = -omega*Q[i][j]/Q[i][i] in frame f, the weight of position j in the conditional mean of position i (frame 0: position i is coordinate i; frame 1: coordinate %d-i); 0 on the diagonal and for i >= %d (padding)", d*Stride(d), Stride(d), d-1, d)
		}},
		{Name: SymbolWeightG, Space: "global", Frames: Frames, Extents: weights, Source: SourceWeight, Meaning: fixed("same contents as gibbs_weight; the source the shared-memory kernels stage from")},
		{Name: SymbolOffset, Space: "constant", Frames: Frames, Extents: vector, Source: SourceOffset, Meaning: fixed("offset[f*dim + i] = omega*(mu_i - sum_{j!=i} c_ij*mu_j), c_ij = -Q[i][j]/Q[i][i], computed in float64, for position i of frame f")},
		{Name: SymbolScale, Space: "constant", Frames: Frames, Extents: vector, Source: SourceScale, Meaning: fixed("scale[f*dim + i] = sqrt(omega*(2-omega))/sqrt(Q[i][i]) for position i of frame f: the conditional standard deviation at omega = 1")},
		{Name: SymbolKeep, Space: "constant", Frames: 1, Source: SourceKeep, Meaning: fixed("keep = 1 - omega, the weight of a coordinate's old value in its over-relaxed update (the Ext entry points)")},
	}
}

// Symbols lists every table, in the manifest's order: the shared ones,
// then each row's own, in table order.
func Symbols() []Symbol {
	out := shared()
	for i := range table {
		out = append(out, table[i].Tables...)
	}
	return out
}

// SymbolNamed returns the table called name.
func SymbolNamed(name string) (Symbol, bool) {
	for _, s := range Symbols() {
		if s.Name == name {
			return s, true
		}
	}
	return Symbol{}, false
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
	ConstF64P                       // const double*
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
	case ConstF64P:
		return "const double*"
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
