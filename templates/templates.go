// Package templates embeds the CUDA source templates that gibbsgen renders.
package templates

import "embed"

// FS holds every *.cu.tmpl file of this directory.
//
//go:embed *.cu.tmpl
var FS embed.FS

// Template names in FS.
const (
	Sampler = "sampler.cu.tmpl" // one generated module
	RNG     = "rng"             // the random stream's device code, defined in rng.cu.tmpl
)
