package mixing

import (
	"fmt"
	"math"
	"strings"
)

// Sweep is the order of one sweep's coordinate updates: the runtime's
// sweep kind too (gibbsrt.SweepKind is this type), and the kind argument
// of the kernels' Ext entry points (docs/GUIDE.md, "Sweeps"). It lives
// here, with the ω-tuning policy that depends on it, so that this package
// needs nothing of the kernel table.
type Sweep int

// The sweeps. Their values are the Ext entry points' kind argument (the
// GG_* constants of templates/sampler.cu.tmpl, rendered from sweepRows):
// do not renumber them.
const (
	// Forward updates coordinates 0, 1, ..., dim−1.
	Forward Sweep = iota
	// Backward updates dim−1, ..., 0: a forward pass over the reversed
	// coordinates (frame 1 of every table).
	Backward
	// Symmetric is a forward sweep then a backward one: a reversible chain.
	Symmetric
)

// sweepRow is everything the host knows of a sweep kind. A new kind is a
// constant above, a row here, its passes in the kernels' templates (they
// read the kind's GG_ constant) and its tests (docs/CONTRIBUTING.md,
// "Adding a sweep kind").
type sweepRow struct {
	name string // String's, and the GG_ constant's in upper case
	// frames are the frame of each pass: 0 updates coordinates 0..dim−1,
	// 1 the reversed coordinates (the tables' second frame). A pass draws
	// the normals of its frame (docs/ARITHMETIC.md, "Sweeps"), and the
	// mean-error operator is the product of the passes' (Operator).
	frames []int
	// reversible: the sweep's operator is self-adjoint in Q's inner
	// product (a forward pass then its reverse), so its rate comes from a
	// symmetric eigenproblem (SSOR), Chebyshev acceleration applies, and
	// Young's ω is the SSOR one.
	reversible bool
	// cost is SweepCost's at ω ≠ 1, plain its cost at ω = 1 where the
	// kind runs on the plain entry point there (only Forward does).
	cost, plain float64
}

// sweepRows are the kinds, by value. The costs were measured on an H200
// at B = 1M chains (docs/log/BENCHMARKS-runs.md, run 13: µs per sweep on
// AR(1) D = 64 and the dense SPD D = 32 models: plain 132.5 and 90.5,
// forward with ω ≠ 1 144.1 and 96.4, symmetric 301.5 and 247.2), each the
// larger of the two models' ratios, so that over-relaxation must earn its
// cost. Backward sweeps run the forward ones' Ext entry point on
// reordered tables; they were not measured apart.
var sweepRows = [...]sweepRow{
	Forward:   {name: "forward", frames: []int{0}, cost: 1.09, plain: 1},              // 144.1/132.5: the Ext entry point's keep term
	Backward:  {name: "backward", frames: []int{1}, cost: 1.09},                       // as forward's Ext entry point
	Symmetric: {name: "symmetric", frames: []int{0, 1}, reversible: true, cost: 2.73}, // 247.2/90.5: two passes and the Ext entry point
}

// SweepKinds returns every sweep kind, in value order.
func SweepKinds() []Sweep {
	out := make([]Sweep, len(sweepRows))
	for i := range out {
		out[i] = Sweep(i)
	}
	return out
}

// Valid reports whether k is a sweep kind.
func (k Sweep) Valid() bool { return k >= 0 && int(k) < len(sweepRows) }

func (k Sweep) row() sweepRow {
	if !k.Valid() {
		return sweepRow{}
	}
	return sweepRows[k]
}

func (k Sweep) String() string {
	if !k.Valid() {
		return fmt.Sprintf("SweepKind(%d)", int(k)) // the runtime's name for the type
	}
	return sweepRows[k].name
}

// GoName is the kind's constant's name (here and in gibbsrt and the
// generated packages): "Forward".
func (k Sweep) GoName() string {
	n := k.String()
	return strings.ToUpper(n[:1]) + n[1:]
}

// Macro is the kind's constant's name in the CUDA templates: "GG_FORWARD".
func (k Sweep) Macro() string { return "GG_" + strings.ToUpper(k.String()) }

// Frames returns the frame of each of the sweep's passes, in order (nil
// for an invalid kind): 0 updates coordinates 0..dim−1, 1 dim−1..0.
func (k Sweep) Frames() []int { return append([]int(nil), k.row().frames...) }

// Reversible reports whether the sweep is a pass and then its reverse: a
// reversible chain, the one Chebyshev acceleration applies to.
func (k Sweep) Reversible() bool { return k.row().reversible }

// SweepCost is the time of one sweep of kind k at ω relative to a plain
// sweep (forward, ω = 1), measured on an H200 at B = 1M chains (sweepRows);
// NaN for an invalid kind.
func SweepCost(k Sweep, omega float64) float64 {
	r := k.row()
	switch {
	case r.frames == nil:
		return math.NaN()
	case omega == 1 && r.plain != 0:
		return r.plain
	}
	return r.cost
}

// SweepNames lists the kinds' Go names as a sentence's alternatives:
// "Forward, Backward or Symmetric".
func SweepNames() string {
	var names []string
	for _, k := range SweepKinds() {
		names = append(names, k.GoName())
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
