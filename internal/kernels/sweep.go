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
	// EntryPulled is a PTX sweep kernel's plain entry point with each
	// position's sum pulled rather than pushed (Kernel.Pulled): the plain
	// one's parameters and bits, for launches of few sweeps (PullSums);
	// not among EntryPoints.
	EntryPulled
)

// Plain reports whether e runs the plain entry point's sweeps and launch
// shape: EntryPlain, EntryShifted or EntryPulled.
func (e Entry) Plain() bool { return e == EntryPlain || e == EntryShifted || e == EntryPulled }

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
	case EntryPulled:
		return "pulled"
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
	case EntryPulled:
		return k.Pulled, k.Params
	}
	return k.Name, k.Params
}

// PulledSweeps returns the most sweeps of a launch whose plain sweeps the
// per-model kernel runs with pulled sums (Kernel.Pulled) rather than
// pushed, by dtype. Pulled sums hold dim values a chain instead of 2·dim
// and set up no sums at a launch's start, so a launch costs less to start
// (and, at dim 64, to run one sweep); pushed ones cost less a sweep after
// that. Run 39 (an H100, a million chains; docs/log/BENCHMARKS-runs.md)
// timed both at 1 and 100 sweeps a launch; a launch's time a + b·sweeps
// fitted to them crosses at 14 sweeps in float32 at dim 32, 10 at dim 64,
// and 2.4 in float64 at dim 32. The bounds keep a margin below those:
// nothing between 1 and 100 was measured.
func PulledSweeps(dt DType) int {
	if dt == Float64 {
		return 1
	}
	return 8
}

// PullSums reports whether a launch of sweeps plain sweeps of dtype dt runs
// the per-model kernel's pulled sums (PulledSweeps).
func PullSums(dt DType, sweeps int) bool { return sweeps >= 1 && sweeps <= PulledSweeps(dt) }
