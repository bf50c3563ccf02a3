// Package gibbstest holds the test suites that every generated package runs
// against its own samplers: the CPU twin's properties, model validation,
// distribution tests against closed forms, and GPU-versus-CPU equality.
// Generated *_test.go files call these with a Harness[T].
package gibbstest

import (
	"runtime"
	"sync"

	"github.com/gibbsgen/gibbsgen/gibbsrt"

	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Model is a target distribution N(Mu, Q⁻¹) with its covariance.
type Model struct {
	Name  string
	Q     *mat.SymDense
	Mu    []float64
	Sigma *mat.SymDense // Q⁻¹
}

// Rows returns Q as [][]float64, the form SetModel takes.
func (m Model) Rows() [][]float64 {
	n := m.Q.SymmetricDim()
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, n)
		for j := range out[i] {
			out[i][j] = m.Q.At(i, j)
		}
	}
	return out
}

func newModel(name string, q *mat.SymDense, mu []float64) Model {
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		panic(fmt.Sprintf("gibbstest: model %s is not positive definite", name))
	}
	sigma := mat.NewSymDense(q.SymmetricDim(), nil)
	if err := ch.InverseTo(sigma); err != nil {
		panic(err)
	}
	return Model{Name: name, Q: q, Mu: mu, Sigma: sigma}
}

// AR1 is a stationary AR(1) process x_i = ρ x_{i-1} + e_i: tridiagonal Q
// with covariance ρ^|i-j|/(1-ρ²).
func AR1(dim int, rho float64, mu []float64) Model {
	q := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		d := 1 + rho*rho
		if i == 0 || i == dim-1 {
			d = 1
		}
		if dim == 1 {
			d = 1 - rho*rho
		}
		q.SetSym(i, i, d)
		if i+1 < dim {
			q.SetSym(i, i+1, -rho)
		}
	}
	return newModel(fmt.Sprintf("AR1(rho=%g)", rho), q, mu)
}

// AR1Covariance is the closed form ρ^|i-j|/(1-ρ²).
func AR1Covariance(i, j int, rho float64) float64 {
	return math.Pow(rho, math.Abs(float64(i-j))) / (1 - rho*rho)
}

// Lattice is a Gaussian Markov random field on a 2-D grid of dim nodes
// (rows of ⌈√dim⌉ nodes, the last one possibly short): Q = κI + the graph
// Laplacian of the 4-neighbour grid.
func Lattice(dim int, kappa float64, mu []float64) Model {
	cols := int(math.Ceil(math.Sqrt(float64(dim))))
	q := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		q.SetSym(i, i, q.At(i, i)+kappa)
		r, c := i/cols, i%cols
		for _, nb := range [][2]int{{r, c + 1}, {r + 1, c}} {
			j := nb[0]*cols + nb[1]
			if nb[1] >= cols || j >= dim {
				continue
			}
			q.SetSym(i, j, -1)
			q.SetSym(i, i, q.At(i, i)+1)
			q.SetSym(j, j, q.At(j, j)+1)
		}
	}
	return newModel(fmt.Sprintf("Lattice(%d cols, kappa=%g)", cols, kappa), q, mu)
}

// RandomSPD is Q = U diag(λ) Uᵀ with U a random orthogonal matrix and λ
// log-spaced from 1 to cond, so Q's condition number is cond.
func RandomSPD(dim int, cond float64, rng *rand.Rand, mu []float64) Model {
	g := mat.NewDense(dim, dim, nil)
	for i := 0; i < dim; i++ {
		for j := 0; j < dim; j++ {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(g)
	var u mat.Dense
	qr.QTo(&u)
	lam := make([]float64, dim)
	for i := range lam {
		t := 0.0
		if dim > 1 {
			t = float64(i) / float64(dim-1)
		}
		lam[i] = math.Pow(cond, t)
	}
	// U·diag(λ), column by column: mat's Mul takes a DiagDense through
	// At, a dim³ loop that was most of the suites' setup at dim 1024.
	var ul, full mat.Dense
	ul.CloneFrom(&u)
	for j, l := range lam {
		for i := 0; i < dim; i++ {
			ul.Set(i, j, ul.At(i, j)*l)
		}
	}
	full.Mul(&ul, u.T())
	q := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			q.SetSym(i, j, 0.5*(full.At(i, j)+full.At(j, i)))
		}
	}
	return newModel(fmt.Sprintf("RandomSPD(cond=%g)", cond), q, mu)
}

// SeedRecipe is the seed's dense test model, Q = L·Lᵀ + 2I with the
// entries of L drawn from 0.1·N(0, 1), and mean zero.
func SeedRecipe(dim int, rng *rand.Rand) Model {
	l := mat.NewDense(dim, dim, nil)
	for i := 0; i < dim; i++ {
		for j := 0; j < dim; j++ {
			l.Set(i, j, 0.1*rng.NormFloat64())
		}
	}
	var llt mat.Dense
	llt.Mul(l, l.T())
	q := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			v := 0.5 * (llt.At(i, j) + llt.At(j, i))
			if i == j {
				v += 2
			}
			q.SetSym(i, j, v)
		}
	}
	return newModel("SeedRecipe(L·Lᵀ+2I)", q, make([]float64, dim))
}

// RandomSparse is a diagonally dominant Q with each off-diagonal pair
// nonzero with probability density, with weights of both signs: most
// weights are exact zeros, which the specialized kernel drops.
func RandomSparse(dim int, density float64, rng *rand.Rand, mu []float64) Model {
	q := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		q.SetSym(i, i, 1+rng.Float64())
	}
	for i := 0; i < dim; i++ {
		for j := i + 1; j < dim; j++ {
			if rng.Float64() < density {
				v := rng.Float64() - 0.5
				q.SetSym(i, j, v)
				q.SetSym(i, i, q.At(i, i)+math.Abs(v))
				q.SetSym(j, j, q.At(j, j)+math.Abs(v))
			}
		}
	}
	return newModel(fmt.Sprintf("RandomSparse(density=%g)", density), q, mu)
}

// NonzeroMean is a deterministic mean vector with entries of both signs and
// varied magnitudes.
func NonzeroMean(dim int) []float64 {
	mu := make([]float64, dim)
	for i := range mu {
		mu[i] = 3*math.Sin(1.7*float64(i)+0.3) + 0.25*float64(i%5)
	}
	return mu
}

// Targets are the distribution-test models for dim.
func Targets(dim int, rng *rand.Rand) []Model {
	mu := NonzeroMean(dim)
	return []Model{
		AR1(dim, 0.8, make([]float64, dim)),
		AR1(dim, 0.95, mu),
		Lattice(dim, 0.5, mu),
		RandomSPD(dim, 2, rng, mu),
		RandomSPD(dim, 100, rng, mu),
		RandomSPD(dim, 1e4, rng, mu),
	}
}

// ExactDraws returns chains independent draws from N(mu, Σ) as a row-major
// state, using the Cholesky factor of Σ. It draws in chunks of 4096 chains
// on every CPU, each chunk from a generator seeded by rng in order, so the
// draws depend on rng alone.
func ExactDraws[T gibbsrt.Float](m Model, chains int, rng *rand.Rand) []T {
	n := m.Q.SymmetricDim()
	var ch mat.Cholesky
	if !ch.Factorize(m.Sigma) {
		panic("gibbstest: Σ is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	x := make([]T, chains*n)
	const chunk = 4096
	seeds := make([]uint64, (chains+chunk-1)/chunk)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	next := make(chan int, len(seeds))
	for i := range seeds {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(seeds)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := make([]float64, n)
			for i := range next {
				r := rand.New(rand.NewPCG(seeds[i], uint64(i)))
				for c := i * chunk; c < min(chains, (i+1)*chunk); c++ {
					for k := range g {
						g[k] = r.NormFloat64()
					}
					for a := 0; a < n; a++ {
						v := m.Mu[a]
						for b := 0; b <= a; b++ {
							v += l.At(a, b) * g[b]
						}
						x[c*n+a] = T(v)
					}
				}
			}
		}()
	}
	wg.Wait()
	return x
}

// SweepMatrix returns G = -(D+L)⁻¹Lᵀ for Q = L + D + Lᵀ: one sweep is
// x' = mu + G(x - mu) + ε, so Cov(x_{t+k}, x_t) = G^k Σ.
func SweepMatrix(q *mat.SymDense) *mat.Dense {
	n := q.SymmetricDim()
	dl := mat.NewTriDense(n, mat.Lower, nil)
	up := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			dl.SetTri(i, j, q.At(i, j))
		}
		for j := i + 1; j < n; j++ {
			up.Set(i, j, -q.At(i, j))
		}
	}
	var g mat.Dense
	if err := g.Solve(dl, up); err != nil {
		panic(err)
	}
	return &g
}

// RandomState returns n values scale·z, each z a standard normal drawn from
// rng in turn: a start state, or noise, for the tests.
func RandomState[T gibbsrt.Float](rng *rand.Rand, n int, scale float64) []T {
	x := make([]T, n)
	for i := range x {
		x[i] = T(scale * rng.NormFloat64())
	}
	return x
}
