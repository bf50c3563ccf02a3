package gibbstest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// gpuAPICases is the number of random calls before Close, and again after.
const gpuAPICases = 600

// GPUAPI is the public API's promise (gibbsrt's TestReferenceAPIProperty)
// for the GPU sampler: every method, called with random and extreme
// arguments from a fixed seed, returns an error or succeeds and never
// panics, and a call that fails leaves the host slices passed to it
// unchanged; after Close, every method that returns an error returns
// ErrClosed (the Free methods return nil: Close freed what they free), and
// the others (Choose, Strategies, Dim, Module, Device, Scheme, ...) do not
// panic. It opens its own sampler and skips without a device.
func GPUAPI[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	rt := OpenGPU(t, h)
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 19))
	m := AR1(d, 0.5, NonzeroMean(d))
	if err := rt.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	a := &gpuAPI[T]{t: t, rt: rt, rng: rng, dim: d, m: m}
	for _, chains := range []int{2, 2, 1} {
		ds, err := rt.NewDeviceState(chains)
		if err != nil {
			t.Fatal(err)
		}
		a.states = append(a.states, ds)
	}
	tr, err := rt.NewDeviceTrace(gibbsrt.Trace{Thin: 1}, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	a.traces = append(a.traces, tr)
	for c := 0; c < gpuAPICases; c++ {
		a.call()
	}
	if err := rt.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	a.closed = true
	for c := 0; c < gpuAPICases; c++ {
		a.call()
	}
	if err := rt.Close(); err != nil {
		t.Errorf("Close after Close: %v, want nil", err)
	}
}

type gpuAPI[T gibbsrt.Float] struct {
	t      *testing.T
	rt     *gibbsrt.Sampler[T]
	rng    *rand.Rand
	dim    int
	m      Model
	closed bool
	states []*gibbsrt.DeviceState[T] // the first two hold 2 chains
	traces []*gibbsrt.DeviceTrace[T]
}

// int returns a small int half the time, else an extreme one that no
// accepted call turns into much work.
func (a *gpuAPI[T]) int() int {
	if a.rng.IntN(2) == 0 {
		return a.rng.IntN(4)
	}
	return pickOf(a.rng, -1, math.MinInt, math.MaxInt, 1<<62, 1<<48+1)
}

func pickOf[V any](rng *rand.Rand, vs ...V) V { return vs[rng.IntN(len(vs))] }

func (a *gpuAPI[T]) stream() gibbsrt.Stream {
	return gibbsrt.Stream{
		Seed:  a.rng.Uint64(),
		Sweep: pickOf[uint64](a.rng, 0, 0, 5, gibbsrt.MaxSweepIndex-3, gibbsrt.MaxSweepIndex, math.MaxUint64),
		Chain: pickOf[uint64](a.rng, 0, 0, 7, math.MaxUint64),
	}
}

// state returns a host state: nil, empty, whole chains (1 to 3), ragged.
func (a *gpuAPI[T]) state() []T {
	switch a.rng.IntN(6) {
	case 0:
		return nil
	case 1:
		return []T{}
	case 2:
		return make([]T, a.dim*(1+a.rng.IntN(3))+1)
	}
	return randomState[T](a.rng, 1+a.rng.IntN(3), a.dim)
}

func (a *gpuAPI[T]) trace() gibbsrt.Trace {
	if a.rng.IntN(2) == 0 {
		return gibbsrt.Trace{Thin: 1 + a.rng.IntN(3)}
	}
	tr := gibbsrt.Trace{
		Thin:       pickOf(a.rng, 1, 2, 0, -1, math.MaxUint32+1, math.MaxInt),
		FirstChain: pickOf(a.rng, 0, 1, -1, math.MaxInt, math.MinInt),
		Chains:     pickOf(a.rng, 0, 1, -1, math.MaxInt, math.MinInt),
	}
	switch a.rng.IntN(4) {
	case 0:
		tr.Coords = []int{}
	case 1:
		tr.Coords = []int{pickOf(a.rng, -1, a.dim, math.MaxInt)}
	case 2:
		tr.Coords = []int{a.dim - 1}
	}
	return tr
}

// deviceState returns one of the sampler's states, nil, or a freed one.
func (a *gpuAPI[T]) deviceState() *gibbsrt.DeviceState[T] {
	if a.rng.IntN(10) == 0 {
		return nil
	}
	return a.states[a.rng.IntN(len(a.states))]
}

func (a *gpuAPI[T]) deviceTrace() *gibbsrt.DeviceTrace[T] {
	if a.rng.IntN(10) == 0 {
		return nil
	}
	return a.traces[a.rng.IntN(len(a.traces))]
}

// keep records what a successful New… call made, for later calls (or
// frees it, past a few).
func (a *gpuAPI[T]) keepState(d *gibbsrt.DeviceState[T]) {
	if len(a.states) < 8 {
		a.states = append(a.states, d)
	} else {
		d.Free()
	}
}

// call makes one random call and checks the promise.
func (a *gpuAPI[T]) call() {
	t, rt, rng := a.t, a.rt, a.rng
	var args [][]T // host slices the call may write
	var what string
	var f func() error
	value := false // a method that returns no error
	switch rng.IntN(34) {
	case 0:
		Q, mu := a.m.Rows(), slices.Clone(a.m.Mu)
		switch rng.IntN(4) {
		case 0:
			Q[rng.IntN(a.dim)][rng.IntN(a.dim)] = pickOf(rng, math.NaN(), math.Inf(1), -1e308)
		case 1:
			mu = mu[:rng.IntN(a.dim)]
		case 2:
			Q = Q[:rng.IntN(a.dim)]
		}
		what, f = "SetModel", func() error { return rt.SetModel(Q, mu) }
	case 1:
		sc := gibbsrt.Scheme{Kind: gibbsrt.SweepKind(pickOf(rng, 0, 1, 2, 3, -1)), Omega: pickOf(rng, 1, 1, 1.3, 2, -1, math.NaN()),
			Tune: gibbsrt.Tune(pickOf(rng, 0, 1, 2)), Form: gibbsrt.Form(pickOf(rng, 0, 0, 1, 2, 3, -1))}
		what, f = fmt.Sprintf("SetScheme(%+v)", sc), func() error { return rt.SetScheme(sc) }
	case 2:
		what, f = "Mixing", func() error { _, err := rt.Mixing(); return err }
	case 3:
		what, f = "Chebyshev", func() error { _, err := rt.Chebyshev(); return err }
	case 4:
		st := gibbsrt.Strategy(pickOf(rng, 0, 1, 2, 3, 4, 5, 6, -1, 99))
		what, f = fmt.Sprintf("SetStrategy(%d)", st), func() error { return rt.SetStrategy(st) }
	case 5:
		value = true
		what, f = "Choose, Strategies, Dim, Module, Device, Scheme, Specialization", func() error {
			_ = rt.Choose(a.int(), a.int())
			_, _, _, _, _ = rt.Strategies(), rt.Dim(), hooks(rt).Module(), rt.Device(), rt.Scheme()
			_ = rt.Specialization()
			for _, d := range a.states {
				_ = d.Chains()
			}
			for _, tr := range a.traces {
				_ = tr.Records()
				_, _ = tr.Shape()
			}
			return nil
		}
	case 6:
		x, sweeps, st := a.state(), a.int(), a.stream()
		args = [][]T{x}
		what, f = fmt.Sprintf("Sweep(%d elements, %d sweeps, %+v)", len(x), sweeps, st), func() error { return rt.Sweep(x, sweeps, st) }
	case 7:
		x, sweeps, st, tr := a.state(), a.int(), a.stream(), a.trace()
		out := make([]T, pickOf(rng, 0, 1, 200))
		args = [][]T{x, out}
		what, f = fmt.Sprintf("SweepTrace(%d elements, %d sweeps, %+v, %+v, %d out)", len(x), sweeps, st, tr, len(out)), func() error {
			_, err := rt.SweepTrace(x, sweeps, st, tr, out)
			return err
		}
	case 8:
		chains := a.int()
		what, f = fmt.Sprintf("NewHostState(%d)", chains), func() error {
			h, err := rt.NewHostState(chains)
			if err == nil {
				err = h.Free()
			}
			return err
		}
	case 9:
		chains := a.int()
		what, f = fmt.Sprintf("NewDeviceState(%d)", chains), func() error {
			d, err := rt.NewDeviceState(chains)
			if err == nil {
				a.keepState(d)
			}
			return err
		}
	case 10:
		x, sweeps, st := a.deviceState(), a.int(), a.stream()
		what, f = fmt.Sprintf("SweepDevice(%d chains, %d sweeps, %+v)", x.Chains(), sweeps, st), func() error { return rt.SweepDevice(x, sweeps, st) }
	case 11:
		tr, chains, records := a.trace(), a.int(), a.int()
		what, f = fmt.Sprintf("NewDeviceTrace(%+v, %d chains, %d records)", tr, chains, records), func() error {
			d, err := rt.NewDeviceTrace(tr, chains, records)
			if err == nil {
				if len(a.traces) < 4 {
					a.traces = append(a.traces, d)
				} else {
					err = d.Free()
				}
			}
			return err
		}
	case 12:
		x, sweeps, st, tr := a.deviceState(), a.int(), a.stream(), a.deviceTrace()
		what, f = fmt.Sprintf("SweepDeviceTrace(%d chains, %d sweeps, %+v)", x.Chains(), sweeps, st), func() error { return rt.SweepDeviceTrace(x, sweeps, st, tr) }
	case 13:
		tr := a.deviceTrace()
		what, f = "TraceMoments", func() error { _, err := rt.TraceMoments(tr); return err }
	case 14:
		x, sweeps, st := a.deviceState(), a.int(), a.stream()
		o := gibbsrt.RunOptions[T]{Chunk: pickOf(rng, 0, 1, -1, math.MaxInt)}
		if rng.IntN(2) == 0 {
			o.Trace = a.deviceTrace()
		}
		if rng.IntN(3) == 0 {
			o.Moments, _ = mcstat.NewMoments(1 + rng.IntN(a.dim))
		}
		ctx := context.Background()
		if rng.IntN(10) == 0 {
			ctx = nil
		}
		if rng.IntN(2) == 0 {
			o.Burnin = pickOf(rng, gibbsrt.BurninAuto, gibbsrt.BurninAuto, 2)
			o.BurninTolerance = pickOf(rng, 0, 0, 1e-2, -1, math.NaN(), 1e-300)
		}
		what, f = fmt.Sprintf("Run(%d chains, %d sweeps, %+v, chunk %d, burn-in %v, tolerance %v)", x.Chains(), sweeps, st, o.Chunk, o.Burnin, o.BurninTolerance), func() error {
			res, err := rt.Run(ctx, x, sweeps, st, o)
			if err != nil && res.Burnin > 0 && res.Sweeps == 0 {
				// (A trace whose later chunks hold more records than the
				// first's can fail later; the sampling's first chunk is
				// checked before the burn-in.)
				t.Errorf("Run failed (%v) after its burn-in, %+v: a bad argument must be refused before any work", err, res)
			}
			return err
		}
		if rng.IntN(3) == 0 {
			hx := a.state()
			args = [][]T{hx}
			what, f = fmt.Sprintf("RunHost(%d elements, %d sweeps, %+v, chunk %d, burn-in %v, tolerance %v)", len(hx), sweeps, st, o.Chunk, o.Burnin, o.BurninTolerance), func() error {
				_, err := rt.RunHost(ctx, hx, sweeps, st, o)
				return err
			}
		}
	case 15:
		x, prev := a.deviceState(), a.deviceState()
		first := pickOf(rng, 0, 1, 3, -1, gibbsrt.MaxChebyshevIterations, gibbsrt.MaxChebyshevIterations+1, math.MaxInt, math.MinInt)
		n, st := a.int(), a.stream()
		what, f = fmt.Sprintf("SweepChebyshevDevice(%d, %d chains, first %d, %d iterations, %+v)", x.Chains(), prev.Chains(), first, n, st), func() error {
			return rt.SweepChebyshevDevice(x, prev, first, n, st)
		}
	case 16:
		x := a.state()
		prev := slices.Clone(x)
		if rng.IntN(4) == 0 {
			prev = a.state()
		}
		first, n, st := pickOf(rng, 0, 1, -1, math.MaxInt, math.MinInt), a.int(), a.stream()
		args = [][]T{x, prev}
		what, f = fmt.Sprintf("SweepChebyshev(%d, %d elements, first %d, %d iterations, %+v)", len(x), len(prev), first, n, st), func() error {
			return rt.SweepChebyshev(x, prev, first, n, st)
		}
	case 17:
		x, st := a.state(), a.stream()
		args = [][]T{x}
		what, f = fmt.Sprintf("DrawExact(%d elements, %+v)", len(x), st), func() error { return rt.DrawExact(x, st) }
	case 18:
		x, st := a.deviceState(), a.stream()
		what, f = fmt.Sprintf("DrawExactDevice(%d chains, %+v)", x.Chains(), st), func() error { return rt.DrawExactDevice(x, st) }
	case 19:
		what, f = "Synchronize", rt.Synchronize
	case 20:
		x := a.state()
		sweeps := pickOf(rng, 0, 1, -1, 1<<47, math.MaxInt)
		noise := make([]T, pickOf(rng, 0, 1, len(x)))
		args = [][]T{x, noise}
		what, f = fmt.Sprintf("SweepNoise(%d elements, %d noise, %d sweeps)", len(x), len(noise), sweeps), func() error { return rt.SweepNoise(x, noise, sweeps) }
	case 21:
		chains, sweeps, st := a.int(), a.int(), a.stream()
		what, f = fmt.Sprintf("Normals(%d chains, %d sweeps, %+v)", chains, sweeps, st), func() error { _, err := hooks(rt).Normals(chains, sweeps, st); return err }
	case 22:
		ctr, key := make([][4]uint32, rng.IntN(3)), make([][2]uint32, rng.IntN(3))
		what, f = fmt.Sprintf("Philox(%d counters, %d keys)", len(ctr), len(key)), func() error { _, err := hooks(rt).Philox(ctr, key); return err }
	case 23:
		out := make([]T, pickOf(rng, 0, 1, 1000))
		args = [][]T{out}
		first := rng.Uint32()
		what, f = fmt.Sprintf("Transform(%d, %d out)", first, len(out)), func() error { return hooks(rt).Transform(first, out) }
	case 24:
		d, x := a.states[rng.IntN(len(a.states))], a.state()
		args = [][]T{x}
		if rng.IntN(2) == 0 {
			what, f = fmt.Sprintf("DeviceState.Upload(%d chains, %d elements)", d.Chains(), len(x)), func() error { return d.Upload(x) }
		} else {
			what, f = fmt.Sprintf("DeviceState.Download(%d chains, %d elements)", d.Chains(), len(x)), func() error { return d.Download(x) }
		}
	case 25:
		d, x, first := a.states[rng.IntN(len(a.states))], a.state(), a.int()
		args = [][]T{x}
		what, f = fmt.Sprintf("DeviceState.DownloadChains(%d chains, first %d, %d elements)", d.Chains(), first, len(x)), func() error { return d.DownloadChains(first, x) }
	case 26:
		d, v := a.states[rng.IntN(len(a.states))], T(pickOf(rng, 0, 1, math.NaN(), math.Inf(-1)))
		what, f = fmt.Sprintf("DeviceState.Fill(%d chains, %v)", d.Chains(), v), func() error { return d.Fill(v) }
	case 27:
		tr := a.traces[rng.IntN(len(a.traces))]
		out := make([]T, pickOf(rng, 0, 1, 2*a.dim, 16*a.dim))
		args = [][]T{out}
		what, f = fmt.Sprintf("DeviceTrace.Download(%d records, %d out)", tr.Records(), len(out)), func() error { return tr.Download(out) }
	case 28: // free one of the extra states or traces (the first three stay)
		if len(a.states) > 3 && rng.IntN(2) == 0 {
			i := 3 + rng.IntN(len(a.states)-3)
			d := a.states[i]
			what, f = "DeviceState.Free", d.Free
		} else if len(a.traces) > 1 {
			d := a.traces[1+rng.IntN(len(a.traces)-1)]
			what, f = "DeviceTrace.Free", d.Free
		} else {
			what, f = "Synchronize", rt.Synchronize
		}
	case 29:
		sc := gibbsrt.Scheme{Kind: gibbsrt.Forward, Omega: 1, Form: gibbsrt.Form(pickOf(rng, 0, 2))}
		what, f = fmt.Sprintf("SetScheme(%+v)", sc), func() error { return rt.SetScheme(sc) }
	case 30:
		x, sweeps, st, tr := a.state(), a.int(), a.stream(), a.trace()
		args = [][]T{x}
		what, f = fmt.Sprintf("SweepMoments(%d elements, %d sweeps, %+v, %+v)", len(x), sweeps, st, tr), func() error {
			_, err := rt.SweepMoments(x, sweeps, st, tr)
			return err
		}
	case 31: // a linear term: nil clears it, 2 chains match the first states
		h := a.state()
		if len(h) > 0 && rng.IntN(3) == 0 {
			h[rng.IntN(len(h))] = T(pickOf(rng, math.NaN(), math.Inf(1), 1e300))
		}
		args = [][]T{h}
		what, f = fmt.Sprintf("SetLinear(%d elements)", len(h)), func() error { return rt.SetLinear(h) }
	case 32:
		h := a.deviceState()
		what, f = fmt.Sprintf("SetLinearDevice(%d chains)", h.Chains()), func() error { return rt.SetLinearDevice(h) }
	case 33: // a precision per chain: nil clears it; a diagonal, scales or both of a state's chains
		w := a.state()
		for i, v := range w {
			w[i] = T(math.Abs(float64(v)))
		}
		if len(w) > 0 && rng.IntN(3) == 0 {
			w[rng.IntN(len(w))] = T(pickOf(rng, math.NaN(), math.Inf(1), -1e30, 0))
		}
		var p *gibbsrt.Precision[T]
		switch rng.IntN(4) {
		case 1:
			p = &gibbsrt.Precision[T]{Diag: w}
		case 2:
			p = &gibbsrt.Precision[T]{Scales: w}
		case 3:
			p = &gibbsrt.Precision[T]{Scales: w[:len(w)/a.dim], Diag: w}
		}
		args = [][]T{w}
		what, f = fmt.Sprintf("SetPrecision(%d elements, variant %v)", len(w), p != nil), func() error { return rt.SetPrecision(p) }
	}
	before := make([][]T, len(args))
	for i, s := range args {
		before[i] = slices.Clone(s)
	}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s panicked (closed %v): %v\n%s", what, a.closed, p, debug.Stack())
			}
		}()
		return f()
	}()
	freeing := what == "DeviceState.Free" || what == "DeviceTrace.Free"
	switch {
	case a.closed && freeing && err != nil:
		t.Errorf("%s after Close: %v, want nil (Close freed it)", what, err)
	case a.closed && !freeing && !value && !errors.Is(err, gibbsrt.ErrClosed):
		t.Errorf("%s after Close: %v, want ErrClosed", what, err)
	}
	if err == nil {
		return
	}
	for i := range args {
		if equalBits(args[i], before[i]) != -1 {
			t.Fatalf("%s failed (%v) but changed argument slice %d", what, err, i)
		}
	}
}
