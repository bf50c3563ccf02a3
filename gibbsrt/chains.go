package gibbsrt

import (
	"context"
	"errors"
	"fmt"

	"github.com/gibbsgen/gibbsgen/mcstat"
	"github.com/gibbsgen/gibbsgen/mixing"
)

// Chains is what the GPU sampler and its CPU twin both offer, with the same
// argument types: state in host slices on either side. Code written against
// it runs on a GPU or on the CPU alike, and gives the same bits on both
// (Open chooses one). What only a GPU has (device state and traces,
// strategies, the per-model kernel) stays on Sampler. SweepNoise is on both
// but not here: generated packages beyond its kernel's dims lack it.
type Chains[T Float] interface {
	// Dim is the dimension of the chains.
	Dim() int
	// SetModel validates the precision matrix Q and the mean mu and
	// installs them (see NewCoefficients).
	SetModel(Q [][]float64, mu []float64) error
	// SetLinear sets a linear term per chain, h ([chains][dim]): chain c
	// then targets N(mu + Q⁻¹·h_c, Q⁻¹) in every later call, which must
	// have that many chains; nil clears it.
	SetLinear(h []T) error
	// SetPrecision sets a precision per chain (see Precision): chain c
	// then targets N(Q_c⁻¹·(Q·mu + h_c), Q_c⁻¹) in every later sweep,
	// which must have that many chains; nil clears it.
	SetPrecision(p *Precision[T]) error
	// SetScheme sets how later sweeps update the chains (Plain until set).
	SetScheme(sc Scheme) error
	// Scheme returns the scheme set.
	Scheme() Scheme
	// Mixing returns what the scheme predicts on the model.
	Mixing() (Mixing, error)
	// Chebyshev returns the schedule SweepChebyshev follows on the model.
	Chebyshev() (mixing.Chebyshev, error)
	// Sweep runs sweeps sweeps on the state x, [chains][dim] row-major.
	Sweep(x []T, sweeps int, st Stream) error
	// SweepTrace is Sweep that records states as tr says into out and
	// returns the number of records.
	SweepTrace(x []T, sweeps int, st Stream, tr Trace, out []T) (int, error)
	// SweepMoments is Sweep that returns the moments of the records tr
	// selects.
	SweepMoments(x []T, sweeps int, st Stream, tr Trace) (*mcstat.Moments, error)
	// SweepChebyshev runs Chebyshev-accelerated iterations on x, with
	// prev its previous iterates.
	SweepChebyshev(x, prev []T, first, iterations int, st Stream) error
	// DrawExact replaces each chain of x by an exact draw.
	DrawExact(x []T, st Stream) error
	// RunHost runs sweeps sweeps on x in chunks, after an automatic
	// burn-in if o asks for one (see Sampler.Run). Trace and Moments are
	// device buffers: with them it runs on a GPU only, and the twin
	// refuses them.
	RunHost(ctx context.Context, x []T, sweeps int, st Stream, o RunOptions[T]) (RunResult, error)
	// Close releases the sampler; later calls return ErrClosed.
	Close() error
}

// Both sides implement Chains, in both element types.
var (
	_ Chains[float32] = (*Sampler[float32])(nil)
	_ Chains[float64] = (*Sampler[float64])(nil)
	_ Chains[float32] = (*Reference[float32])(nil)
	_ Chains[float64] = (*Reference[float64])(nil)
)

// Backend is the kind of sampler Open chose.
type Backend int

const (
	// OnGPU: a Sampler on a CUDA device.
	OnGPU Backend = iota + 1
	// OnTwin: the CPU twin, a Reference.
	OnTwin
)

func (b Backend) String() string {
	switch b {
	case OnGPU:
		return "GPU"
	case OnTwin:
		return "CPU twin"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// Choice says which sampler Open chose, and why.
type Choice struct {
	Backend Backend
	Device  Device // the GPU, for OnGPU
	// Reason, for OnTwin, is why no GPU was used: the error of opening
	// it, which wraps ErrNoDriver or ErrNoDevice.
	Reason error
}

func (c Choice) String() string {
	if c.Backend == OnTwin {
		return fmt.Sprintf("CPU twin (no GPU: %v)", c.Reason)
	}
	return fmt.Sprintf("GPU %d (%s)", c.Device.Ordinal, c.Device.Name)
}

// Fallback tells whether err, from opening a sampler on a device, leaves
// the CPU twin as the way to go: it wraps ErrNoDriver or ErrNoDevice. Any
// other error (a package the runtime cannot load, a device that fails) is
// not a reason to run hundreds of times slower without saying so, and
// a generated package's Open returns it.
func Fallback(err error) bool {
	return errors.Is(err, ErrNoDriver) || errors.Is(err, ErrNoDevice)
}
