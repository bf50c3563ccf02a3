package mixing

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Burn-in curves. Chains started at one point x_0 = mu + e0 have, after k
// sweeps (or Chebyshev iterations), mean error P_k·e0 and covariance error
// Σ − Var(x_k) = P_k·Σ·P_kᵀ, with P_k = G^k for sweeps of operator G and
// the Chebyshev recurrence for accelerated ones. A finite batch of B chains
// measures the sample mean and covariance of B such iterates, so what it
// sees scatters about these curves; BurnInCrossings says where, and within
// which range, the measured errors cross a threshold.

// CurveOptions are what BurnInCrossings computes: the thresholds on the
// relative errors, the sweeps it follows at most, and the batch whose
// expected range it gives.
type CurveOptions struct {
	Chains        int     // B, the chains of the batch
	MeanThreshold float64 // on ‖mean − mu‖ / ‖e0‖
	CovThreshold  float64 // on ‖cov − Σ‖_F / ‖Σ‖_F
	MaxSweeps     int
	Z             float64 // the expected range's half-width, in standard deviations
}

// Crossing is where a closed-form error curve reaches its threshold:
// Exact at B = ∞, Lo..Hi the range expected at B chains. 0 means not
// within CurveOptions.MaxSweeps (Hi = 0 with Lo > 0: the range's end is
// beyond it).
type Crossing struct {
	Exact, Lo, Hi int
	// Curve is the closed form as followed: every sweep up to
	// CurveEvery, then steps of about 3% (which draw as smoothly on a log
	// axis and keep a 40,000-sweep curve to a few hundred points); points
	// with a NaN or infinite value are left out.
	Curve []BandPoint
}

// BandPoint is the closed form after Sweeps sweeps: the noise-free error
// (B = ∞) and the range expected at B chains, the expected error ∓ z sd
// (Lo may be negative: the range reaches zero).
type BandPoint struct {
	Sweeps int     `json:"sweeps"`
	Exact  float64 `json:"exact"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// CurveEvery is the last sweep up to which Crossing.Curve keeps every point.
const CurveEvery = 32

// curveRecorder builds Crossing.Curve.
type curveRecorder struct {
	pts  []BandPoint
	next int
}

func (r *curveRecorder) add(k int, v, e, sd, z float64) {
	if k < r.next || !finite(v, e, sd) {
		return
	}
	r.pts = append(r.pts, BandPoint{Sweeps: k, Exact: v, Lo: e - z*sd, Hi: e + z*sd})
	r.next = k + 1
	if k >= CurveEvery {
		r.next = int(math.Ceil(float64(k) * 1.03))
	}
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Contains reports whether a measured crossing k (0: not reached within
// MaxSweeps) lies in the expected range.
func (c Crossing) Contains(k int) bool {
	switch {
	case k == 0:
		return c.Hi == 0 // the range's end is not within the cap either
	case c.Lo == 0:
		return false
	case k < c.Lo:
		return false
	}
	return c.Hi == 0 || k <= c.Hi
}

// ErrorFloors returns the errors that B = chains exact draws show, relative
// to a start at distance e0 and to Σ: sqrt(tr Σ/B)/‖e0‖ for the mean and
// sqrt(((tr Σ)² + ‖Σ‖²_F)/B)/‖Σ‖_F for the covariance. No burn-in gets a
// batch below them.
func ErrorFloors(sigma mat.Symmetric, e0 []float64, chains int) (mean, cov float64) {
	d := len(e0)
	trS, sF2 := 0.0, 0.0
	for i := 0; i < d; i++ {
		trS += sigma.At(i, i)
		for j := 0; j < d; j++ {
			sF2 += sigma.At(i, j) * sigma.At(i, j)
		}
	}
	b := float64(chains)
	mean = math.Sqrt(trS/b) / mat.Norm(mat.NewVecDense(d, e0), 2)
	cov = math.Sqrt((trS*trS+sF2)/b) / math.Sqrt(sF2)
	return mean, cov
}

// BurnInCrossings follows the mean error P_k·e0 and the covariance error
// P_k·Σ·P_kᵀ of chains started at one point, mu + e0, for k = 1, ...,
// o.MaxSweeps: P_k = G^k for sweeps of operator g, or, with cheb set, the
// Chebyshev recurrence P_{k+1} = α_k(1−τ)P_k + α_kτ·G·P_k + (1−α_k)P_{k−1},
// P_{−1} = P_0 = I, with g a symmetric sweep's operator at cheb.Omega. It
// returns each curve's crossing of its threshold at B = ∞ and the range
// expected at B = o.Chains.
//
// At B the measured errors are those of the sample mean and covariance of
// B Gaussian iterates with variance V = Σ − C, C = P_kΣP_kᵀ:
//
//	E‖mean − mu‖² = ‖m‖² + tr V/B,  Var ≈ 4·mᵀVm/B + 2·tr V²/B²
//	E‖cov − Σ‖²_F = ‖C‖²_F + ((tr V)² + ‖V‖²_F)/B,
//	Var ≈ 8·tr(CVCV)/B + 4·((tr V²)² + tr V⁴)/B²
//
// with mᵀVm ≤ mᵀΣm, tr(CVCV) ≤ λmax(Σ)²‖C‖²_F and tr V⁴ ≤ λmax(Σ)²·tr V²
// (which only widen the range). The sd of an error is that of its square
// over twice the error. Lo is the first k where the expected error − Z·sd
// is at or below the threshold, Hi one past the last k where + Z·sd is
// above it. A curve is followed until 1.5× its first upper crossing (+5),
// or until its noise-free part is below 1e-3 of the threshold.
func BurnInCrossings(g mat.Matrix, cheb *Chebyshev, sigma mat.Symmetric, e0 []float64, o CurveOptions) (mean, cov Crossing, err error) {
	d := len(e0)
	var steps []Step
	tau := 0.0
	if cheb != nil {
		steps, tau = cheb.Steps(o.MaxSweeps), cheb.Tau
	}
	var ch mat.Cholesky
	if !ch.Factorize(sigma) {
		return mean, cov, errors.New("mixing: Σ is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	var eig mat.EigenSym
	if !eig.Factorize(sigma, false) {
		return mean, cov, errors.New("mixing: Σ's eigenvalues did not converge")
	}
	ev := eig.Values(nil)
	lmax2 := ev[len(ev)-1] * ev[len(ev)-1]
	trS, sF2 := 0.0, 0.0
	for i := 0; i < d; i++ {
		trS += sigma.At(i, i)
		for j := 0; j < d; j++ {
			sF2 += sigma.At(i, j) * sigma.At(i, j)
		}
	}
	e0n := mat.Norm(mat.NewVecDense(d, e0), 2)
	sF := math.Sqrt(sF2)
	b := float64(o.Chains)

	// X_k = P_k·[e0 | L]: column 0 the mean error, the rest M_k with
	// C_k = M_k·M_kᵀ.
	x0 := mat.NewDense(d, d+1, nil)
	for i := 0; i < d; i++ {
		x0.Set(i, 0, e0[i])
		for j := 0; j <= i; j++ {
			x0.Set(i, j+1, l.At(i, j))
		}
	}
	cur, prev := mat.DenseCopyOf(x0), mat.DenseCopyOf(x0)
	var next, gx mat.Dense
	// The vectors of the mean alone, once the covariance is done.
	var vcur, vprev *mat.VecDense
	var vnext, vg mat.VecDense
	var c mat.SymDense
	mt := &crossingTracker{thr: o.MeanThreshold, z: o.Z}
	ct := &crossingTracker{thr: o.CovThreshold, z: o.Z}
	sigmaV := mat.NewVecDense(d, nil)
	for k := 1; k <= o.MaxSweeps && !(mt.done && ct.done); k++ {
		var a0, a1, a2 float64 // next = a0·G·cur + a1·cur + a2·prev
		if steps != nil {
			s := steps[k-1]
			a0, a1, a2 = s.Alpha*tau, s.Alpha*(1-tau), 1-s.Alpha
		} else {
			a0 = 1
		}
		var m *mat.VecDense
		trC, cF2, sc := 0.0, 0.0, 0.0
		if !ct.done {
			gx.Mul(g, cur)
			next.Scale(a0, &gx)
			if a1 != 0 {
				next.Add(&next, scaled(a1, cur))
			}
			if a2 != 0 {
				next.Add(&next, scaled(a2, prev))
			}
			prev, cur = cur, mat.DenseCopyOf(&next)
			m = mat.VecDenseCopyOf(cur.ColView(0))
			c.SymOuterK(1, cur.Slice(0, d, 1, d+1))
			for i := 0; i < d; i++ {
				trC += c.At(i, i)
				for j := 0; j < d; j++ {
					v := c.At(i, j)
					cF2 += v * v
					sc += v * sigma.At(i, j)
				}
			}
		} else {
			if vcur == nil {
				vcur, vprev = mat.VecDenseCopyOf(cur.ColView(0)), mat.VecDenseCopyOf(prev.ColView(0))
			}
			vg.MulVec(g, vcur)
			vnext.ScaleVec(a0, &vg)
			if a1 != 0 {
				vnext.AddScaledVec(&vnext, a1, vcur)
			}
			if a2 != 0 {
				vnext.AddScaledVec(&vnext, a2, vprev)
			}
			vprev, vcur = vcur, mat.VecDenseCopyOf(&vnext)
			m = vcur
		}
		trV := trS - trC
		vF2 := math.Max(0, sF2-2*sc+cF2) // ‖V‖²_F = tr V²
		mn2 := mat.Dot(m, m)
		sigmaV.MulVec(sigma, m)
		mSm := mat.Dot(m, sigmaV)
		if !mt.done {
			e2 := mn2 + trV/b
			v2 := 4*mSm/b + 2*vF2/(b*b)
			mt.add(k, math.Sqrt(mn2)/e0n, math.Sqrt(e2)/e0n, math.Sqrt(v2)/(2*math.Sqrt(e2))/e0n)
		}
		if !ct.done {
			e2 := cF2 + (trV*trV+vF2)/b
			v2 := 8*lmax2*cF2/b + 4*(vF2*vF2+lmax2*vF2)/(b*b)
			ct.add(k, math.Sqrt(cF2)/sF, math.Sqrt(e2)/sF, math.Sqrt(v2)/(2*math.Sqrt(e2))/sF)
		}
	}
	return mt.result(), ct.result(), nil
}

func scaled(f float64, a mat.Matrix) *mat.Dense {
	var out mat.Dense
	out.Scale(f, a)
	return &out
}

// crossingTracker follows one error curve for BurnInCrossings.
type crossingTracker struct {
	thr, z     float64
	exact, lo  int
	firstUpper int
	lastAbove  int  // the last k whose upper edge is above thr
	endBelow   bool // the upper edge at the last k followed
	done       bool
	curve      curveRecorder
}

// add records sweep k: the noise-free error v, the expected error e at B
// and its sd.
func (t *crossingTracker) add(k int, v, e, sd float64) {
	t.curve.add(k, v, e, sd, t.z)
	if t.exact == 0 && v <= t.thr {
		t.exact = k
	}
	if t.lo == 0 && e-t.z*sd <= t.thr {
		t.lo = k
	}
	t.endBelow = e+t.z*sd <= t.thr
	if !t.endBelow {
		t.lastAbove = k
	} else if t.firstUpper == 0 {
		t.firstUpper = k
	}
	if (t.firstUpper > 0 && k >= int(math.Ceil(1.5*float64(t.firstUpper)))+5) || v < 1e-3*t.thr {
		t.done = true
	}
}

func (t *crossingTracker) result() Crossing {
	c := Crossing{Exact: t.exact, Lo: t.lo, Curve: t.curve.pts}
	if t.endBelow {
		c.Hi = t.lastAbove + 1
	}
	return c
}
