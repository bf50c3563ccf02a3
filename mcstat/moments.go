package mcstat

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Moments accumulates the count, mean and comoment matrix of dim-vectors
// in float64. Each batch of rows is reduced in two passes (its mean, then
// its deviations), and batches and other Moments are combined with the
// pairwise update of Chan, Golub and LeVeque, which stays accurate when the
// mean is large against the spread and gives the same result whichever way
// the parts are grouped, up to rounding. Merge combines accumulators from
// other calls, GPUs or machines. The zero value is not usable: make one
// with NewMoments.
type Moments struct {
	dim  int
	n    float64
	mean []float64
	m2   []float64 // dim×dim, Σ (x−mean)(x−mean)ᵀ, row-major
}

// NewMoments returns an empty accumulator for dim-vectors.
func NewMoments(dim int) (*Moments, error) {
	if dim < 1 {
		return nil, fmt.Errorf("mcstat: dim %d; it must be at least 1", dim)
	}
	return &Moments{dim: dim, mean: make([]float64, dim), m2: make([]float64, dim*dim)}, nil
}

// Dim returns the vector length.
func (m *Moments) Dim() int { return m.dim }

// Count returns the number of vectors accumulated.
func (m *Moments) Count() float64 { return m.n }

// AddRows accumulates the rows of x, a row-major [rows][dim] slice such as
// a sampler's state.
func (m *Moments) AddRows(x []float32) error { return addRows(m, x) }

// AddRows64 is AddRows for float64 states.
func (m *Moments) AddRows64(x []float64) error { return addRows(m, x) }

func addRows[T float32 | float64](m *Moments, x []T) error {
	if len(x)%m.dim != 0 {
		return fmt.Errorf("mcstat: %d values are not whole rows of dim %d", len(x), m.dim)
	}
	rows := len(x) / m.dim
	if rows == 0 {
		return nil
	}
	for k, v := range x {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("mcstat: row %d coordinate %d is %v; values must be finite", k/m.dim, k%m.dim, v)
		}
	}
	b := &Moments{dim: m.dim, n: float64(rows), mean: make([]float64, m.dim), m2: make([]float64, m.dim*m.dim)}
	for r := 0; r < rows; r++ {
		for i, v := range x[r*m.dim : (r+1)*m.dim] {
			b.mean[i] += float64(v)
		}
	}
	for i := range b.mean {
		b.mean[i] /= b.n
	}
	dev := make([]float64, m.dim)
	for r := 0; r < rows; r++ {
		for i, v := range x[r*m.dim : (r+1)*m.dim] {
			dev[i] = float64(v) - b.mean[i]
		}
		for i, di := range dev {
			row := b.m2[i*m.dim:]
			for j := i; j < m.dim; j++ {
				row[j] += di * dev[j]
			}
		}
	}
	for i := 0; i < m.dim; i++ {
		for j := 0; j < i; j++ {
			b.m2[i*m.dim+j] = b.m2[j*m.dim+i]
		}
	}
	return m.Merge(b)
}

// Merge adds o's vectors to m (Chan et al.'s pairwise update). o is
// unchanged.
func (m *Moments) Merge(o *Moments) error {
	if o.dim != m.dim {
		return fmt.Errorf("mcstat: merging moments of dim %d into dim %d", o.dim, m.dim)
	}
	if o.n == 0 {
		return nil
	}
	n := m.n + o.n
	fb := o.n / n
	delta := make([]float64, m.dim)
	for i := range delta {
		delta[i] = o.mean[i] - m.mean[i]
	}
	for i := 0; i < m.dim; i++ {
		for j := 0; j < m.dim; j++ {
			m.m2[i*m.dim+j] += o.m2[i*m.dim+j] + delta[i]*delta[j]*m.n*fb
		}
	}
	for i := range m.mean {
		m.mean[i] += delta[i] * fb
	}
	m.n = n
	return nil
}

// Comoments returns the sums of centred products, [dim][dim] row-major:
// with Count and Mean, what FromComoments restores (for moments written
// out by one process and merged by another).
func (m *Moments) Comoments() []float64 { return append([]float64(nil), m.m2...) }

// Mean returns the mean vector.
func (m *Moments) Mean() []float64 { return append([]float64(nil), m.mean...) }

// Covariance returns the sample covariance (denominator n−1); it needs at
// least two vectors.
func (m *Moments) Covariance() (*mat.SymDense, error) {
	if m.n < 2 {
		return nil, fmt.Errorf("mcstat: covariance of %v vectors; it needs at least 2", m.n)
	}
	c := mat.NewSymDense(m.dim, nil)
	for i := 0; i < m.dim; i++ {
		for j := i; j < m.dim; j++ {
			c.SetSym(i, j, m.m2[i*m.dim+j]/(m.n-1))
		}
	}
	return c, nil
}

// FromComoments returns the accumulator of n vectors of dim with the given
// mean and comoment matrix m2 (dim×dim, row-major, Σ (x−mean)(x−mean)ᵀ),
// such as a device reduction produces, ready to Merge.
func FromComoments(dim int, n float64, mean, m2 []float64) (*Moments, error) {
	m, err := NewMoments(dim)
	if err != nil {
		return nil, err
	}
	if len(mean) != dim || len(m2) != dim*dim {
		return nil, fmt.Errorf("mcstat: %d means and %d comoments for dim %d; want %d and %d", len(mean), len(m2), dim, dim, dim*dim)
	}
	if n < 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return nil, fmt.Errorf("mcstat: count %v; it must be finite and at least 0", n)
	}
	m.n = n
	copy(m.mean, mean)
	copy(m.m2, m2)
	return m, nil
}
