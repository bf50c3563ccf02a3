package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The C side of the kernel ABI, rendered from the kernel table: the entry
// points' signatures from the rows' parameter lists, and the module
// tables' declarations from their rows, so that the template, the
// manifest and the runtime (gibbsrt/launch.go, gibbsrt/tables.go) all
// read the one description.

// blockData is what a kernel's template block renders from: the module's
// data, the kernel's row and the row's Shape for the module's dim and
// dtype (nil where the row has none).
type blockData struct {
	cudaData
	Kernel *kernels.Kernel
	Shape  any
}

// PlainLoops reports whether the kernel's plain entry point loops over its
// groups (kernels.Geometry.PlainLoops), as "true" or "false" for C++.
func (b blockData) PlainLoops() bool { return b.Kernel.Launch(b.Dim, b.DType).PlainLoops }

// Threads is the kernel's block size (its Geometry's), for
// __launch_bounds__.
func (b blockData) Threads() int { return b.Kernel.Launch(b.Dim, b.DType).Threads }

func newBlockData(d cudaData, k *kernels.Kernel) blockData {
	b := blockData{cudaData: d, Kernel: k}
	if k.Shape != nil {
		b.Shape = k.Shape(d.Dim, d.DType)
	}
	return b
}

// Declare renders the declaration of the module table called name from
// its row (kernels.Symbols): its memory space, the element type and its
// length in the source's macros.
func (d cudaData) Declare(name string) (string, error) {
	s, ok := kernels.SymbolNamed(name)
	if !ok {
		return "", fmt.Errorf("no module table %q in the kernel table", name)
	}
	space := "__constant__"
	if s.Space == "global" {
		space = "__device__ __align__(16)"
	}
	n := []string{strconv.Itoa(s.Frames)}
	for _, e := range s.Extents {
		n = append(n, e.Macro)
	}
	return fmt.Sprintf("%s gg_real %s[%s];", space, s.Name, strings.Join(n, " * ")), nil
}

// signature renders the C declarator of an entry point, name(params), with
// the parameters' types for dt. A parameter marked Break starts a new line
// that begins with indent.
func signature(name string, params []kernels.Param, dt kernels.DType, indent string) string {
	var b strings.Builder
	b.WriteString(name + "(")
	for i, p := range params {
		if i > 0 {
			if p.Break {
				b.WriteString(",\n" + indent)
			} else {
				b.WriteString(", ")
			}
		}
		b.WriteString(p.Kind.CType(dt) + " " + p.Name)
	}
	b.WriteString(")")
	return b.String()
}

// Signature is the declarator of the row's (first) entry point, its
// continuation lines aligned after the parenthesis.
func (d blockData) Signature() string {
	name, params := d.Kernel.EntryPoint(kernels.EntryPlain)
	return signature(name, params, d.DType, strings.Repeat(" ", len(name)+1))
}

// ShiftedSignature is the declarator of the row's Shifted entry point
// (kernels.EntryShifted), for a block that is not a sweep strategy's.
func (d blockData) ShiftedSignature() string {
	name, params := d.Kernel.EntryPoint(kernels.EntryShifted)
	return signature(name, params, d.DType, strings.Repeat(" ", len(name)+1))
}

// entryData is a sweep strategy's three entry points for the
// "sweep_entries" block: their declarators (continuation lines indented by
// four spaces), the row's name, the device function they call and the
// __launch_bounds__ arguments; and the declarators of the row's Pulled
// and Shifted entry points, where it has them.
type entryData struct {
	Name, Body, Bounds                  string
	Plain, Traced, Ext, Pulled, Shifted string
}

// entry is the "sweep_entries" block's data for the row of d.
func entry(d blockData, body, bounds string) entryData {
	e := entryData{Name: d.Kernel.Name, Body: body, Bounds: bounds}
	for _, ep := range []struct {
		e   kernels.Entry
		out *string
	}{{kernels.EntryPlain, &e.Plain}, {kernels.EntryTraced, &e.Traced}, {kernels.EntryExt, &e.Ext}} {
		name, params := d.Kernel.EntryPoint(ep.e)
		*ep.out = signature(name, params, d.DType, "    ")
	}
	if d.Kernel.Pulled != "" {
		e.Pulled = signature(d.Kernel.Pulled, d.Kernel.Params, d.DType, "    ")
	}
	if d.Kernel.Shifted != "" {
		name, params := d.Kernel.EntryPoint(kernels.EntryShifted)
		e.Shifted = signature(name, params, d.DType, "    ")
	}
	return e
}
