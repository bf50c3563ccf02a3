package kernels

import "fmt"

// BackwardGroups is or'ed into the group field of the Philox counter of a
// backward pass: its positions draw the normals of groups g|BackwardGroups
// of the sweep, so that the two passes of a symmetric sweep draw different
// numbers and a backward sweep draws those of a symmetric sweep's second
// pass.
const BackwardGroups = 1 << 15

// ChebyshevStride is the number of coefficients per iteration in the cheb
// table of the Ext entry points: the noise factors of the forward and the
// backward pass, then the weights of the swept state, the current iterate
// and the previous one in the new iterate.
const ChebyshevStride = 5

// Entry is one of a kernel's entry points: a sweep strategy has three.
type Entry int

const (
	// EntryPlain is the row's kernel itself: for a sweep strategy, plain
	// Gibbs sweeps.
	EntryPlain Entry = iota
	// EntryTraced is a sweep strategy's plain sweeps recording states.
	EntryTraced
	// EntryExt is a sweep strategy's sweeps of every scheme, Chebyshev
	// iterations and their traces.
	EntryExt
	// EntryShifted is a PTX kernel's plain entry point with a linear
	// term's shifts d (Kernel.Shifted); not among EntryPoints.
	EntryShifted
)

// Plain reports whether e runs the plain entry point's sweeps and launch
// shape: EntryPlain or EntryShifted.
func (e Entry) Plain() bool { return e == EntryPlain || e == EntryShifted }

func (e Entry) String() string {
	switch e {
	case EntryPlain:
		return "plain"
	case EntryTraced:
		return "traced"
	case EntryExt:
		return "ext"
	case EntryShifted:
		return "shifted"
	}
	return fmt.Sprintf("Entry(%d)", int(e))
}

// EntryPoints returns k's entry points, in the order the module defines
// them.
func (k *Kernel) EntryPoints() []Entry {
	if k.Role != Sweep {
		return []Entry{EntryPlain}
	}
	return []Entry{EntryPlain, EntryTraced, EntryExt}
}

// EntryPoint returns the name and parameters of k's entry point e.
func (k *Kernel) EntryPoint(e Entry) (string, []Param) {
	switch e {
	case EntryTraced:
		return k.Traced, k.TracedParams
	case EntryExt:
		return k.Ext, k.ExtParams
	case EntryShifted:
		return k.Shifted, shiftedParams(k.Params)
	}
	return k.Name, k.Params
}
