package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// reexports declares in a generated package the gibbsrt types, constants
// and errors its API speaks of, so that ordinary use needs no import of
// gibbsrt. Each is an alias or the same value, so errors.Is and type
// switches see gibbsrt's.
func reexports(f *jen.File) {
	decl := func(kind func() *jen.Statement, doc string, names []string) {
		f.Comment(lineComment(doc))
		var defs []jen.Code
		for _, n := range names {
			defs = append(defs, jen.Id(n).Op("=").Add(rt(n)))
		}
		kind().Defs(defs...)
	}
	alias := func(doc string, names ...string) { decl(f.Type, doc, names) }
	same := func(kind func() *jen.Statement, doc string, names ...string) { decl(kind, doc, names) }
	alias("Scheme's fields: the kind of sweep, what an automatic ω optimizes, and\nthe arithmetic (see gibbsrt.SweepKind, gibbsrt.Tune, gibbsrt.Form).", "SweepKind", "Tune", "Form")
	same(f.Const, "What an automatic ω (Scheme.Omega = 0) optimizes (see gibbsrt.Tune).", "TuneMean", "TuneSquares")
	same(f.Var, "Plain is plain Gibbs sampling, the default scheme: forward sweeps, ω = 1.", "Plain")
	same(f.Const, "The limits and margins of the runtime's tuning and checks (see gibbsrt):\nthe largest dim whose ω is chosen by eigenanalysis, the Chebyshev\nschedule's margin on λmin, the most Chebyshev iterations, the symmetry\ntolerance of SetModel, and the largest sweep index of the stream.",
		"AnalysisMaxDim", "ChebyshevMargin", "MaxChebyshevIterations", "SymmetryTolerance", "MaxSweepIndex")
	alias("What Open chose and why (see gibbsrt.Choice), the GPU a Sampler runs on,\nand the state of its per-model kernel (see gibbsrt.Specialization).",
		"Choice", "Backend", "Device", "Specialization", "SpecializationState")
	same(f.Const, "The samplers Open chooses between (see gibbsrt.Backend).", "OnGPU", "OnTwin")
	same(f.Const, "Where the per-model kernel stands (see gibbsrt.SpecializationState).", "NoSpecialization", "Compiling", "Ready", "Failed")
	alias("The errors callers tell apart: a model SetModel refuses, and a call\nthat needs a kernel this package was generated without.", "ModelError", "MissingKernelError")
	same(f.Var, "ErrClosed is returned by calls after Close; New's error wraps ErrNoDriver\nwithout libcuda.so.1 and ErrNoDevice without a device.", "ErrClosed", "ErrNoDriver", "ErrNoDevice")
}

// hasRole reports whether the package holds a kernel of role r.
func hasRole(s Spec, r kernels.Role) bool {
	for _, k := range s.Kernels() {
		if k.Role == r {
			return true
		}
	}
	return false
}
