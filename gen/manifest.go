package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// ManifestName is the manifest's file name inside a generated package.
const ManifestName = "gibbsgen.json"

// Param is one kernel parameter, in order.
type Param struct {
	Name  string `json:"name"`
	CType string `json:"c_type"`
}

// Grid is a kernel's launch shape: ceil(units/per_block) blocks of threads
// threads, in one dimension.
type Grid struct {
	Units    string `json:"units"`
	PerBlock int    `json:"per_block"`
	Threads  int    `json:"threads"`
}

// Kernel is one entry point of the module.
type Kernel struct {
	Name     string   `json:"name"`
	Role     string   `json:"role"`               // kernels.Role's name: "sweep", "sweep_trace", "moments", ...
	Strategy string   `json:"strategy,omitempty"` // for role "sweep"
	Auto     string   `json:"auto,omitempty"`     // when Auto picks the strategy, in Auto's order
	Launch   string   `json:"launch"`
	Grid     Grid     `json:"grid"`
	Doc      string   `json:"doc"`
	Params   []Param  `json:"params"`
	Reads    []string `json:"reads"` // the symbols it reads
	// Image is where the kernel is: "ptx" for the per-model kernel, in the
	// file ptx_file names; empty for the fatbin.
	Image string `json:"image,omitempty"`
}

// Symbol is one constant table the host fills before launching.
type Symbol struct {
	Name    string `json:"name"`
	Space   string `json:"space"` // "constant" or "global"
	Type    string `json:"element_type"`
	Length  int    `json:"length"`
	Meaning string `json:"meaning"`
}

// Manifest describes a generated module for hosts in any language.
type Manifest struct {
	Gibbsgen string `json:"gibbsgen"`
	Package  string `json:"package"`
	ABI      int    `json:"abi_version"` // gibbsrt.GenVersion of the package
	Dim      int    `json:"dim"`
	DType    string `json:"dtype"`
	State    string `json:"state"`
	Stream   string `json:"stream"`
	StreamV  int    `json:"stream_version"`
	// NormalTable is the normal transform's table (README "The random
	// stream"): for each cell, 16·octave + segment, the float32 bit
	// patterns of c0, c1, c2, c3 in hex.
	NormalTable []string          `json:"normal_table"`
	Targets     []string          `json:"targets"`
	NVCC        string            `json:"nvcc"`
	Kernels     []Kernel          `json:"kernels"`
	Symbols     []Symbol          `json:"symbols"`
	Resources   []Resources       `json:"resources"`
	SourceHash  string            `json:"source_sha256"`
	FatbinHash  string            `json:"fatbin_sha256"`
	PTXFile     string            `json:"ptx_file,omitempty"`          // the per-model kernel's PTX, with markers
	PTXSource   string            `json:"ptx_source_sha256,omitempty"` // of the CUDA source nvcc -ptx compiled
	PTXArch     string            `json:"ptx_arch,omitempty"`
	Files       map[string]string `json:"files"` // every other file gibbsgen wrote, with its SHA-256
}

// Kernels describes the entry points of the kernels ks, for dtype dt, from
// their table rows: each row's kernel, and after a sweep kernel its traced
// twin.
func Kernels(ks []*kernels.Kernel, dt kernels.DType) []Kernel {
	var out []Kernel
	for _, k := range ks {
		mk := Kernel{
			Name:   k.Name,
			Role:   k.Role.String(),
			Launch: k.Geometry.String(),
			Grid:   Grid{k.Geometry.Unit, k.Geometry.PerBlock, k.Geometry.Threads},
			Doc:    k.Doc,
			Params: params(k.Params, dt),
			Reads:  append([]string{}, k.Symbols...),
		}
		if k.PTX {
			mk.Image = "ptx"
		}
		if k.Role == kernels.Sweep {
			mk.Strategy = k.StrategyName
			mk.Auto = fmt.Sprintf("rank %d: %s", k.AutoRank, k.AutoDoc)
		}
		out = append(out, mk)
		if k.Traced != "" {
			mt := mk
			mt.Name, mt.Role, mt.Auto = k.Traced, "sweep_trace", ""
			mt.Doc = "as " + k.Name + ", recording states into trace"
			mt.Params = params(k.TracedParams, dt)
			out = append(out, mt)
		}
	}
	return out
}

func params(ps []kernels.Param, dt kernels.DType) []Param {
	var out []Param
	for _, p := range ps {
		out = append(out, Param{p.Name, p.Kind.CType(dt)})
	}
	return out
}

// Symbols lists the tables the kernels ks read, for dim.
func Symbols(ks []*kernels.Kernel, dim int, dt kernels.DType) []Symbol {
	var out []Symbol
	for _, s := range kernels.SymbolsOf(ks) {
		out = append(out, Symbol{s.Name, s.Space, dt.CType(), s.Length(dim), s.Meaning(dim)})
	}
	return out
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// NewManifest describes the package built from s, src and b.
func NewManifest(s Spec, src Source, b Build) Manifest {
	return Manifest{
		Gibbsgen:    Version,
		Package:     s.Package,
		ABI:         kernels.ABIVersion,
		Dim:         s.Dim,
		DType:       string(s.dtype()),
		State:       fmt.Sprintf("row-major [chains][dim] %s, updated in place", s.dtype()),
		Stream:      "Philox4x32-10, key (seed lo, seed hi), counter (chain lo, chain hi, sweep lo, (sweep hi)<<16 | i/4); one normal per word by the table-driven inverse CDF; see gibbsrt/stream.go and the README",
		StreamV:     kernels.StreamVersion,
		NormalTable: normalTableHex(),
		Targets:     b.Targets,
		NVCC:        b.NVCC,
		Kernels:     Kernels(s.Kernels(), s.dtype()),
		Symbols:     Symbols(s.Kernels(), s.Dim, s.dtype()),
		Resources:   b.Resources,
		SourceHash:  sha(src.Text),
		FatbinHash:  sha(b.Fatbin),
		PTXFile:     ptxFile(s, b),
		PTXSource:   ptxSourceHash(s, b),
		PTXArch:     b.PTXArch,
		Files:       map[string]string{},
	}
}

// Encode renders the manifest as indented JSON with a final newline.
func (m Manifest) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<<" readable; the manifest is not HTML
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// normalTableHex is kernels.NormalTable as the manifest lists it.
func normalTableHex() []string {
	out := make([]string, len(kernels.NormalTable))
	for c, row := range kernels.NormalTable {
		out[c] = fmt.Sprintf("%08X %08X %08X %08X", row[0], row[1], row[2], row[3])
	}
	return out
}

func ptxFile(s Spec, b Build) string {
	if b.PTX == nil {
		return ""
	}
	return ptxName(s)
}

// ptxSourceHash is the SHA-256 of the per-model kernel's CUDA source, which
// the package does not hold: with it, a template change shows in the
// manifest without nvcc.
func ptxSourceHash(s Spec, b Build) string {
	if b.PTX == nil {
		return ""
	}
	src, ok, err := RenderPTXSource(s)
	if err != nil || !ok {
		return ""
	}
	return sha(src.Text)
}
