package gibbstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// recorder collects failures instead of failing, to test the checks.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// mutant is a float64 Gibbs sampler with one deliberate fault.
type mutant struct {
	m       Model
	reverse bool    // update coordinates dim-1 … 0: right marginal, wrong lag covariance
	noise   float64 // noise scale factor: 1 is correct
	dropMu  bool    // the old formula that ignores mu_j for j ≠ i
}

func (mu mutant) sweep(rng *rand.Rand) sweepFunc[float32] {
	q := mu.m.Rows()
	d := len(q)
	return func(x []float32, sweeps int, _ gibbsrt.Stream) error {
		for c := 0; c < len(x)/d; c++ {
			xc := x[c*d : (c+1)*d]
			for k := 0; k < sweeps; k++ {
				for n := 0; n < d; n++ {
					i := n
					if mu.reverse {
						i = d - 1 - n
					}
					v := mu.m.Mu[i]
					for j := 0; j < d; j++ {
						if j != i {
							mj := mu.m.Mu[j]
							if mu.dropMu {
								mj = 0
							}
							v -= q[i][j] / q[i][i] * (float64(xc[j]) - mj)
						}
					}
					xc[i] = float32(v + mu.noise*rng.NormFloat64()/math.Sqrt(q[i][i]))
				}
			}
		}
		return nil
	}
}

// TestChecksCatchFaults shows that each check can fail: every faulty
// sampler must be caught, by the check named, and the correct one must pass.
func TestChecksCatchFaults(t *testing.T) {
	const dim, chains = 6, 4000
	for _, c := range []struct {
		name string
		mut  mutant
		want string // substring of some failure; "" means no failure allowed
	}{
		{"correct", mutant{noise: 1}, ""},
		{"reverse order", mutant{noise: 1, reverse: true}, "lag-1"},
		{"noise 25% too large", mutant{noise: 1.25}, "Cov("},
		{"ignores mu_j", mutant{noise: 1, dropMu: true}, "mean of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			m := AR1(dim, 0.9, NonzeroMean(dim))
			if c.name == "reverse order" {
				m = Lattice(dim, 0.5, NonzeroMean(dim))
			}
			c.mut.m = m
			var rec recorder
			CheckDistribution(&rec, m, c.mut.sweep(rng), chains, rng)
			all := strings.Join(rec.errs, "\n")
			switch {
			case c.want == "" && len(rec.errs) > 0:
				t.Fatalf("correct sampler failed:\n%s", all)
			case c.want != "" && !strings.Contains(all, c.want):
				t.Fatalf("fault not caught by a %q check; failures:\n%s", c.want, all)
			}
			t.Logf("%d failures", len(rec.errs))
		})
	}
}

// relaxedMutant is a float64 over-relaxed sampler, x_i ← (1−ω)x_i + ω·m_i +
// noise·sqrt(ω(2−ω))·z/sqrt(Q_ii), with one deliberate fault.
type relaxedMutant struct {
	m        Model
	omega    float64
	noise    func(omega float64) float64 // the factor on z/sqrt(Q_ii)
	dropKeep bool                        // x_i ← ω·m_i + noise: the old value forgotten
}

func (mu relaxedMutant) sweep(rng *rand.Rand) sweepFunc[float32] {
	q := mu.m.Rows()
	d := len(q)
	w := mu.omega
	return func(x []float32, sweeps int, _ gibbsrt.Stream) error {
		for c := 0; c < len(x)/d; c++ {
			xc := x[c*d : (c+1)*d]
			for k := 0; k < sweeps; k++ {
				for i := 0; i < d; i++ {
					m := mu.m.Mu[i]
					for j := 0; j < d; j++ {
						if j != i {
							m -= q[i][j] / q[i][i] * (float64(xc[j]) - mu.m.Mu[j])
						}
					}
					keep := (1 - w) * float64(xc[i])
					if mu.dropKeep {
						keep = (1 - w) * mu.m.Mu[i]
					}
					xc[i] = float32(keep + w*m + mu.noise(w)*rng.NormFloat64()/math.Sqrt(q[i][i]))
				}
			}
		}
		return nil
	}
}

// TestSchemeChecksCatchFaults: the checks of the over-relaxed schemes fail
// for a wrong noise scale (sqrt(|1−ω²|) for sqrt(ω(2−ω))) and for an update
// that forgets the old value, and pass for the correct update; the
// Chebyshev check fails for a wrong backward noise factor.
func TestSchemeChecksCatchFaults(t *testing.T) {
	const dim, chains = 6, 4000
	right := func(w float64) float64 { return math.Sqrt(w * (2 - w)) }
	for _, c := range []struct {
		name string
		mut  relaxedMutant
		want string
	}{
		{"correct ω=1.5", relaxedMutant{omega: 1.5, noise: right}, ""},
		{"correct ω=0.5", relaxedMutant{omega: 0.5, noise: right}, ""},
		{"noise sqrt(|1−ω²|) at ω=1.5", relaxedMutant{omega: 1.5, noise: func(w float64) float64 { return math.Sqrt(math.Abs(1 - w*w)) }}, "Cov("},
		{"forgets the old value at ω=1.5", relaxedMutant{omega: 1.5, noise: right, dropKeep: true}, "lag-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(9, 10))
			m := AR1(dim, 0.9, NonzeroMean(dim))
			c.mut.m = m
			var rec recorder
			CheckSchemeDistribution(&rec, m, c.mut.sweep(rng), chains, rng, SchemeOperator(m, gibbsrt.Forward, c.mut.omega))
			all := strings.Join(rec.errs, "\n")
			switch {
			case c.want == "" && len(rec.errs) > 0:
				t.Fatalf("correct sampler failed:\n%s", all)
			case c.want != "" && !strings.Contains(all, c.want):
				t.Fatalf("fault not caught by a %q check; failures:\n%s", c.want, all)
			}
			t.Logf("%d failures", len(rec.errs))
		})
	}
	t.Run("Chebyshev with the forward noise factor on the backward pass", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 12))
		m := AR1(dim, 0.9, NonzeroMean(dim))
		for _, bad := range []bool{false, true} {
			ref := gibbsrt.NewReference[float32](dim)
			if err := ref.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Symmetric, Omega: 1.2}); err != nil {
				t.Fatal(err)
			}
			if err := ref.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			sweep := ref.SweepChebyshev
			if bad {
				sweep = chebyshevWithForwardNoise(ref, m)
			}
			var rec recorder
			CheckChebyshev(&rec, m, sweep, chains, rng, 1.2)
			if bad != (len(rec.errs) > 0) {
				t.Errorf("wrong backward factor %v: %d failures:\n%s", bad, len(rec.errs), strings.Join(rec.errs, "\n"))
			}
		}
	})
}

// chebyshevWithForwardNoise is a float64 Chebyshev sampler (the schedule
// of ref) whose backward pass uses the forward pass's noise factor.
func chebyshevWithForwardNoise(ref *gibbsrt.Reference[float32], m Model) func(x, prev []float32, first, n int, st gibbsrt.Stream) error {
	q := m.Rows()
	d := len(q)
	rng := rand.New(rand.NewPCG(13, 14))
	return func(x, prev []float32, first, n int, st gibbsrt.Stream) error {
		ch, err := ref.Chebyshev()
		if err != nil {
			return err
		}
		w := ch.Omega
		coef := ch.Coefficients(first, n)
		pass := func(xc []float64, order []int, g float64) {
			for _, i := range order {
				mi := m.Mu[i]
				for j := 0; j < d; j++ {
					if j != i {
						mi -= q[i][j] / q[i][i] * (xc[j] - m.Mu[j])
					}
				}
				xc[i] = (1-w)*xc[i] + w*mi + g*math.Sqrt(w*(2-w)/q[i][i])*rng.NormFloat64()
			}
		}
		fwd, bwd := make([]int, d), make([]int, d)
		for i := range fwd {
			fwd[i], bwd[i] = i, d-1-i
		}
		for c := 0; c < len(x)/d; c++ {
			y := make([]float64, d)
			yp := make([]float64, d)
			for i := range y {
				y[i], yp[i] = float64(x[c*d+i]), float64(prev[c*d+i])
			}
			for _, k := range coef {
				s := append([]float64(nil), y...)
				pass(s, fwd, k[0])
				pass(s, bwd, k[0]) // the fault: k[1] is the backward factor
				for i := range y {
					y[i], yp[i] = k[2]*s[i]+k[3]*y[i]+k[4]*yp[i], y[i]
				}
			}
			for i := range y {
				x[c*d+i], prev[c*d+i] = float32(y[i]), float32(yp[i])
			}
		}
		return nil
	}
}
