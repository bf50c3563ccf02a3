package mcstat

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func randomRows(rng *rand.Rand, rows, dim int, offset float64) []float32 {
	x := make([]float32, rows*dim)
	for r := 0; r < rows; r++ {
		z := rng.NormFloat64()
		for i := 0; i < dim; i++ {
			// Correlated coordinates around a large common offset.
			x[r*dim+i] = float32(offset + float64(i) + z + 0.5*rng.NormFloat64())
		}
	}
	return x
}

// reference computes mean and covariance with gonum from float64 copies.
func reference(x []float32, dim int) ([]float64, *mat.SymDense) {
	rows := len(x) / dim
	d := mat.NewDense(rows, dim, nil)
	for k, v := range x {
		d.Set(k/dim, k%dim, float64(v))
	}
	mean := make([]float64, dim)
	for i := range mean {
		mean[i] = stat.Mean(mat.Col(nil, i, d), nil)
	}
	c := mat.NewSymDense(dim, nil)
	stat.CovarianceMatrix(c, d, nil)
	return mean, c
}

func requireClose(t *testing.T, what string, got, want, scale, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*scale {
		t.Errorf("%s = %.17g, want %.17g (difference %.3g > %.3g)", what, got, want, math.Abs(got-want), tol*scale)
	}
}

// TestMomentsMergeEqualsOneBatch: however the rows are split into batches
// and accumulators merged, mean and covariance equal gonum's on all rows to
// float64 rounding. The offset of 1e4 (against a spread of about 1) is
// where a one-pass sum of squares would lose all digits of the
// covariance in float32 input and most in float64.
func TestMomentsMergeEqualsOneBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const dim, rows = 5, 3000
	x := randomRows(rng, rows, dim, 1e4)
	wantMean, wantCov := reference(x, dim)

	whole, _ := NewMoments(dim)
	if err := whole.AddRows(x); err != nil {
		t.Fatal(err)
	}
	// Batches of uneven sizes into three accumulators, merged as ((a+b)+c).
	parts := make([]*Moments, 3)
	for i := range parts {
		parts[i], _ = NewMoments(dim)
	}
	for r, k := 0, 0; r < rows; k++ {
		n := min(1+(k*37)%211, rows-r)
		if err := parts[k%3].AddRows(x[r*dim : (r+n)*dim]); err != nil {
			t.Fatal(err)
		}
		r += n
	}
	merged, _ := NewMoments(dim)
	for _, p := range parts {
		if err := merged.Merge(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range []*Moments{whole, merged} {
		if m.Count() != rows {
			t.Fatalf("count %v, want %d", m.Count(), rows)
		}
		cov, err := m.Covariance()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < dim; i++ {
			requireClose(t, "mean", m.Mean()[i], wantMean[i], 1e4, 1e-14)
			for j := 0; j < dim; j++ {
				requireClose(t, "covariance", cov.At(i, j), wantCov.At(i, j), 1, 1e-9)
			}
		}
	}
}

func TestMomentsErrors(t *testing.T) {
	if _, err := NewMoments(0); err == nil {
		t.Error("NewMoments(0) accepted")
	}
	m, _ := NewMoments(3)
	if err := m.AddRows(make([]float32, 4)); err == nil {
		t.Error("AddRows of 4 values at dim 3 accepted")
	}
	if err := m.AddRows([]float32{1, float32(math.Inf(1)), 0}); err == nil {
		t.Error("AddRows of an infinite value accepted")
	}
	if _, err := m.Covariance(); err == nil {
		t.Error("Covariance of no vectors accepted")
	}
	o, _ := NewMoments(2)
	if err := m.Merge(o); err == nil {
		t.Error("Merge of dim 2 into dim 3 accepted")
	}
	if m.Count() != 0 {
		t.Errorf("rejected calls changed the count to %v", m.Count())
	}
}
