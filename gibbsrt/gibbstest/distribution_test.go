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

func (mu mutant) sweep(rng *rand.Rand) sweepFunc {
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
