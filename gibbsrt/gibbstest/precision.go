package gibbstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Precisions returns a precision per chain for chains chains of m's dim
// (gibbsrt.Precision) and a linear term per chain h: two members beside
// m's Q, a random positive definite matrix and a rank-2 positive
// semidefinite one (members need not be definite), scales in [0.25, 4],
// [0, 2] and [0, 3], and a diagonal in [0, 2]. Every Q_c is then positive
// definite, and different for every chain. h_c is Q_c times a shift of up
// to a few of Q_c's standard deviations, so that a chain on another
// chain's target is far off.
func Precisions[T gibbsrt.Float](m Model, chains int, rng *rand.Rand) (*gibbsrt.Precision[T], []T) {
	d := m.Q.SymmetricDim()
	a := RandomSPD(d, 10, rng, make([]float64, d)).Rows()
	b := make([][]float64, d)
	g := [2][]float64{make([]float64, d), make([]float64, d)}
	for i := range d {
		g[0][i], g[1][i] = rng.NormFloat64(), rng.NormFloat64()
	}
	for i := range b {
		b[i] = make([]float64, d)
		for j := range b[i] {
			b[i][j] = (g[0][i]*g[0][j] + g[1][i]*g[1][j]) / float64(d)
		}
	}
	p := &gibbsrt.Precision[T]{Members: [][][]float64{a, b}, Scales: make([]T, 3*chains), Diag: make([]T, d*chains)}
	for c := range chains {
		p.Scales[3*c] = T(0.25 + 3.75*rng.Float64())
		p.Scales[3*c+1] = T(2 * rng.Float64())
		p.Scales[3*c+2] = T(3 * rng.Float64())
		for i := range d {
			p.Diag[c*d+i] = T(2 * rng.Float64())
		}
	}
	h := make([]T, d*chains)
	shift := make([]float64, d)
	for c := range chains {
		q, _ := PrecisionTarget(m, p, nil, c)
		for i := range shift {
			shift[i] = 3 * rng.NormFloat64() / math.Sqrt(q.At(i, i))
		}
		for i := range d {
			v := 0.0
			for j := range d {
				v += q.At(i, j) * shift[j]
			}
			h[c*d+i] = T(v)
		}
	}
	return p, h
}

// Indefinite returns p (K members, chains chains) with one more member,
// the off-diagonal part of m's Q, at scale 0 for every chain but bad, at
// 1e4: Q's off-diagonal part has trace 0, so a negative eigenvalue, and
// chain bad's Q_c is indefinite with the diagonal p gave it, which
// SetPrecision accepts and only a Cholesky factor finds. It panics if that
// chain's Q_c is still positive definite in float64.
func Indefinite[T gibbsrt.Float](m Model, p *gibbsrt.Precision[T], chains, bad int) *gibbsrt.Precision[T] {
	d := m.Q.SymmetricDim()
	off := make([][]float64, d)
	for i := range off {
		off[i] = make([]float64, d)
		for j := range off[i] {
			if i != j {
				off[i][j] = m.Q.At(i, j)
			}
		}
	}
	k := 1 + len(p.Members)
	q := &gibbsrt.Precision[T]{Members: append(slices.Clone(p.Members), off), Scales: make([]T, (k+1)*chains), Diag: p.Diag}
	for c := range chains {
		for j := range k {
			q.Scales[c*(k+1)+j] = 1
			if p.Scales != nil {
				q.Scales[c*(k+1)+j] = p.Scales[c*k+j]
			}
		}
	}
	q.Scales[bad*(k+1)+k] = 1e4
	qc, _ := PrecisionTarget(m, q, nil, bad)
	var ch mat.Cholesky
	if ch.Factorize(qc) {
		panic(fmt.Sprintf("gibbstest.Indefinite: chain %d's Q_c is positive definite", bad))
	}
	return q
}

// PrecisionTarget returns chain c's target under p and the linear term h
// (nil: none) in float64, from the values a sampler is given: Q_c =
// Σ_k s_ck·M_k + diag(w_c) with M_0 = m's Q, and its mean Q_c⁻¹·(Q·mu +
// h_c).
func PrecisionTarget[T gibbsrt.Float](m Model, p *gibbsrt.Precision[T], h []T, c int) (*mat.SymDense, []float64) {
	d := m.Q.SymmetricDim()
	k := 1 + len(p.Members)
	q := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			v := 0.0
			for n := range k {
				s := 1.0
				if p.Scales != nil {
					s = float64(p.Scales[c*k+n])
				}
				mij := m.Q.At(i, j)
				if n > 0 {
					mij = 0.5 * (p.Members[n-1][i][j] + p.Members[n-1][j][i])
				}
				v += s * mij
			}
			if i == j && p.Diag != nil {
				v += float64(p.Diag[c*d+i])
			}
			q.SetSym(i, j, v)
		}
	}
	b := mat.NewVecDense(d, nil)
	b.MulVec(m.Q, mat.NewVecDense(d, m.Mu))
	if h != nil {
		for i := range d {
			b.SetVec(i, b.AtVec(i)+float64(h[c*d+i]))
		}
	}
	var ch mat.Cholesky
	mean := make([]float64, d)
	if ch.Factorize(q) {
		var x mat.VecDense
		if err := ch.SolveVecTo(&x, b); err == nil {
			copy(mean, x.RawVector().Data)
		}
	}
	return q, mean
}

// CheckPrecisionDistribution gives every chain of c (a sampler with m set)
// its own precision and linear term (Precisions), starts each from an
// exact draw of its own target, sweeps, and whitens each chain by its
// target: u = L_cᵀ(x − mean_c), with Q_c = L_c L_cᵀ, is N(0, I) for every
// chain whose sweeps keep its target. It checks every coordinate's mean of
// u against 0 and its variance against 1 over the chains, with bounds of 5
// standard errors at the sample size, after 2 and after 6 sweeps. It
// clears the precision and the term at the end.
func CheckPrecisionDistribution[T gibbsrt.Float](t TB, m Model, c gibbsrt.Chains[T], chains int, rng *rand.Rand) {
	t.Helper()
	checkPrecisionDraws(t, m, c, chains, rng, false)
}

// CheckExactPrecisionDistribution is CheckPrecisionDistribution for exact
// draws (DrawExact with a precision per chain): every chain starts at 0,
// is drawn twice (at two stream sweeps) and whitened after each draw.
func CheckExactPrecisionDistribution[T gibbsrt.Float](t TB, m Model, c gibbsrt.Chains[T], chains int, rng *rand.Rand) {
	t.Helper()
	checkPrecisionDraws(t, m, c, chains, rng, true)
}

// checkPrecisionDraws is CheckPrecisionDistribution, or with exact its
// exact draws' variant.
func checkPrecisionDraws[T gibbsrt.Float](t TB, m Model, c gibbsrt.Chains[T], chains int, rng *rand.Rand, exact bool) {
	t.Helper()
	d := m.Q.SymmetricDim()
	p, h := Precisions[T](m, chains, rng)
	if err := c.SetPrecision(p); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	// Chain cc's factor, computed again for each pass: a million of them
	// would not fit in memory.
	each := func(do func(cc int, l *mat.TriDense, mean []float64)) {
		inParallel(chains, func(lo, hi int) {
			var ch mat.Cholesky
			var l mat.TriDense
			for cc := lo; cc < hi; cc++ {
				q, mean := PrecisionTarget(m, p, h, cc)
				if !ch.Factorize(q) {
					panic(fmt.Sprintf("chain %d's Q_c is not positive definite", cc))
				}
				ch.LTo(&l)
				do(cc, &l, mean)
			}
		})
	}
	x := make([]T, chains*d)
	seed := rng.Uint64()
	what := "sweeps"
	if exact {
		what = "exact draws" // which need no start
	} else {
		each(func(cc int, l *mat.TriDense, mean []float64) { // x = mean + L⁻ᵀz
			r := rand.New(rand.NewPCG(seed, uint64(cc)))
			z := mat.NewVecDense(d, nil)
			for i := range d {
				z.SetVec(i, r.NormFloat64())
			}
			var v mat.VecDense
			if err := v.SolveVec(l.T(), z); err != nil {
				panic(err)
			}
			for i := range d {
				x[cc*d+i] = T(mean[i] + v.AtVec(i))
			}
		})
	}
	st := gibbsrt.Stream{Seed: rng.Uint64()}
	for _, n := range []int{2, 4} {
		var err error
		if exact {
			n, err = 1, c.DrawExact(x, st)
		} else {
			err = c.Sweep(x, n, st)
		}
		if err != nil {
			t.Fatal(err)
		}
		st.Sweep += uint64(n)
		u := make([]float64, chains*d)
		each(func(cc int, l *mat.TriDense, mean []float64) {
			r := mat.NewVecDense(d, nil)
			for i := range d {
				r.SetVec(i, float64(x[cc*d+i])-mean[i])
			}
			uc := mat.NewVecDense(d, u[cc*d:(cc+1)*d])
			uc.MulVec(l.T(), r)
		})
		n := float64(chains)
		for i := range d {
			sum, sq := 0.0, 0.0
			for cc := range chains {
				v := u[cc*d+i]
				sum += v
				sq += v * v
			}
			mean, variance := sum/n, sq/n
			if lim := 5 / math.Sqrt(n); math.Abs(mean) > lim {
				t.Errorf("with a precision per chain, %s to stream sweep %d: whitened coordinate %d has mean %.4g over %d chains, want 0 within %.3g (5 standard errors)", what, st.Sweep, i, mean, chains, lim)
			}
			if lim := 5 * math.Sqrt(2/n); math.Abs(variance-1) > lim {
				t.Errorf("with a precision per chain, %s to stream sweep %d: whitened coordinate %d has variance %.4g over %d chains, want 1 within %.3g (5 standard errors)", what, st.Sweep, i, variance, chains, lim)
			}
		}
	}
	if err := c.SetPrecision(nil); err != nil {
		t.Fatal(err)
	}
	if err := c.SetLinear(nil); err != nil {
		t.Fatal(err)
	}
}

// inParallel runs do over [0, n) split into one range per CPU.
func inParallel(n int, do func(lo, hi int)) {
	w := min(n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(k*n/w, (k+1)*n/w)
		}()
	}
	wg.Wait()
}

// Precision runs CheckPrecisionDistribution on the CPU twin (4000 chains up
// to dim 64; see cpuChains beyond).
func Precision[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	rng := rand.New(rand.NewPCG(uint64(h.Dim), 33))
	for _, m := range targetsFor(h.Dim, rng) {
		t.Run(m.Name, func(t *testing.T) {
			CheckPrecisionDistribution[T](t, m, h.reference(t, m), cpuChains(4000, h.Dim, 128), rng)
		})
	}
}

// GPUPrecision checks a precision per chain on the GPU against the twin,
// bit for bit, with every part of it set, with the scales alone and with
// the diagonal alone, with and without a linear term, at every batch of
// the comparisons, on host and on device state; that both refuse the
// same calls with the same errors (a chain whose diagonal is not
// positive, a chain count that differs, a trace, exact draws, a chain
// whose state is not finite after the sweeps, which both name); then
// CheckPrecisionDistribution at a million chains. It skips without a GPU
// or without the kernel (beyond the thread-per-chain dims).
func GPUPrecision[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	g := OpenGPU(t, h)
	defer g.Close()
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 34))
	m := RandomSPD(d, 100, rng, NonzeroMean(d))
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	if err := g.SetPrecision(&gibbsrt.Precision[T]{Diag: make([]T, d)}); err != nil {
		skipMissing(t, err)
		t.Fatal(err)
	}
	ref := h.reference(t, m)
	st := gibbsrt.Stream{Seed: 0x5eedf00d, Sweep: 1<<40 + 9, Chain: 1<<33 + 3}
	both := func(t *testing.T, p *gibbsrt.Precision[T], hs []T) {
		t.Helper()
		for _, c := range []gibbsrt.Chains[T]{g, ref} {
			if err := c.SetPrecision(p); err != nil {
				t.Fatal(err)
			}
			if err := c.SetLinear(hs); err != nil {
				t.Fatal(err)
			}
		}
	}
	batches := twinBatches(d)
	for _, chains := range batches {
		full, hs := Precisions[T](m, chains, rng)
		for _, v := range []struct {
			name string
			p    *gibbsrt.Precision[T]
			h    []T
		}{
			{"all", full, hs},
			{"scales", &gibbsrt.Precision[T]{Members: full.Members, Scales: full.Scales}, nil},
			{"diagonal", &gibbsrt.Precision[T]{Diag: full.Diag}, hs},
		} {
			t.Run(fmt.Sprintf("%s/B=%d", v.name, chains), func(t *testing.T) {
				both(t, v.p, v.h)
				requireSameSweeps(t, "GPU vs CPU with a precision per chain ("+v.name+")", g.Sweep, ref, randomState[T](rng, chains, d), 3, st, d)
			})
		}
	}
	exact := familyExact[T](d)
	if exact {
		for _, chains := range batches {
			full, hs := Precisions[T](m, chains, rng)
			t.Run(fmt.Sprintf("DrawExact/B=%d", chains), func(t *testing.T) {
				both(t, full, hs)
				x0 := randomState[T](rng, chains, d)
				got, want := slices.Clone(x0), slices.Clone(x0)
				if err := ref.DrawExact(want, st); err != nil {
					t.Fatal(err)
				}
				if err := g.DrawExact(got, st); err != nil {
					t.Fatal(err)
				}
				requireEqual(t, "GPU vs CPU, exact draws with a precision per chain", got, want, d)
			})
		}
	}
	chains := batches[len(batches)-1]
	full, hs := Precisions[T](m, chains, rng)
	if exact {
		t.Run("DrawExact/indefinite", func(t *testing.T) {
			bad := chains / 2
			both(t, Indefinite(m, full, chains, bad), hs)
			x0 := randomState[T](rng, chains, d)
			got, want := slices.Clone(x0), slices.Clone(x0)
			eg, er := g.DrawExact(got, st), ref.DrawExact(want, st)
			if eg == nil || er == nil || eg.Error() != er.Error() || !strings.Contains(eg.Error(), fmt.Sprintf("chain %d's precision Q_c is not positive definite", bad)) {
				t.Errorf("DrawExact with chain %d's Q_c indefinite: GPU %v, twin %v; want the same error, naming it", bad, eg, er)
			}
			requireEqual(t, "DrawExact with an indefinite Q_c (that chain unchanged, the others drawn)", got, want, d)
		})
	}
	t.Run("DeviceState", func(t *testing.T) {
		both(t, full, hs)
		x0 := randomState[T](rng, chains, d)
		want := slices.Clone(x0)
		if err := ref.Sweep(want, 4, st); err != nil {
			t.Fatal(err)
		}
		ds := uploaded(t, g, x0)
		if err := g.SweepDevice(ds, 4, st); err != nil {
			t.Fatal(err)
		}
		got := make([]T, len(x0))
		if err := ds.Download(got); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "SweepDevice with a precision per chain", got, want, d)
		if !exact {
			return
		}
		if err := ref.DrawExact(want, st); err != nil {
			t.Fatal(err)
		}
		if err := g.DrawExactDevice(ds, st); err != nil {
			t.Fatal(err)
		}
		if err := ds.Download(got); err != nil {
			t.Fatal(err)
		}
		requireEqual(t, "DrawExactDevice with a precision per chain", got, want, d)
	})
	t.Run("Errors", func(t *testing.T) {
		both(t, full, hs)
		bad := &gibbsrt.Precision[T]{Members: full.Members, Scales: slices.Clone(full.Scales), Diag: full.Diag}
		bad.Scales[3*(chains/2)] = -1e6
		nan := randomState[T](rng, chains, d)
		// The last coordinate: a forward sweep reads it before it writes it
		// (a NaN in coordinate 0 is overwritten before any other reads it).
		nan[(chains/3)*d+d-1] = T(math.NaN())
		x := randomState[T](rng, chains, d)
		type call = struct {
			what string
			want string // in the error
			call func(c gibbsrt.Chains[T]) error
		}
		calls := []call{
			{"SetPrecision with a negative diagonal", fmt.Sprintf("chain %d's precision", chains/2), func(c gibbsrt.Chains[T]) error { return c.SetPrecision(bad) }},
			{"Sweep of another chain count", "is for", func(c gibbsrt.Chains[T]) error { return c.Sweep(x[:len(x)-d], 1, st) }},
			{"SweepTrace", "a trace", func(c gibbsrt.Chains[T]) error {
				_, err := c.SweepTrace(slices.Clone(x), 2, st, gibbsrt.Trace{Thin: 1}, make([]T, 2*len(x)))
				return err
			}},
			{"a state with a NaN", fmt.Sprintf("chain %d's state is not finite", chains/3), func(c gibbsrt.Chains[T]) error { return c.Sweep(slices.Clone(nan), 2, st) }},
		}
		if d == 1 { // the one coordinate is overwritten: no NaN survives
			calls = calls[:len(calls)-1]
		}
		// Above gibbs_family_exact's dims every exact draw is refused for
		// its dim first, whatever its chain count.
		if exact {
			calls = append(calls, call{"DrawExact of another chain count", "is for", func(c gibbsrt.Chains[T]) error { return c.DrawExact(x[:len(x)-d], st) }})
		} else {
			calls = append(calls, call{"DrawExact above its dims", "draws dims up to", func(c gibbsrt.Chains[T]) error { return c.DrawExact(slices.Clone(x), st) }})
		}
		for _, call := range calls {
			eg, er := call.call(g), call.call(ref)
			if eg == nil || er == nil || eg.Error() != er.Error() || !strings.Contains(eg.Error(), call.want) {
				t.Errorf("%s: GPU %v, twin %v; want the same error, with %q", call.what, eg, er, call.want)
			}
		}
		// The refused SetPrecision kept the precision before it.
		requireSameSweeps(t, "GPU vs CPU after refused calls", g.Sweep, ref, x, 2, st, d)
	})
	t.Run("Distribution", func(t *testing.T) {
		CheckPrecisionDistribution[T](t, m, g, gpuDistChains(d), rng)
	})
	if exact {
		t.Run("ExactDistribution", func(t *testing.T) {
			CheckExactPrecisionDistribution[T](t, m, g, gpuDistChains(d), rng)
		})
	}
}

// familyExact reports whether DrawExact with a precision per chain runs
// at dim d in T (kernels.FamilyExactMaxDim).
func familyExact[T gibbsrt.Float](d int) bool {
	return d <= kernels.FamilyExactMaxDim(dtypeOf[T]())
}

// dtypeOf is T's kernel dtype.
func dtypeOf[T gibbsrt.Float]() kernels.DType {
	if unsafe.Sizeof(T(0)) == 8 {
		return kernels.Float64
	}
	return kernels.Float32
}
