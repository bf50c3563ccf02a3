// Package templates embeds the CUDA source templates that gibbsgen renders.
package templates

import "embed"

// FS holds every *.cu.tmpl file of this directory.
//
//go:embed *.cu.tmpl
var FS embed.FS

// Template names in FS.
const (
	Sampler = "sampler.cu.tmpl" // one generated module's shared code; its kernels follow
	RNG     = "rng"             // the random stream's device code, defined in rng.cu.tmpl

	// Each kernel is a block of kernels.cu.tmpl, named by its row of the
	// kernel table (internal/kernels: Kernel.Block).
)
