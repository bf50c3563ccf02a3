package gen

import (
	"fmt"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Version is the gibbsgen version recorded in every generated file.
const Version = "0.16.0"

// MaxDim is the largest supported dimension: the largest any sweep strategy
// of the kernel table supports, in float32 and float64 alike (the tiled
// strategy's; internal/kernels says why).
var MaxDim = kernels.MaxDim(kernels.Float32)

// Spec is a validated request for one generated package.
type Spec struct {
	Dim         int                // state dimension, 1..MaxDim
	DType       kernels.DType      // element type; "" means float32
	Strategies  []kernels.Strategy // sweep strategies to compile; empty means every one that supports Dim and DType
	Package     string             // Go package name
	Dir         string             // output directory
	Arch        []string           // nvcc targets such as "sm_80" or "compute_90"; empty means the default list
	AllowSpills bool               // accept register spills reported by ptxas
}

// dtype is s.DType with the default applied.
func (s Spec) dtype() kernels.DType {
	if s.DType == "" {
		return kernels.Float32
	}
	return s.DType
}

// kernels returns the rows of the kernel table the package holds, in table
// order: every non-sweep kernel, and the chosen sweep strategies, that
// support the spec's dim and dtype. resolve calls it once per spec.
func (s Spec) kernels() []*kernels.Kernel {
	var out []*kernels.Kernel
	for _, k := range kernels.Supported(s.Dim, s.dtype()) {
		// A sweep kernel is its strategy's; a kernel With one comes with it.
		need := k.With
		if k.Role == kernels.Sweep {
			need = k.Strategy
		}
		if need != kernels.Auto && len(s.Strategies) > 0 && !slices.Contains(s.Strategies, need) {
			continue
		}
		out = append(out, k)
	}
	return out
}

// SpecError is a rejected flag value.
type SpecError struct {
	Flag  string // the flag, without dashes
	Value string
	Rule  string // what the value must be
}

func (e *SpecError) Error() string {
	return fmt.Sprintf("invalid --%s %q: %s", e.Flag, e.Value, e.Rule)
}

// DefaultPackage is the package name used when none is given.
func DefaultPackage(dim int) string { return fmt.Sprintf("gibbs%d", dim) }

var archRE = regexp.MustCompile(`^(sm|compute)_[0-9]+[a-z]?$`)

// Validate checks every field and returns the first violation as a *SpecError.
// Arch entries are checked for form here; whether nvcc supports them is
// checked against the found toolchain (by Generate).
func (s Spec) Validate() error {
	if s.Dim < 1 || s.Dim > MaxDim {
		return &SpecError{"dim", fmt.Sprint(s.Dim), fmt.Sprintf("must be an integer from 1 to %d", MaxDim)}
	}
	if !slices.Contains(kernels.Generated, s.dtype()) {
		return &SpecError{"dtype", string(s.DType), fmt.Sprintf("must be one of %v", kernels.Generated)}
	}
	seenStrategy := map[kernels.Strategy]bool{}
	for _, st := range s.Strategies {
		k := kernels.ForStrategy(st)
		if k == nil {
			return &SpecError{"strategy", st.String(), fmt.Sprintf("must be one of %v", kernels.Strategies())}
		}
		if !k.Supports(s.Dim, s.dtype()) {
			return &SpecError{"strategy", st.String(), "supports " + k.DimsString()}
		}
		if seenStrategy[st] {
			return &SpecError{"strategy", st.String(), "is listed twice"}
		}
		seenStrategy[st] = true
	}
	if token.IsKeyword(s.Package) {
		return &SpecError{"pkg", s.Package, "is a Go keyword"}
	}
	if !token.IsIdentifier(s.Package) || s.Package == "_" {
		return &SpecError{"pkg", s.Package, "must be a valid Go identifier (letters, digits, underscores; not starting with a digit)"}
	}
	if s.Package == "main" {
		return &SpecError{"pkg", s.Package, "must be an importable package name, not main"}
	}
	if s.Dir == "" {
		return &SpecError{"out", s.Dir, "must be a directory path"}
	}
	if filepath.Clean(s.Dir) == "/" {
		return &SpecError{"out", s.Dir, "must not be the file-system root"}
	}
	if c := filepath.Clean(s.Dir); c == "." || filepath.Base(c) == ".." {
		// Write replaces the directory by renaming a sibling onto it,
		// which cannot work for the current directory or a parent of it.
		return &SpecError{"out", s.Dir, "must name the package directory itself, not . or .."}
	}
	seen := map[string]bool{}
	for _, a := range s.Arch {
		if !archRE.MatchString(a) {
			return &SpecError{"arch", a, "entries must look like sm_80 (machine code) or compute_90 (PTX)"}
		}
		if seen[a] {
			return &SpecError{"arch", a, "is listed twice"}
		}
		seen[a] = true
	}
	return nil
}
