package kernels

import "fmt"

// SweepKind is the order of a sweep's coordinate updates, the kind argument
// of the Ext entry points (README, "Sweeps").
type SweepKind int

const (
	// Forward sweeps update coordinates 0, 1, ..., dim-1.
	Forward SweepKind = iota
	// Backward sweeps update dim-1, ..., 0: a forward pass over the
	// reversed coordinates (frame 1 of every table).
	Backward
	// Symmetric sweeps are a forward pass then a backward one; their
	// chain is reversible.
	Symmetric
)

func (k SweepKind) String() string {
	switch k {
	case Forward:
		return "forward"
	case Backward:
		return "backward"
	case Symmetric:
		return "symmetric"
	}
	return fmt.Sprintf("SweepKind(%d)", int(k))
}

// ParseSweepKind returns the kind called name.
func ParseSweepKind(name string) (SweepKind, error) {
	for _, k := range []SweepKind{Forward, Backward, Symmetric} {
		if k.String() == name {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown sweep kind %q (want forward, backward or symmetric)", name)
}

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
