package gibbstest

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// TestCompareChains: two twins agree; a twin whose one method departs
// from the other's in any way CompareChains looks at is caught, with the
// method named. The GPU side is GPUChains, in the generated packages.
func TestCompareChains(t *testing.T) {
	for _, d := range []int{1, 5} {
		m := AR1(d, 0.6, NonzeroMean(d))
		if err := CompareChains[float32](gibbsrt.NewReference[float32](d), gibbsrt.NewReference[float32](d), m, 50, 3); err != nil {
			t.Errorf("dim %d, float32: two twins differ: %v", d, err)
		}
		if err := CompareChains[float64](gibbsrt.NewReference[float64](d), gibbsrt.NewReference[float64](d), m, 50, 3); err != nil {
			t.Errorf("dim %d, float64: two twins differ: %v", d, err)
		}
	}
	m := AR1(4, 0.6, NonzeroMean(4))
	for name, odd := range map[string]gibbsrt.Chains[float32]{
		"Sweep":          oddSweep{gibbsrt.NewReference[float32](4)},
		"SweepMoments":   oddMoments{gibbsrt.NewReference[float32](4)},
		"SweepChebyshev": oddChebyshev{gibbsrt.NewReference[float32](4)},
		"RunHost":        oddRun{gibbsrt.NewReference[float32](4)},
	} {
		err := CompareChains[float32](gibbsrt.NewReference[float32](4), odd, m, 50, 3)
		if err == nil || !strings.HasPrefix(err.Error(), name) {
			t.Errorf("a twin with an odd %s: %v, want a difference in %s", name, err, name)
		}
	}
}

// TestCompareChainsLinear: two twins with the same linear term agree
// through every step, the term's refusals included; a twin without the
// term is caught at the first sweep.
func TestCompareChainsLinear(t *testing.T) {
	m := AR1(5, 0.6, NonzeroMean(5))
	h, _ := LinearTerms[float32](m, 50, rand.New(rand.NewPCG(1, 2)))
	if err := compareChains[float32](gibbsrt.NewReference[float32](5), gibbsrt.NewReference[float32](5), m, 50, 3, h); err != nil {
		t.Errorf("two twins with one term differ: %v", err)
	}
	err := compareChains[float32](gibbsrt.NewReference[float32](5), noLinear{gibbsrt.NewReference[float32](5)}, m, 50, 3, h)
	if err == nil || !strings.HasPrefix(err.Error(), "Sweep") {
		t.Errorf("a twin that ignores the term: %v, want a difference in Sweep", err)
	}
}

// noLinear ignores SetLinear.
type noLinear struct{ *gibbsrt.Reference[float32] }

func (noLinear) SetLinear([]float32) error { return nil }

// oddSweep draws its sweeps from another seed.
type oddSweep struct{ *gibbsrt.Reference[float32] }

func (o oddSweep) Sweep(x []float32, sweeps int, st gibbsrt.Stream) error {
	st.Seed++
	return o.Reference.Sweep(x, sweeps, st)
}

// oddMoments reports one record fewer.
type oddMoments struct{ *gibbsrt.Reference[float32] }

func (o oddMoments) SweepMoments(x []float32, sweeps int, st gibbsrt.Stream, tr gibbsrt.Trace) (*mcstat.Moments, error) {
	return o.Reference.SweepMoments(x, sweeps-1, st, tr)
}

// oddRun burns in one iteration short.
type oddRun struct{ *gibbsrt.Reference[float32] }

func (o oddRun) RunHost(ctx context.Context, x []float32, sweeps int, st gibbsrt.Stream, opt gibbsrt.RunOptions[float32]) (gibbsrt.RunResult, error) {
	opt.BurninTolerance = 0.5
	return o.Reference.RunHost(ctx, x, sweeps, st, opt)
}

// oddChebyshev leaves prev as it was.
type oddChebyshev struct{ *gibbsrt.Reference[float32] }

func (o oddChebyshev) SweepChebyshev(x, prev []float32, first, iterations int, st gibbsrt.Stream) error {
	return o.Reference.SweepChebyshev(x, append([]float32(nil), prev...), first, iterations, st)
}
