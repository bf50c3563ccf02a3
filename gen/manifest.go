package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// ManifestName is the manifest's file name inside a generated package.
const ManifestName = "gibbsgen.json"

// Param is one kernel parameter, in order.
type Param struct {
	Name  string `json:"name"`
	CType string `json:"c_type"`
}

// Grid is a kernel's launch shape: ceil(units/per_block) blocks of threads
// threads, in one dimension, times tiles where it has them (a block per
// group of units and tile of outputs). With per_sm, the _ext entry point
// (every entry point, with loops) loops over its groups (and tiles), so any
// grid is correct for it; the runtime caps its grid at per_sm blocks per
// multiprocessor.
type Grid struct {
	Units    string `json:"units"`
	PerBlock int    `json:"per_block"`
	Threads  int    `json:"threads"`
	// SharedBytes is the dynamic shared memory per block. Past 48 KB a
	// host sets the kernel's attribute first; an exact-draw kernel whose
	// bytes the device cannot give a block is left out (the runtime does
	// so: another exact-draw kernel draws the same bits).
	SharedBytes int  `json:"shared_bytes,omitempty"`
	Tiles       int  `json:"tiles,omitempty"`
	Loops       bool `json:"loops,omitempty"`
	PerSM       int  `json:"per_sm,omitempty"`
	// A Chebyshev launch of the _ext entry point may ask for this much
	// dynamic shared memory, to keep its iterates there; launched with
	// less, it keeps them in x and prev.
	ChebyshevSharedBytes int `json:"chebyshev_shared_bytes,omitempty"`
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
	ABI      int    `json:"abi_version"` // gibbsimpl.GenVersion of the package
	Dim      int    `json:"dim"`
	DType    string `json:"dtype"`
	State    string `json:"state"`
	Stream   string `json:"stream"`
	StreamV  int    `json:"stream_version"`
	// Update is the sweep's arithmetic, exactly (docs/ARITHMETIC.md,
	// "The sampler, exactly").
	Update string `json:"update"`
	// NormalTable is the normal transform's table (docs/ARITHMETIC.md,
	// "The random stream"): for each cell, 16·octave + segment, the float32 bit
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

// updateDoc is the manifest's "update".
const updateDoc = "a pass over the positions p = 0..dim-1 of frame f (f = 0: position p is coordinate p; f = 1: coordinate dim-1-p), with the tables of frame f (offset[f*dim+p], weight[f*dim*stride + q*stride + p], scale[f*dim+p]): acc = offset[p]; acc = fma(weight[q][p], x_q, acc) for q = p+1..dim-1, 0..p-1; then x_p = fma(scale[p], z_p, acc) in the plain entry points, x_p = fma(scale[p], g*z_p, fma(keep, x_p, acc)) in the _ext ones (g = 1 but in Chebyshev iterations); every fma and product rounded once to the element type. A forward sweep is a pass in frame 0, a backward sweep one in frame 1, a symmetric sweep a pass in frame 0 then one in frame 1. A Chebyshev iteration is a symmetric sweep with factors g = cheb[5s], cheb[5s+1], then x = fma(cheb[5s+2], x, fma(cheb[5s+3], y, cheb[5s+4]*prev)) with y the iterate before the sweep, and prev = y."

// manifestKernels describes the module's entry points from their table
// rows: each row's kernel, and after a sweep kernel its traced and its Ext
// twin.
func (s *module) manifestKernels() []Kernel {
	dt := s.dtype
	var out []Kernel
	for _, k := range s.all {
		g := k.Launch(s.Dim, dt)
		mk := Kernel{
			Name:   k.Name,
			Role:   k.Role.String(),
			Launch: g.String(),
			Grid:   Grid{g.Unit, g.PerBlock, g.Threads, g.Shared, g.Tiles, g.Loops, g.PerSM, g.ChebyshevShared},
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
		if k.Role == kernels.Sweep {
			mt := mk
			mt.Name, mt.Role, mt.Auto = k.Traced, "sweep_trace", ""
			mt.Doc = "as " + k.Name + ", recording states into trace: after each sweep s with (s+1) % thin == 0, chains trace_chain0..trace_chain0+trace_chains-1 write coordinate i to column trace_index[i] (none if 0xFFFFFFFF) of their row of trace, [records][trace_chains][trace_cols]"
			mt.Params = params(k.TracedParams, dt)
			me := mk
			me.Name, me.Role, me.Auto = k.Ext, "sweep_ext", ""
			me.Doc = "as " + k.Name + ", for the sweeps of kind (" + sweepKindList() + ") with the over-relaxation of gibbs_keep (see \"update\"); with cheb non-null, each sweep is a Chebyshev iteration: cheb[5s..5s+4] holds iteration s's factors on the forward and the backward pass's normals, then the weights of the swept state, of the current iterate and of prev (the previous iterates, [chains][dim], updated in place); with trace non-null, records as " + k.Traced + " does"
			me.Params = params(k.ExtParams, dt)
			out = append(out, mt, me)
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

// manifestSymbols lists the tables the module's kernels read.
func (s *module) manifestSymbols() []Symbol {
	var out []Symbol
	for _, t := range s.tables {
		out = append(out, Symbol{t.Name, t.Space, s.dtype.CType(), t.Length(s.Dim, s.dtype), t.Meaning(s.Dim, s.dtype)})
	}
	return out
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// manifest describes the package built from s, its rendered sources (ptx
// is the zero source when s has no per-model kernel) and b.
func (s *module) manifest(src, ptx source, b Build) Manifest {
	return Manifest{
		Gibbsgen:    Version,
		Package:     s.Package,
		ABI:         kernels.ABIVersion,
		Dim:         s.Dim,
		DType:       string(s.dtype),
		State:       fmt.Sprintf("row-major [chains][dim] %s, updated in place", s.dtype),
		Stream:      fmt.Sprintf("Philox4x32-10, key (seed lo, seed hi), counter (chain lo, chain hi, sweep lo, (sweep hi)<<16 | g), g = p/4 for position p of a forward pass, p/4 | %#x of a backward pass; one normal per word by the table-driven inverse CDF; see package gibbsrt/stream and the README", kernels.BackwardGroups),
		Update:      updateDoc,
		StreamV:     stream.Version,
		NormalTable: normalTableHex(),
		Targets:     b.Targets,
		NVCC:        b.NVCC,
		Kernels:     s.manifestKernels(),
		Symbols:     s.manifestSymbols(),
		Resources:   b.Resources,
		SourceHash:  sha(src.Text),
		FatbinHash:  sha(b.Fatbin),
		PTXFile:     ptxFile(s, b),
		PTXSource:   ptxSourceHash(s, ptx, b),
		PTXArch:     b.PTXArch,
		Files:       map[string]string{},
	}
}

// encode renders the manifest as indented JSON with a final newline.
func (m Manifest) encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "<<" readable; the manifest is not HTML
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// normalTableHex is stream.NormalTable as the manifest lists it.
func normalTableHex() []string {
	out := make([]string, len(stream.NormalTable))
	for c, row := range stream.NormalTable {
		out[c] = fmt.Sprintf("%08X %08X %08X %08X", row[0], row[1], row[2], row[3])
	}
	return out
}

func ptxFile(s *module, b Build) string {
	if b.PTX == nil {
		return ""
	}
	return ptxName(s)
}

// ptxSourceHash is the SHA-256 of the per-model kernel's CUDA source, which
// the package does not hold: with it, a template change shows in the
// manifest without nvcc.
func ptxSourceHash(s *module, ptx source, b Build) string {
	if b.PTX == nil || !s.hasPTX() {
		return ""
	}
	return sha(ptx.Text)
}

// sweepKindList is the Ext entry points' kinds by value, from mixing's
// sweep table: "0 forward, 1 backward, 2 symmetric".
func sweepKindList() string {
	var kinds []string
	for _, k := range mixing.SweepKinds() {
		kinds = append(kinds, fmt.Sprintf("%d %v", int(k), k))
	}
	return strings.Join(kinds, ", ")
}
