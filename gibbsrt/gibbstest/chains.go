package gibbstest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// GPUChains checks that the package's Sampler and Reference, used through
// gibbsrt.Chains alone, answer every call alike: the same states, records,
// moments, schedules and predictions bit for bit, the same errors for the
// same bad arguments, and ErrClosed after Close. It skips without a GPU.
func GPUChains[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	r := h.NewReference()
	m := AR1(h.Dim, 0.6, NonzeroMean(h.Dim))
	if err := CompareChains(g, r, m, 300, 7); err != nil {
		t.Fatalf("Sampler vs Reference through Chains: %v", err)
	}
	t.Run("Lengths", func(t *testing.T) { gpuLengths(t, h, m) })
}

// gpuLengths checks the argument rules on the device: DeviceTrace.Download
// writes the prefix of a longer output and leaves the rest, and empty
// Coords trace what nil Coords do, the twin's records bit for bit.
func gpuLengths[T gibbsrt.Float](t *testing.T, h Harness[T], m Model) {
	g := OpenGPU(t, h)
	r := h.reference(t, m)
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	const chains, sweeps = 70, 6
	x0 := randomState[T](rand.New(rand.NewPCG(5, 5)), chains, h.Dim)
	st := gibbsrt.Stream{Seed: 11}
	tr := gibbsrt.Trace{Thin: 2, Coords: []int{}}
	records := gibbsrt.Records(tr.Thin, st.Sweep, sweeps)
	size := records * chains * h.Dim
	want := make([]T, size)
	if _, err := r.SweepTrace(slices.Clone(x0), sweeps, st, gibbsrt.Trace{Thin: 2}, want); err != nil {
		t.Fatal(err)
	}
	ds := uploaded(t, g, x0)
	dt, err := g.NewDeviceTrace(tr, chains, records)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SweepDeviceTrace(ds, sweeps, st, dt); err != nil {
		t.Fatal(err)
	}
	const mark = -4321
	got := make([]T, size+7)
	for i := range got {
		got[i] = mark
	}
	if err := dt.Download(got); err != nil {
		t.Fatalf("Download into %d elements for %d: %v", len(got), size, err)
	}
	requireEqual(t, "device trace with empty Coords vs the twin's with nil", got[:size], want, h.Dim)
	if slices.ContainsFunc(got[size:], func(v T) bool { return v != mark }) {
		t.Error("Download wrote past the records")
	}
	if err := dt.Download(got[:size-1]); err == nil {
		t.Error("Download into one element too few succeeded")
	}
}

// CompareChains runs one sequence of Chains calls on a and b from the same
// random state (chains chains, stream seed seed) and returns the first
// difference between their answers, or nil: plain sweeps, a trace, moments,
// a scheme with ω chosen from m, Chebyshev iterations, exact draws, bad
// arguments, and calls after Close, which it makes on both. An exact draw
// that one side refuses with a MissingKernelError (a package without the
// Matrix strategy) is a documented difference, and skipped.
func CompareChains[T gibbsrt.Float](a, b gibbsrt.Chains[T], m Model, chains int, seed uint64) error {
	return compareChains(a, b, m, chains, seed, nil)
}

// compareChains is CompareChains, with the linear term h per chain set
// after the model if h is not nil, and then the linear term's refusals:
// the same errors, nothing changed.
func compareChains[T gibbsrt.Float](a, b gibbsrt.Chains[T], m Model, chains int, seed uint64, h []T) error {
	d := a.Dim()
	if b.Dim() != d || len(m.Mu) != d {
		return fmt.Errorf("dims %d and %d, model %d", d, b.Dim(), len(m.Mu))
	}
	x := randomState[T](rand.New(rand.NewPCG(seed, 1)), chains, d)
	xa, xb := slices.Clone(x), slices.Clone(x)
	st := gibbsrt.Stream{Seed: seed, Sweep: 3, Chain: 1 << 20}
	// step calls f on both and compares the errors and the states.
	step := func(what string, f func(c gibbsrt.Chains[T], x []T) error) error {
		ea, eb := f(a, xa), f(b, xb)
		if err := sameError(ea, eb); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		if i := equalBits(xa, xb); i >= 0 {
			return fmt.Errorf("%s: states differ first at chain %d coordinate %d: %v vs %v", what, i/d, i%d, xa[i], xb[i])
		}
		return nil
	}
	// answer compares what a call returns besides its error.
	answer := func(what string, f func(c gibbsrt.Chains[T], x []T) (any, error)) error {
		var va, vb any
		err := step(what, func(c gibbsrt.Chains[T], x []T) error {
			v, err := f(c, x)
			if c == a {
				va = v
			} else {
				vb = v
			}
			return err
		})
		// Printed, Go's floats round-trip exactly, and NaN equals NaN.
		if err == nil && fmt.Sprintf("%+v", va) != fmt.Sprintf("%+v", vb) {
			err = fmt.Errorf("%s: %v vs %v", what, va, vb)
		}
		return err
	}
	tr := gibbsrt.Trace{Thin: 2, FirstChain: 1, Chains: min(chains-1, 40), Coords: []int{0, d - 1}}
	if d == 1 {
		tr.Coords = nil
	}
	steps := []error{
		step("SetModel", func(c gibbsrt.Chains[T], _ []T) error { return c.SetModel(m.Rows(), m.Mu) }),
		step("SetLinear", func(c gibbsrt.Chains[T], _ []T) error {
			if h == nil {
				return nil
			}
			return c.SetLinear(h)
		}),
		step("Sweep", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x, 5, st) }),
		answer("SweepTrace", func(c gibbsrt.Chains[T], x []T) (any, error) {
			out := make([]T, gibbsrt.Records(tr.Thin, st.Sweep+5, 7)*tr.Chains*len(m.Mu)+3)
			n, err := c.SweepTrace(x, 7, gibbsrt.Stream{Seed: st.Seed, Sweep: st.Sweep + 5, Chain: st.Chain}, tr, out)
			return fmt.Sprint(n, bitsOfAll(out)), err
		}),
		answer("SweepMoments", func(c gibbsrt.Chains[T], x []T) (any, error) {
			mo, err := c.SweepMoments(x, 9, gibbsrt.Stream{Seed: st.Seed, Sweep: st.Sweep + 12, Chain: st.Chain}, tr)
			return momentBits(mo), err
		}),
		step("SetScheme", func(c gibbsrt.Chains[T], _ []T) error { return c.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Symmetric}) }),
		answer("Scheme", func(c gibbsrt.Chains[T], _ []T) (any, error) { return c.Scheme(), nil }),
		answer("Mixing", func(c gibbsrt.Chains[T], _ []T) (any, error) { return c.Mixing() }),
		answer("Chebyshev", func(c gibbsrt.Chains[T], _ []T) (any, error) { return c.Chebyshev() }),
		func() error {
			pa, pb := slices.Clone(xa), slices.Clone(xb)
			return answer("SweepChebyshev", func(c gibbsrt.Chains[T], x []T) (any, error) {
				prev := pa
				if c == b {
					prev = pb
				}
				err := c.SweepChebyshev(x, prev, 0, 6, gibbsrt.Stream{Seed: st.Seed, Sweep: st.Sweep + 21})
				return bitsOfAll(prev), err
			})
		}(),
		func() error {
			ea, eb := a.DrawExact(slices.Clone(xa), st), b.DrawExact(slices.Clone(xb), st)
			if isMissing(ea) != isMissing(eb) {
				return nil // a package without Matrix: documented
			}
			return step("DrawExact", func(c gibbsrt.Chains[T], x []T) error {
				return c.DrawExact(x, gibbsrt.Stream{Seed: st.Seed, Sweep: 99})
			})
		}(),
		step("Sweep after DrawExact", func(c gibbsrt.Chains[T], x []T) error {
			return c.Sweep(x, 2, gibbsrt.Stream{Seed: st.Seed, Sweep: 100})
		}),
		answer("RunHost with automatic burn-in", func(c gibbsrt.Chains[T], x []T) (any, error) {
			return c.RunHost(context.Background(), x, 3, gibbsrt.Stream{Seed: st.Seed, Sweep: 110},
				gibbsrt.RunOptions[T]{Burnin: gibbsrt.BurninAuto, Chunk: 2})
		}),
		// Bad arguments: the same refusal, nothing changed.
		step("Sweep of a partial chain", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x[:len(x)-1], 1, st) }),
		step("Sweep of -1 sweeps", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x, -1, st) }),
		step("SweepTrace into too little", func(c gibbsrt.Chains[T], x []T) error {
			_, err := c.SweepTrace(x, 4, st, gibbsrt.Trace{Thin: 1}, make([]T, 1))
			return err
		}),
		step("SweepChebyshev with a short prev", func(c gibbsrt.Chains[T], x []T) error {
			return c.SweepChebyshev(x, make([]T, d), 0, 1, st)
		}),
		step("SetScheme of ω 2", func(c gibbsrt.Chains[T], _ []T) error { return c.SetScheme(gibbsrt.Scheme{Omega: 2}) }),
	}
	if h != nil {
		bad := slices.Clone(h)
		bad[len(bad)/2] = T(math.Inf(-1))
		steps = append(steps,
			step("SetLinear of a partial chain", func(c gibbsrt.Chains[T], _ []T) error { return c.SetLinear(h[:len(h)-1]) }),
			step("SetLinear with an infinity", func(c gibbsrt.Chains[T], _ []T) error { return c.SetLinear(bad) }),
			step("Sweep of other chains than the term's", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x[d:], 1, st) }),
			step("Sweep with the term kept", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x, 2, st) }),
			step("SetModel keeps the term", func(c gibbsrt.Chains[T], x []T) error {
				if err := c.SetModel(m.Rows(), m.Mu); err != nil {
					return err
				}
				return c.Sweep(x, 2, st)
			}),
			step("SetLinear(nil)", func(c gibbsrt.Chains[T], x []T) error {
				if err := c.SetLinear(nil); err != nil {
					return err
				}
				return c.Sweep(x[d:], 1, st)
			}),
		)
	}
	prec, ph := Precisions[T](m, chains, rand.New(rand.NewPCG(seed, 2)))
	steps = append(steps,
		step("SetPrecision", func(c gibbsrt.Chains[T], _ []T) error { return c.SetPrecision(prec) }),
		step("Sweep with a precision per chain in a symmetric scheme", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x, 1, st) }),
		step("SetScheme(Plain)", func(c gibbsrt.Chains[T], _ []T) error { return c.SetScheme(gibbsrt.Plain) }),
		step("Sweep with a precision per chain", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x, 3, st) }),
		step("SetLinear with a precision per chain", func(c gibbsrt.Chains[T], _ []T) error { return c.SetLinear(ph) }),
		step("Sweep with a precision and a linear term per chain", func(c gibbsrt.Chains[T], x []T) error { return c.Sweep(x, 2, st) }),
		step("SweepMoments with a precision per chain", func(c gibbsrt.Chains[T], x []T) error {
			_, err := c.SweepMoments(x, 2, st, tr)
			return err
		}),
		step("SetPrecision(nil)", func(c gibbsrt.Chains[T], x []T) error {
			if err := c.SetPrecision(nil); err != nil {
				return err
			}
			if err := c.SetLinear(nil); err != nil {
				return err
			}
			return c.Sweep(x, 1, st)
		}),
	)
	steps = append(steps,
		step("Close", func(c gibbsrt.Chains[T], _ []T) error { return c.Close() }),
		step("Sweep after Close", func(c gibbsrt.Chains[T], x []T) error {
			if err := c.Sweep(x, 1, st); !errors.Is(err, gibbsrt.ErrClosed) {
				return fmt.Errorf("%v, want ErrClosed", err)
			}
			return nil
		}),
		step("SetLinear after Close", func(c gibbsrt.Chains[T], _ []T) error {
			if err := c.SetLinear(make([]T, d)); !errors.Is(err, gibbsrt.ErrClosed) {
				return fmt.Errorf("%v, want ErrClosed", err)
			}
			return nil
		}),
		step("SetPrecision after Close", func(c gibbsrt.Chains[T], _ []T) error {
			if err := c.SetPrecision(prec); !errors.Is(err, gibbsrt.ErrClosed) {
				return fmt.Errorf("%v, want ErrClosed", err)
			}
			return nil
		}),
	)
	for _, err := range steps { // all ran; the first difference explains the rest
		if err != nil {
			return err
		}
	}
	return nil
}

// sameError compares two calls' errors: both nil, or the same message.
func sameError(a, b error) error {
	switch {
	case a == nil && b == nil:
		return nil
	case a == nil || b == nil || a.Error() != b.Error():
		return fmt.Errorf("errors differ: %v vs %v", a, b)
	}
	return nil
}

func isMissing(err error) bool {
	var mk *gibbsrt.MissingKernelError
	return errors.As(err, &mk)
}

// bitsOfAll is v's bit patterns, for comparing answers bit for bit.
func bitsOfAll[T gibbsrt.Float](v []T) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = bitsOf(x)
	}
	return out
}

// momentBits is m's count, mean and comoments as bits (nil for nil).
func momentBits(m *mcstat.Moments) []uint64 {
	if m == nil {
		return nil
	}
	out := []uint64{math.Float64bits(m.Count())}
	for _, v := range append(m.Mean(), m.Comoments()...) {
		out = append(out, math.Float64bits(v))
	}
	return out
}

// Open checks the package's Open: on a machine with a GPU it returns the
// package's Sampler on device 0, without a driver or device its Reference,
// with the reason, which wraps ErrNoDriver or ErrNoDevice; either samples.
func Open[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	if h.Open == nil {
		t.Skip("the package has no Open")
	}
	c, choice, err := h.Open()
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer c.Close()
	t.Logf("Open chose %v", choice)
	switch choice.Backend {
	case gibbsrt.OnGPU:
		if _, ok := c.(*gibbsrt.Sampler[T]); !ok || choice.Reason != nil || choice.Device.Name == "" {
			t.Errorf("Open chose the GPU: %T, %+v", c, choice)
		}
	case gibbsrt.OnTwin:
		if _, ok := c.(*gibbsrt.Reference[T]); !ok || !gibbsrt.Fallback(choice.Reason) {
			t.Errorf("Open chose the twin: %T, reason %v (want one wrapping ErrNoDriver or ErrNoDevice)", c, choice.Reason)
		}
	default:
		t.Fatalf("Open chose %v", choice)
	}
	if c.Dim() != h.Dim {
		t.Errorf("Open's sampler has dim %d, want %d", c.Dim(), h.Dim)
	}
	m := AR1(h.Dim, 0.5, NonzeroMean(h.Dim))
	x := make([]T, 3*h.Dim)
	if err := c.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	if err := c.Sweep(x, 2, gibbsrt.Stream{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	want := make([]T, len(x))
	if err := h.reference(t, m).Sweep(want, 2, gibbsrt.Stream{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	requireEqual(t, "Open's sampler vs the twin", x, want, h.Dim)
}
