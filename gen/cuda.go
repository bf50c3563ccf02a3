package gen

import (
	"bytes"
	"fmt"
	"math"
	"text/template"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/templates"
)

// Source is rendered CUDA C++ for one spec.
type Source struct {
	Name string // file name, e.g. "gibbs32.cu"
	Text []byte
}

// Launch geometry compiled into the kernels. The thread-per-chain kernels
// use 128-thread blocks: small enough that B=4096 still spreads over 32
// blocks, large enough to amortize staging the weights. The warp kernel runs
// four chains (warps) per block.
const (
	threadBlock   = 128
	warpsPerBlock = 4
)

type cudaConst struct {
	Name  string
	Value float32
	Bits  uint32
}

type cudaData struct {
	Version                                          string
	Dim, Stride, Groups, Block, WarpsPerBlock, Lanes int
	Consts                                           []cudaConst
}

var cudaTemplate = template.Must(template.ParseFS(templates.FS, templates.Sampler))

// RenderCUDA renders the sampler template for s.
func RenderCUDA(s Spec) (Source, error) {
	d := cudaData{
		Version:       Version,
		Dim:           s.Dim,
		Stride:        gibbsrt.Stride(s.Dim),
		Groups:        (s.Dim + 3) / 4,
		Block:         threadBlock,
		WarpsPerBlock: warpsPerBlock,
		Lanes:         (s.Dim + 31) / 32,
	}
	for _, c := range gibbsrt.TransformConstants() {
		d.Consts = append(d.Consts, cudaConst{c.Name, c.Value, math.Float32bits(c.Value)})
	}
	var buf bytes.Buffer
	if err := cudaTemplate.Execute(&buf, d); err != nil {
		return Source{}, fmt.Errorf("rendering %s: %w", templates.Sampler, err)
	}
	return Source{Name: s.Package + ".cu", Text: buf.Bytes()}, nil
}
