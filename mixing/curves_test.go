package mixing

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func covarianceOf(t *testing.T, q *mat.SymDense) *mat.SymDense {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		t.Fatal("Q is not positive definite")
	}
	var s mat.SymDense
	if err := ch.InverseTo(&s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// The noise-free crossings against the error curves computed directly:
// ‖G^k·e0‖ and ‖G^k·Σ·G^kᵀ‖_F for sweeps, MeanOperators for Chebyshev
// iterations.
func TestBurnInCrossingsExact(t *testing.T) {
	q := ar1(12, 0.9)
	sigma := covarianceOf(t, q)
	e0 := make([]float64, 12)
	for i := range e0 {
		e0[i] = 10 * float64(1+i%3)
	}
	ev := mat.NewVecDense(12, e0)
	o := CurveOptions{Chains: 1 << 20, MeanThreshold: 1e-3, CovThreshold: 1e-2, MaxSweeps: 3000, Z: 4}
	for _, s := range []Sweep{Forward, Backward, Symmetric} {
		for _, w := range []float64{1, 1.4} {
			g, err := Operator(q, w, s)
			if err != nil {
				t.Fatal(err)
			}
			mean, cov, err := BurnInCrossings(g, nil, sigma, e0, o)
			if err != nil {
				t.Fatal(err)
			}
			wantMean, wantCov := 0, 0
			e := mat.VecDenseCopyOf(ev)
			c := mat.DenseCopyOf(sigma)
			for k := 1; k <= o.MaxSweeps && (wantMean == 0 || wantCov == 0); k++ {
				var ne mat.VecDense
				ne.MulVec(g, e)
				e = &ne
				var gc, nc mat.Dense
				gc.Mul(g, c)
				nc.Mul(&gc, g.T())
				c = &nc
				if wantMean == 0 && mat.Norm(e, 2) <= o.MeanThreshold*mat.Norm(ev, 2) {
					wantMean = k
				}
				if wantCov == 0 && mat.Norm(c, 2) <= o.CovThreshold*mat.Norm(sigma, 2) {
					wantCov = k
				}
			}
			if mean.Exact != wantMean || cov.Exact != wantCov || wantMean == 0 || wantCov == 0 {
				t.Errorf("%v ω=%v: crossings %d, %d; directly %d, %d", s, w, mean.Exact, cov.Exact, wantMean, wantCov)
			}
			// At B = 2^20 the floors are far below the thresholds: the
			// ranges are tight around the exact crossings.
			for _, c := range []Crossing{mean, cov} {
				if c.Lo < 1 || c.Lo > c.Exact || c.Hi < c.Exact || c.Hi > c.Exact+c.Exact/5+3 {
					t.Errorf("%v ω=%v: range %+v", s, w, c)
				}
			}
		}
	}
	ch, err := NewChebyshev(1.2, 0.99*mustSSORMin(t, q, 1.2), 1)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Operator(q, 1.2, Symmetric)
	if err != nil {
		t.Fatal(err)
	}
	mean, _, err := BurnInCrossings(g, &ch, sigma, e0, o)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for k, pk := range ch.MeanOperators(g, 500) {
		var e mat.VecDense
		e.MulVec(pk, ev)
		if k > 0 && mat.Norm(&e, 2) <= o.MeanThreshold*mat.Norm(ev, 2) {
			want = k
			break
		}
	}
	if mean.Exact != want || want == 0 {
		t.Errorf("Chebyshev: mean crossing %d, by MeanOperators %d", mean.Exact, want)
	}
}

func mustSSORMin(t *testing.T, q mat.Symmetric, w float64) float64 {
	t.Helper()
	l, _, err := SSORSpectrum(q, w)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// simulateCrossings runs B chains of over-relaxed forward sweeps at ω on
// N(0, Q⁻¹) from the point e0, by the update's formula in float64 with
// math/rand normals, and returns the first sweeps at which the batch's
// mean and covariance errors fall to the thresholds (0: not within
// maxSweeps).
func simulateCrossings(q, sigma *mat.SymDense, omega float64, e0 []float64, chains int, o CurveOptions, rng *rand.Rand) (mean, cov int) {
	d := len(e0)
	x := make([][]float64, chains)
	for c := range x {
		x[c] = append([]float64(nil), e0...)
	}
	e0n := mat.Norm(mat.NewVecDense(d, e0), 2)
	sF := mat.Norm(sigma, 2)
	m := make([]float64, d)
	s := mat.NewDense(d, d, nil)
	for k := 1; k <= o.MaxSweeps && (mean == 0 || cov == 0); k++ {
		for _, xc := range x {
			for i := 0; i < d; i++ {
				acc := 0.0
				for j := 0; j < d; j++ {
					if j != i {
						acc += q.At(i, j) * xc[j]
					}
				}
				mi := -acc / q.At(i, i)
				xc[i] = (1-omega)*xc[i] + omega*mi + math.Sqrt(omega*(2-omega)/q.At(i, i))*rng.NormFloat64()
			}
		}
		for i := range m {
			m[i] = 0
			for _, xc := range x {
				m[i] += xc[i]
			}
			m[i] /= float64(chains)
		}
		if mean == 0 && mat.Norm(mat.NewVecDense(d, m), 2) <= o.MeanThreshold*e0n {
			mean = k
		}
		if cov != 0 {
			continue
		}
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				v := 0.0
				for _, xc := range x {
					v += (xc[i] - m[i]) * (xc[j] - m[j])
				}
				s.Set(i, j, v/float64(chains-1)-sigma.At(i, j))
			}
		}
		if mat.Norm(s, 2) <= o.CovThreshold*sF {
			cov = k
		}
	}
	return mean, cov
}

// The crossings that a simulated batch measures lie in the range the
// closed form expects at its size, and outside the range of another ω:
// the range is narrow enough to tell them apart.
func TestBurnInCrossingsSimulated(t *testing.T) {
	q := ar1(6, 0.9)
	sigma := covarianceOf(t, q)
	e0 := make([]float64, 6)
	for i := range e0 {
		e0[i] = 10 * math.Sqrt(sigma.At(i, i))
	}
	const chains = 4096
	o := CurveOptions{Chains: chains, MeanThreshold: 1e-2, CovThreshold: 0.1, MaxSweeps: 500, Z: 4}
	rng := rand.New(rand.NewPCG(6, 9))
	ranges := map[float64][2]Crossing{}
	for _, w := range []float64{1, 1.5} {
		g, err := Operator(q, w, Forward)
		if err != nil {
			t.Fatal(err)
		}
		mean, cov, err := BurnInCrossings(g, nil, sigma, e0, o)
		if err != nil {
			t.Fatal(err)
		}
		ranges[w] = [2]Crossing{mean, cov}
	}
	for _, w := range []float64{1, 1.5} {
		mean, cov := simulateCrossings(q, sigma, w, e0, chains, o, rng)
		own, other := ranges[w], ranges[2.5-w]
		t.Logf("ω = %v: measured %d, %d; expected %+v, %+v", w, mean, cov, own[0], own[1])
		if !own[0].Contains(mean) || !own[1].Contains(cov) || mean == 0 || cov == 0 {
			t.Errorf("ω = %v: crossings %d, %d outside %+v, %+v", w, mean, cov, own[0], own[1])
		}
		if other[0].Contains(mean) || other[1].Contains(cov) {
			t.Errorf("ω = %v: crossings %d, %d inside the other ω's %+v, %+v", w, mean, cov, other[0], other[1])
		}
	}
}

// The floors of Σ = I: sqrt(d/B)/‖e0‖ and sqrt((d² + d)/B)/√d.
func TestErrorFloors(t *testing.T) {
	const d, b = 5, 400
	id := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		id.SetSym(i, i, 1)
	}
	e0 := []float64{3, 4, 0, 0, 0}
	mean, cov := ErrorFloors(id, e0, b)
	if want := math.Sqrt(d/float64(b)) / 5; math.Abs(mean-want) > 1e-15 {
		t.Errorf("mean floor %v, want %v", mean, want)
	}
	if want := math.Sqrt((d*d+d)/float64(b)) / math.Sqrt(d); math.Abs(cov-want) > 1e-15 {
		t.Errorf("covariance floor %v, want %v", cov, want)
	}
}

func TestCrossingContains(t *testing.T) {
	for _, c := range []struct {
		c    Crossing
		k    int
		want bool
	}{
		{Crossing{Exact: 10, Lo: 9, Hi: 12}, 9, true},
		{Crossing{Exact: 10, Lo: 9, Hi: 12}, 8, false},
		{Crossing{Exact: 10, Lo: 9, Hi: 12}, 13, false},
		{Crossing{Exact: 10, Lo: 9, Hi: 12}, 0, false},
		{Crossing{Exact: 10, Lo: 9}, 0, true},
		{Crossing{Exact: 10, Lo: 9}, 500, true},
		{Crossing{}, 0, true},
		{Crossing{}, 5, false},
	} {
		if got := c.c.Contains(c.k); got != c.want {
			t.Errorf("%+v contains %d = %v", c.c, c.k, got)
		}
	}
}

// A curve keeps every point up to CurveEvery, then about 3% steps, and
// leaves out values JSON cannot hold.
func TestCurveRecorder(t *testing.T) {
	var r curveRecorder
	e, sd, z := 0.5, 0.1, 4.0
	r.add(1, e, e, sd, z)
	r.add(2, math.NaN(), e, sd, z)
	r.add(3, 0.4, math.Inf(1), sd, z)
	r.add(4, 0.3, 0.3, math.NaN(), z)
	if len(r.pts) != 1 || r.pts[0] != (BandPoint{Sweeps: 1, Exact: e, Lo: e - z*sd, Hi: e + z*sd}) {
		t.Fatalf("kept %v", r.pts)
	}
	r = curveRecorder{}
	for k := 1; k <= 200; k++ {
		r.add(k, 1, 1, 0, 4)
	}
	for i, q := range r.pts {
		if i < CurveEvery && q.Sweeps != i+1 {
			t.Fatalf("point %d is at sweep %d", i, q.Sweeps)
		}
		if i > CurveEvery && q.Sweeps < int(math.Ceil(1.03*float64(r.pts[i-1].Sweeps))) {
			t.Fatalf("point %d at sweep %d follows %d by less than 3%%", i, q.Sweeps, r.pts[i-1].Sweeps)
		}
	}
}
