package gibbsrt

import (
	"fmt"
	"math"
)

// The random stream's definition, and the single-precision arithmetic
// the kernels and the twin share, are package gibbsrt/stream.

// MaxSweepIndex bounds the sweep counter: it has 48 bits in the Philox counter.
const MaxSweepIndex = uint64(1) << 48

// Stream names the random numbers a sweep call consumes. Sweep k (0-based)
// of a call updates chain j (0-based, within the call) with the normals of
// chain Chain+j at sweep Sweep+k. Advance Sweep by the number of sweeps
// after each call to continue the same stream.
type Stream struct {
	Seed  uint64 // Philox key
	Sweep uint64 // absolute index of the call's first sweep
	Chain uint64 // absolute index of the call's first chain
}

func (st Stream) check(chains, sweeps int) error {
	if st.Sweep >= MaxSweepIndex || uint64(sweeps) > MaxSweepIndex-st.Sweep {
		return fmt.Errorf("gibbsrt: sweep index %d + %d sweeps exceeds the stream's 48-bit sweep counter (%d)", st.Sweep, sweeps, MaxSweepIndex)
	}
	if uint64(chains) > math.MaxUint64-st.Chain {
		return fmt.Errorf("gibbsrt: chain index %d + %d chains overflows 64 bits", st.Chain, chains)
	}
	return nil
}
