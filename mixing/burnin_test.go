package mixing

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMeanErrorNorms checks the scalar recurrence on the eigenvalues
// against the Q-norm of the matrices MeanOperators builds: ‖LᵀP_kL⁻ᵀ‖₂
// for Q = LLᵀ, by SVD.
func TestMeanErrorNorms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	q := randomSPD(12, rng)
	const omega = 1.3
	lambdas, err := SSOREigenvalues(q, omega)
	if err != nil {
		t.Fatal(err)
	}
	lmin, lmax, err := SSORSpectrum(q, omega)
	if err != nil || lmin != lambdas[0] || lmax != lambdas[len(lambdas)-1] {
		t.Fatalf("SSORSpectrum = %v, %v, %v; eigenvalues %v", lmin, lmax, err, lambdas)
	}
	c, err := NewChebyshev(omega, 0.99*lmin, 1)
	if err != nil {
		t.Fatal(err)
	}
	gs, err := Operator(q, omega, Symmetric)
	if err != nil {
		t.Fatal(err)
	}
	const n = 12
	norms := c.MeanErrorNorms(lambdas, n)
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		t.Fatal("Q is not positive definite")
	}
	var l mat.TriDense
	ch.LTo(&l)
	for k, p := range c.MeanOperators(gs, n) {
		var a, b mat.Dense
		a.Mul(l.T(), p)                            // LᵀP_k
		if err := b.Solve(&l, a.T()); err != nil { // L⁻¹(LᵀP_k)ᵀ = (LᵀP_kL⁻ᵀ)ᵀ
			t.Fatal(err)
		}
		var svd mat.SVD
		if !svd.Factorize(&b, mat.SVDNone) {
			t.Fatal("SVD did not converge")
		}
		want := svd.Values(nil)[0]
		if math.Abs(norms[k]-want) > 1e-9*want+1e-14 {
			t.Errorf("k = %d: ‖P_k‖_Q = %v from the eigenvalues, %v from MeanOperators", k, norms[k], want)
		}
		if bound := 2 * math.Pow(c.Rate(), float64(k)) / (1 + math.Pow(c.Rate(), float64(2*k))); norms[k] > bound*(1+1e-12) {
			t.Errorf("k = %d: ‖P_k‖_Q = %v above the Chebyshev bound %v", k, norms[k], bound)
		}
	}
}
