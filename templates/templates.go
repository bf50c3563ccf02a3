// Package templates embeds the CUDA source templates that gibbsgen renders.
package templates

import "embed"

// FS holds every *.cu.tmpl file of this directory.
//
//go:embed *.cu.tmpl
var FS embed.FS

// Sampler is the name of the sampler template in FS.
const Sampler = "sampler.cu.tmpl"
