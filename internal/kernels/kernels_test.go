package kernels

import (
	"slices"
	"strings"
	"testing"
)

// TestTableRows checks what every row must say: unique names and blocks,
// strategy fields exactly on sweep rows, an Auto rule that always ends in a
// strategy whose rule always holds, and parameters with known kinds.
func TestTableRows(t *testing.T) {
	names, blocks := map[string]bool{}, map[string]bool{}
	var sweeps []*Kernel
	for _, k := range All() {
		if names[k.Name] || blocks[k.Block] {
			t.Errorf("kernel %s: name or block %q repeated", k.Name, k.Block)
		}
		names[k.Name], blocks[k.Block] = true, true
		if strings.HasPrefix(k.Role.String(), "Role(") {
			t.Errorf("kernel %s: role %d has no name for the manifest", k.Name, k.Role)
		}
		if g := k.Launch(64, Float32); k.Dims[Float32] < 1 || len(k.Params) == 0 || g.PerBlock < 1 || g.Threads < 1 {
			t.Errorf("kernel %s: incomplete row %+v", k.Name, k)
		}
		for _, p := range k.Params {
			if p.Kind < StateP || p.Kind > ConstF64P {
				t.Errorf("kernel %s: parameter %s has kind %d", k.Name, p.Name, p.Kind)
			}
		}
		if k.Role == Sweep {
			if !k.MatrixForm {
				sweeps = append(sweeps, k)
			}
			if k.Strategy == Auto || k.StrategyName == "" || k.GoName == "" || k.Prefer == nil || k.AutoDoc == "" {
				t.Errorf("sweep kernel %s lacks strategy fields", k.Name)
			}
			if k.Ext != k.Name+"_ext" || len(k.ExtParams) != len(k.Params)+9 || k.Traced != k.Name+"_trace" || len(k.TracedParams) != len(k.Params)+6 {
				t.Errorf("sweep kernel %s: entry points %q with %d parameters, %q with %d", k.Name, k.Traced, len(k.TracedParams), k.Ext, len(k.ExtParams))
			}
			if got, err := ParseStrategy(k.StrategyName); err != nil || got != k.Strategy {
				t.Errorf("ParseStrategy(%q) = %v, %v", k.StrategyName, got, err)
			}
		} else if k.Strategy != Auto || k.StrategyName != "" || (k.Prefer != nil) != (k.Role == Exact) || (k.AutoDoc != "") != (k.Role == Exact) {
			t.Errorf("kernel %s (role %d) has strategy fields, or an exact-draw kernel lacks Prefer and AutoDoc", k.Name, k.Role)
		}
	}
	slices.SortFunc(sweeps, func(a, b *Kernel) int { return a.AutoRank - b.AutoRank })
	last := sweeps[len(sweeps)-1]
	for _, s := range []Shape{{1, 1, 1, 1, false, Float32}, {64, 1 << 30, 1 << 20, 200, true, Float64}} {
		if !last.Prefer(s) {
			t.Errorf("Auto's last strategy %s does not hold at %+v: some shapes fall through", last.Name, s)
		}
	}
	if got := Strategies(); !slices.Equal(got, []Strategy{ConstMemory, SharedMemory, WarpPerChain, Specialized, Tiled, Matrix}) {
		t.Errorf("Strategies() = %v", got)
	}
	if MaxDim(Float32) != TileMaxDim || MaxDim(Float64) != TileMaxDim {
		t.Errorf("MaxDim = %d (float32), %d (float64)", MaxDim(Float32), MaxDim(Float64))
	}
}

// TestTileShape: the tiled kernel's lanes hold every position in slots of
// at most 32, a multiple of 4; its table index is a bijection of the
// positions onto each row, with lane l's vector v at (v·P + l)·VW.
func TestTileShape(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for dim := 1; dim <= TileMaxDim; dim++ {
			tl := TileShape(dim, dt)
			if tl.P*tl.S < dim || tl.S%4 != 0 || tl.S > 32 || tl.P > 32 || 32%tl.P != 0 || tl.Rows < 1 || tl.Rows*tl.Row*dt.Size() > TileBytes && tl.Rows > 1 {
				t.Fatalf("dim %d %s: shape %+v", dim, dt, tl)
			}
			if dim > 64 && dim%61 != 0 {
				continue
			}
			seen := make([]bool, tl.Row)
			for k := 0; k < tl.P*tl.S; k++ {
				i := tl.TileIndex(dim, 0, 0, k)
				if i < 0 || i >= tl.Row || seen[i] {
					t.Fatalf("dim %d %s: position %d at %d", dim, dt, k, i)
				}
				seen[i] = true
			}
			if tl.S > tl.VW { // lane 1's second vector
				if got := tl.TileIndex(dim, 1, 2, tl.S+tl.VW); got != (dim+2)*tl.Row+(tl.P+1)*tl.VW {
					t.Fatalf("dim %d %s: frame 1, row 2, lane 1's second vector at %d", dim, dt, got)
				}
			}
		}
	}
}

// TestTables: every table has a unique name, a known space and source, a
// positive length; every table a row reads is described, and a row reads
// the tables it declares; and a layout
// function puts each of its source's elements it takes at a distinct index
// inside the table, from inside the source.
func TestTables(t *testing.T) {
	names := map[string]bool{}
	for _, s := range Symbols() {
		if names[s.Name] || (s.Space != "constant" && s.Space != "global") || s.Source < SourceWeight || s.Source > SourceMatC || s.Meaning == nil {
			t.Errorf("table %+v: repeated or incomplete", s)
		}
		names[s.Name] = true
	}
	for _, k := range All() {
		for _, n := range k.Symbols {
			if !names[n] {
				t.Errorf("kernel %s reads table %q, which no row describes", k.Name, n)
			}
		}
		for _, own := range k.Tables {
			if !slices.Contains(k.Symbols, own.Name) {
				t.Errorf("kernel %s declares table %s but does not read it", k.Name, own.Name)
			}
		}
	}
	weights, _ := SymbolNamed(SymbolWeight)
	for _, dt := range Generated {
		for _, dim := range []int{1, 5, 13, 64, 65, 129, 1024} {
			for _, s := range Symbols() {
				n := s.Length(dim, dt)
				if n < 1 {
					t.Fatalf("table %s at dim %d %s: length %d", s.Name, dim, dt, n)
				}
				if s.Layout == nil {
					continue
				}
				src := weights.Length(dim, dt) // the only source with a layout so far
				dst, count := make([]bool, n), 0
				s.Layout(dim, dt, func(d, i int) {
					if d < 0 || d >= n || dst[d] || i < 0 || i >= src {
						t.Fatalf("table %s at dim %d %s: element %d of the source put at %d", s.Name, dim, dt, i, d)
					}
					dst[d] = true
					count++
				})
				if want := Frames * dim * dim; count != want {
					t.Errorf("table %s at dim %d %s: %d weights laid out, want %d", s.Name, dim, dt, count, want)
				}
			}
		}
	}
}

// TestPlainLoops pins where a plain entry point loops over its groups
// through the state's pipeline: the specialized kernel at every float32
// dim whose rows are staged (9 to 64), the shared one up to
// sharedLoopMax, the constant-memory one and float64 never.
func TestPlainLoops(t *testing.T) {
	want := map[Strategy]func(int) bool{
		Specialized:  func(d int) bool { return d >= 9 },
		SharedMemory: func(d int) bool { return d >= 9 && d <= sharedLoopMax },
		ConstMemory:  func(int) bool { return false },
	}
	for _, k := range All() {
		w, ok := want[k.Strategy]
		if !ok || k.Role != Sweep {
			continue
		}
		for d := 1; d <= k.Dims[Float32]; d++ {
			if got := k.Launch(d, Float32).PlainLoops; got != w(d) {
				t.Errorf("%s at dim %d float32: PlainLoops = %v", k.Name, d, got)
			}
		}
		for d := 1; d <= k.Dims[Float64]; d++ {
			if k.Launch(d, Float64).PlainLoops {
				t.Errorf("%s at dim %d float64 loops", k.Name, d)
			}
		}
	}
}

// TestPullSums pins the launches whose sums the per-model kernel pulls:
// 1 to 8 sweeps in float32, 1 in float64 (run 39's crossings, 10 to 14
// and 2.4 sweeps, with a margin).
func TestPullSums(t *testing.T) {
	for _, c := range []struct {
		dt     DType
		sweeps int
		want   bool
	}{{Float32, 0, false}, {Float32, 1, true}, {Float32, 8, true}, {Float32, 9, false}, {Float32, 100, false},
		{Float64, 0, false}, {Float64, 1, true}, {Float64, 2, false}} {
		if got := PullSums(c.dt, c.sweeps); got != c.want {
			t.Errorf("PullSums(%v, %d) = %v, want %v", c.dt, c.sweeps, got, c.want)
		}
	}
	if got := EntryPulled.String(); got != "pulled" || !EntryPulled.Plain() {
		t.Errorf("EntryPulled: %q, plain %v", got, EntryPulled.Plain())
	}
	k := Named("gibbs_sweep_model")
	if name, params := k.EntryPoint(EntryPulled); name != k.Pulled || len(params) != len(k.Params) {
		t.Errorf("EntryPoint(EntryPulled) = %s, %d parameters; want %s, %d", name, len(params), k.Pulled, len(k.Params))
	}
}
