package gen

import (
	"strings"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The C side of the kernel ABI, rendered from the kernel table: the entry
// points' signatures from the rows' parameter lists, so that the template,
// the manifest and the runtime's launch arguments (gibbsrt/launch.go) all
// read the one list.

// blockData is what a kernel's template block renders from: the module's
// data and the kernel's row.
type blockData struct {
	cudaData
	Kernel *kernels.Kernel
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

// entryData is a sweep strategy's three entry points for the
// "sweep_entries" block: their declarators (continuation lines indented by
// four spaces), the row's name, the device function they call and the
// __launch_bounds__ arguments.
type entryData struct {
	Name, Body, Bounds string
	Plain, Traced, Ext string
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
	return e
}
