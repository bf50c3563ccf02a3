package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// ManifestName is the manifest's file name inside a generated package.
const ManifestName = "gibbsgen.json"

// Param is one kernel parameter, in order.
type Param struct {
	Name  string `json:"name"`
	CType string `json:"c_type"`
}

// Kernel is one entry point of the module.
type Kernel struct {
	Name   string  `json:"name"`
	Launch string  `json:"launch"`
	Doc    string  `json:"doc"`
	Params []Param `json:"params"`
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
	Gibbsgen   string            `json:"gibbsgen"`
	Package    string            `json:"package"`
	Dim        int               `json:"dim"`
	DType      string            `json:"dtype"`
	State      string            `json:"state"`
	Stream     string            `json:"stream"`
	Targets    []string          `json:"targets"`
	NVCC       string            `json:"nvcc"`
	Kernels    []Kernel          `json:"kernels"`
	Symbols    []Symbol          `json:"symbols"`
	Resources  []Resources       `json:"resources"`
	SourceHash string            `json:"source_sha256"`
	FatbinHash string            `json:"fatbin_sha256"`
	Files      map[string]string `json:"files"` // every other file gibbsgen wrote, with its SHA-256
}

var sweepParams = []Param{
	{"x", "float*"}, {"chains", "unsigned long long"}, {"sweeps", "unsigned int"},
	{"seed", "unsigned long long"}, {"sweep0", "unsigned long long"}, {"chain0", "unsigned long long"},
}

// Kernels lists the module's entry points. A test checks it against the
// signatures in the rendered source.
func Kernels() []Kernel {
	tb := fmt.Sprintf("1-D grid of ceil(chains/%d) blocks of %d threads", threadBlock, threadBlock)
	return []Kernel{
		{gibbsrt.KernelConst, tb, "sweeps sweeps over x ([chains][dim] row-major, in place), one chain per thread, weights read from constant memory; chain j draws the normals of chain chain0+j at sweeps sweep0..sweep0+sweeps-1", sweepParams},
		{gibbsrt.KernelShared, tb, "as gibbs_sweep_const, weights staged from gibbs_weight_global into shared memory", sweepParams},
		{gibbsrt.KernelWarp, fmt.Sprintf("1-D grid of ceil(chains/%d) blocks of %d threads (one warp per chain)", warpsPerBlock, 32*warpsPerBlock), "as gibbs_sweep_shared, one chain per warp: for small batches", sweepParams},
		{gibbsrt.KernelNoise, tb, "as gibbs_sweep_shared with caller-supplied normals: noise[(s*dim+i)*chains+c] is the normal of chain c, sweep s, coordinate i", []Param{
			{"x", "float*"}, {"noise", "const float*"}, {"chains", "unsigned long long"}, {"sweeps", "unsigned int"},
		}},
		{gibbsrt.KernelPhilox, "1-D grid, one thread per record", "test entry point: Philox4x32-10 of in[6t..6t+5] = (ctr0..3, key0..1) into out[4t..4t+3]", []Param{
			{"in", "const unsigned int*"}, {"out", "unsigned int*"}, {"n", "unsigned int"},
		}},
		{gibbsrt.KernelNormals, tb, "test entry point: writes the normals the samplers draw to out, laid out as gibbs_sweep_noise's noise", []Param{
			{"out", "float*"}, {"chains", "unsigned long long"}, {"sweeps", "unsigned int"},
			{"seed", "unsigned long long"}, {"sweep0", "unsigned long long"}, {"chain0", "unsigned long long"},
		}},
	}
}

// Symbols lists the tables for dim.
func Symbols(dim int) []Symbol {
	st := gibbsrt.Stride(dim)
	w := fmt.Sprintf("weight[j*%d+i] = -Q[i][j]/Q[i][i], the weight of x_j in the conditional mean of x_i; 0 on the diagonal and for i >= %d (padding)", st, dim)
	return []Symbol{
		{gibbsrt.SymbolWeight, "constant", "float", dim * st, w},
		{gibbsrt.SymbolWeightG, "global", "float", dim * st, "same contents as gibbs_weight; the source the shared-memory kernels stage from"},
		{gibbsrt.SymbolOffset, "constant", "float", dim, "offset[i] = mu_i - sum_{j!=i} weight[j][i]*mu_j, computed in float64"},
		{gibbsrt.SymbolScale, "constant", "float", dim, "scale[i] = 1/sqrt(Q[i][i]), the conditional standard deviation"},
	}
}

func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// NewManifest describes the package built from s, src and b.
func NewManifest(s Spec, src Source, b Build) Manifest {
	return Manifest{
		Gibbsgen:   Version,
		Package:    s.Package,
		Dim:        s.Dim,
		DType:      "float32",
		State:      "row-major [chains][dim] float32, updated in place",
		Stream:     "Philox4x32-10, key (seed lo, seed hi), counter (chain lo, chain hi, sweep lo, (sweep hi)<<16 | i/4); Box-Muller; see gibbsrt/stream.go",
		Targets:    b.Targets,
		NVCC:       b.NVCC,
		Kernels:    Kernels(),
		Symbols:    Symbols(s.Dim),
		Resources:  b.Resources,
		SourceHash: sha(src.Text),
		FatbinHash: sha(b.Fatbin),
		Files:      map[string]string{},
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
