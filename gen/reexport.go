package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// reexports declares in a generated package the gibbsrt types, constants
// and errors that ordinary use names, so that it needs no import of
// gibbsrt; what a user reaches only through a method's result (Mixing,
// Device, Specialization) or as a runtime-wide limit stays in gibbsrt.
// Each is an alias or the same value, so errors.Is and type switches see
// gibbsrt's.
func reexports(f *jen.File, elem *jen.Statement) {
	var types []jen.Code
	for _, n := range []string{"Sampler", "Reference", "Chains", "DeviceState", "HostState", "DeviceTrace", "RunOptions", "Precision"} {
		types = append(types, jen.Id(n).Op("=").Add(rt(n).Types(elem.Clone())))
	}
	types = append(types, jen.Line())
	for _, n := range []string{"Stream", "Trace", "Scheme", "SweepKind", "Tune", "Form", "RunResult", "Strategy", "Choice", "Backend", "ModelError", "MissingKernelError"} {
		types = append(types, jen.Id(n).Op("=").Add(rt(n)))
	}
	f.Comment(lineComment("The samplers and their state in this package's element type (Sampler\nruns on one GPU, Reference is its CPU twin, and both are Chains), and\nthe types their methods take."))
	f.Type().Defs(types...)

	group := func(doc string, names ...string) []jen.Code {
		defs := []jen.Code{jen.Comment(doc)}
		for _, n := range names {
			defs = append(defs, jen.Id(n).Op("=").Add(rt(n)))
		}
		return defs
	}
	strategies := []string{"Auto"}
	for _, k := range kernels.All() {
		if k.Role == kernels.Sweep {
			strategies = append(strategies, k.GoName)
		}
	}
	var sweeps []string // the sweep kinds' constants, from mixing's table
	for _, k := range mixing.SweepKinds() {
		sweeps = append(sweeps, k.GoName())
	}
	var consts []jen.Code
	for i, g := range [][]jen.Code{
		group("The strategies; the package doc says which this package holds.", strategies...),
		group("Scheme's fields.", append(sweeps, "TuneMean", "TuneSquares", "TuneSampling", "FormAuto", "FormSequential", "FormMatrix")...),
		group("Whether Run burns in first.", "BurninNone", "BurninAuto"),
		group("What Open chose.", "OnGPU", "OnTwin"),
	} {
		if i > 0 {
			consts = append(consts, jen.Line())
		}
		consts = append(consts, g...)
	}
	f.Comment("The constants of those types (see each in gibbsrt).")
	f.Const().Defs(consts...)

	f.Comment(lineComment("Plain is the default scheme. New's error wraps ErrNoDriver without\nlibcuda.so.1 and ErrNoDevice without a device; calls after Close return\nErrClosed."))
	f.Var().Defs(
		jen.Id("Plain").Op("=").Add(rt("Plain")),
		jen.Id("ErrClosed").Op("=").Add(rt("ErrClosed")),
		jen.Id("ErrNoDriver").Op("=").Add(rt("ErrNoDriver")),
		jen.Id("ErrNoDevice").Op("=").Add(rt("ErrNoDevice")),
	)
}

// hasRole reports whether the package holds a kernel of role r.
func hasRole(s *module, r kernels.Role) bool {
	for _, k := range s.all {
		if k.Role == r {
			return true
		}
	}
	return false
}
