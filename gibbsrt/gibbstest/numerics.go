package gibbstest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// driftSweeps are the sweep counts at which float32 error is reported.
var driftSweeps = []int{1, 10, 1000}

// maxDriftSD bounds |x_float32 − x_float64| in units of each coordinate's
// marginal standard deviation. The update is a contraction (spectral radius
// of G below 1), so rounding errors, about 2^-24 per step relative to the
// terms, stay bounded by roughly eps·cond(Q) rather than growing with the
// number of sweeps: for cond(Q) ≤ 1e4 that is near 1e-3, well under 1e-2.
const maxDriftSD = 1e-2

// Numerics runs the CPU twin and a float64 Gibbs sampler on the same
// normals and checks that their difference stays a negligible fraction of
// the posterior standard deviation after 1, 10 and 1000 sweeps. (The GPU
// equals the twin bit for bit, so this is also the GPU's float32 error.)
func Numerics[T gibbsrt.Float](t *testing.T, h Harness[T]) {
	d := h.Dim
	rng := rand.New(rand.NewPCG(uint64(d), 4))
	chains, drift := 16, driftSweeps
	if d > largeDim {
		chains, drift = 4, []int{1, 10, 100}
	}
	for _, m := range targetsFor(d, rng) {
		t.Run(m.Name, func(t *testing.T) {
			r := h.reference(t, m)
			x32 := ExactDraws[T](m, chains, rng)
			x64 := make([]float64, len(x32))
			for i, v := range x32 {
				x64[i] = float64(v)
			}
			q := m.Rows()
			st := gibbsrt.Stream{Seed: rng.Uint64()}
			done := 0
			for _, target := range drift {
				n := target - done
				if err := r.Sweep(x32, n, st); err != nil {
					t.Fatal(err)
				}
				sweep64(q, m.Mu, x64, n, st)
				st.Sweep += uint64(n)
				done = target
				worst := 0.0
				for c := 0; c < chains; c++ {
					for i := 0; i < d; i++ {
						e := math.Abs(float64(x32[c*d+i])-x64[c*d+i]) / math.Sqrt(m.Sigma.At(i, i))
						worst = math.Max(worst, e)
					}
				}
				t.Logf("after %4d sweeps: max |float32 − float64| = %.3g marginal SDs", target, worst)
				if !(worst <= maxDriftSD) {
					t.Errorf("after %d sweeps the float32 chain is %.3g SDs from the float64 one (bound %g)", target, worst, maxDriftSD)
				}
			}
		})
	}
}

// sweep64 is the textbook conditional update in float64 with the stream's
// normals.
func sweep64(q [][]float64, mu, x []float64, sweeps int, st gibbsrt.Stream) {
	d := len(q)
	z := make([]float32, gibbsrt.Stride(d))
	for c := 0; c < len(x)/d; c++ {
		xc := x[c*d : (c+1)*d]
		for k := 0; k < sweeps; k++ {
			for g := 0; 4*g < d; g++ {
				n := stream.Normals4(st.Seed, st.Chain+uint64(c), st.Sweep+uint64(k), g)
				copy(z[4*g:], n[:])
			}
			for i := 0; i < d; i++ {
				v := mu[i]
				for j := 0; j < d; j++ {
					if j != i {
						v -= q[i][j] / q[i][i] * (xc[j] - mu[j])
					}
				}
				xc[i] = v + float64(z[i])/math.Sqrt(q[i][i])
			}
		}
	}
}
