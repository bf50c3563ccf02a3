package gen

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"text/template"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"github.com/gibbsgen/gibbsgen/templates"
)

// Source is rendered CUDA C++ for one spec.
type Source struct {
	Name string // file name, e.g. "gibbs32.cu"
	Text []byte
	// Spills is the spill bytes (stores or loads) that Compile accepts
	// from each named entry point without --allow-spills: the table's
	// measured exceptions (kernels.Kernel.Spills), none by default.
	Spills map[string]int
}

// normalData is the normal transform's table and shape, for rng.cu.tmpl.
type normalData struct {
	StreamVersion, Cells, Segments, SegmentBits, DropBits int
	Flip                                                  uint32
	Table                                                 [kernels.NormalCells][kernels.NormalDegree + 1]uint32
}

var normal = normalData{
	StreamVersion: kernels.StreamVersion,
	Cells:         kernels.NormalCells,
	Segments:      1 << kernels.NormalSegmentBits,
	SegmentBits:   kernels.NormalSegmentBits,
	DropBits:      kernels.NormalDropBits,
	Flip:          kernels.NormalFlip,
	Table:         kernels.NormalTable,
}

type cudaData struct {
	Version                                          string
	Dim, Stride, Groups, Block, WarpsPerBlock, Lanes int
	MomentThreads, MomentTile, MomentTileBytes       int
	BackwardGroups, ChebyshevStride                  int
	Tile                                             kernels.Tile
	TileWarps                                        int
	Matrix                                           kernels.MatrixShape
	MatrixExactKind                                  int
	DType                                            kernels.DType
	Normal                                           normalData
	Kernels                                          []*kernels.Kernel
	symbols                                          []kernels.Symbol
}

// Uses reports whether the module's kernels read the table called name;
// the template declares only those.
func (d cudaData) Uses(name string) bool {
	return slices.ContainsFunc(d.symbols, func(s kernels.Symbol) bool { return s.Name == name })
}

// entryData names a strategy's entry points for the "sweep_entries" block,
// with the C name of the element type.
type entryData struct{ Name, Body, Bounds, Real string }

var cudaTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"entry": func(name, body, bounds, real string) entryData { return entryData{name, body, bounds, real} },
}).ParseFS(templates.FS, "*.cu.tmpl"))

// RenderCUDA renders the module's shared code, then the block of each
// kernel s selects for the fatbin, in table order.
func RenderCUDA(s Spec) (Source, error) {
	return render(s, s.Package+".cu", fatbinKernels(s.Kernels()))
}

// RenderPTXSource renders the source of the kernels s selects that ship as
// PTX (the per-model kernel): the shared code, then their blocks. ok is
// false when s selects none.
func RenderPTXSource(s Spec) (src Source, ok bool, err error) {
	ks := ptxKernels(s.Kernels())
	if len(ks) == 0 {
		return Source{}, false, nil
	}
	src, err = render(s, s.Package+"_ptx.cu", ks)
	return src, err == nil, err
}

func fatbinKernels(ks []*kernels.Kernel) []*kernels.Kernel {
	return slices.DeleteFunc(slices.Clone(ks), func(k *kernels.Kernel) bool { return k.PTX })
}

func ptxKernels(ks []*kernels.Kernel) []*kernels.Kernel {
	return slices.DeleteFunc(slices.Clone(ks), func(k *kernels.Kernel) bool { return !k.PTX })
}

func render(s Spec, name string, ks []*kernels.Kernel) (Source, error) {
	d := cudaData{
		Version:         Version,
		Dim:             s.Dim,
		Stride:          kernels.Stride(s.Dim),
		Groups:          (s.Dim + 3) / 4,
		Block:           kernels.ThreadBlock,
		WarpsPerBlock:   kernels.WarpsPerBlock,
		Lanes:           (s.Dim + 31) / 32,
		MomentThreads:   kernels.MomentThreads,
		MomentTile:      kernels.MomentTile,
		MomentTileBytes: kernels.MomentTileBytes,
		BackwardGroups:  kernels.BackwardGroups,
		Tile:            kernels.TileShape(s.Dim, s.dtype()),
		TileWarps:       kernels.TileWarps,
		Matrix:          kernels.MatrixShapeOf(s.Dim, s.dtype()),
		MatrixExactKind: kernels.MatrixExactKind,
		ChebyshevStride: kernels.ChebyshevStride,
		DType:           s.dtype(),
		Normal:          normal,
		Kernels:         ks,
		symbols:         kernels.SymbolsOf(ks),
	}
	var buf bytes.Buffer
	if err := cudaTemplates.ExecuteTemplate(&buf, templates.Sampler, d); err != nil {
		return Source{}, fmt.Errorf("rendering %s: %w", templates.Sampler, err)
	}
	for i, k := range ks {
		if i > 0 {
			buf.WriteByte('\n')
		}
		if err := cudaTemplates.ExecuteTemplate(&buf, k.Block, d); err != nil {
			return Source{}, fmt.Errorf("rendering kernel %s: %w", k.Name, err)
		}
	}
	spills := map[string]int{}
	for _, k := range ks {
		if k.Spills != nil {
			maps.Copy(spills, k.Spills(s.Dim, s.dtype()))
		}
	}
	return Source{Name: name, Text: buf.Bytes(), Spills: spills}, nil
}

// RenderRNG renders the random stream's device code alone, as a header for
// CUDA code outside the generated modules (gibbsbench's baseline kernels).
func RenderRNG() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString("// Code generated by gibbsgen " + Version + " from templates/rng.cu.tmpl. DO NOT EDIT.\n\n")
	if err := cudaTemplates.ExecuteTemplate(&buf, templates.RNG, cudaData{Normal: normal}); err != nil {
		return nil, fmt.Errorf("rendering the rng template: %w", err)
	}
	return buf.Bytes(), nil
}
