package gibbsrt

import (
	"errors"
	"fmt"
)

// The update order
//
// One sweep updates i = 0, …, dim-1 in turn:
//
//	acc  = Offset[i]
//	acc  = fma(c[i][j], x_j, acc)   for j = i+1, …, dim-1, 0, …, i-1
//	x_i  = fma(Scale[i], z_i, acc)
//
// with every fma rounded once to the element type (float32 today). The cyclic order of j, starting
// after i, is the order in which a kernel that pushes each new x_j into the
// other coordinates' running sums accumulates them; a kernel that pulls the
// sum for x_i uses the same order, so every strategy, and this CPU twin,
// produce bit-identical states.

// ErrClosed is returned by any use of a sampler after Close.
var ErrClosed = errors.New("gibbsrt: sampler is closed")

// CheckSweepArgs validates the arguments shared by every sweep call.
func CheckSweepArgs(dim, lenX, sweeps int, st Stream) (chains int, err error) {
	if sweeps < 0 {
		return 0, fmt.Errorf("gibbsrt: sweeps = %d; the sweep count must be >= 0", sweeps)
	}
	if lenX%dim != 0 {
		return 0, fmt.Errorf("gibbsrt: state has %d elements, not a multiple of dim %d (want chains×%d)", lenX, dim, dim)
	}
	chains = lenX / dim
	return chains, st.check(chains, sweeps)
}

// Reference is the pure-Go twin of the CUDA kernels: the same random stream,
// the same update order and the same rounding to T, so its results equal
// the GPU's bit for bit. It is safe for concurrent use once the model is set,
// provided callers pass disjoint state slices.
//
// The normals are the stream's float32 values (Normals4) converted to T,
// which is exact; a float64 stream drawn from more bits would be a new
// stream version.
type Reference[T Float] struct {
	co *Coefficients[T]
}

// NewReference returns a reference sampler with no model set.
func NewReference[T Float]() *Reference[T] { return &Reference[T]{} }

// SetModel validates Q and mu (see NewCoefficients) and installs them.
func (r *Reference[T]) SetModel(dim int, Q [][]float64, mu []float64) error {
	co, err := NewCoefficients[T](dim, Q, mu)
	if err != nil {
		return err
	}
	r.co = co
	return nil
}

// Coefficients returns the installed tables, or nil.
func (r *Reference[T]) Coefficients() *Coefficients[T] { return r.co }

// Sweep runs sweeps Gibbs sweeps over the row-major [chains][dim] state x.
func (r *Reference[T]) Sweep(x []T, sweeps int, st Stream) error {
	_, err := r.sweep(x, sweeps, st, nil, nil)
	return err
}

// SweepTrace is Sweep that also records states as tr says into out (see
// Trace for the layout), and returns the number of records. out must hold
// them all.
func (r *Reference[T]) SweepTrace(x []T, sweeps int, st Stream, tr Trace, out []T) (int, error) {
	return r.sweep(x, sweeps, st, &tr, out)
}

func (r *Reference[T]) sweep(x []T, sweeps int, st Stream, tr *Trace, out []T) (int, error) {
	if r.co == nil {
		return 0, errors.New("gibbsrt: Sweep called before SetModel")
	}
	chains, err := CheckSweepArgs(r.co.Dim, len(x), sweeps, st)
	if err != nil {
		return 0, err
	}
	d := r.co.Dim
	var sh traceShape
	records := 0
	if tr != nil {
		if sh, err = tr.shape(d, chains); err != nil {
			return 0, err
		}
		records = Records(sh.thin, st.Sweep, sweeps)
		if n := sh.size(records); len(out) < n {
			return 0, fmt.Errorf("gibbsrt: trace output has %d elements; %d records of %d chains × %d coordinates need %d", len(out), records, sh.rows, sh.cols, n)
		}
	}
	z := make([]T, Stride(d))
	for c := 0; c < chains; c++ {
		xc := x[c*d : (c+1)*d]
		rec := 0
		for k := 0; k < sweeps; k++ {
			for g := 0; g*4 < d; g++ {
				n := Normals4(st.Seed, st.Chain+uint64(c), st.Sweep+uint64(k), g)
				for m, v := range n {
					z[4*g+m] = T(v)
				}
			}
			r.co.update(xc, z)
			if tr != nil && (st.Sweep+uint64(k)+1)%uint64(sh.thin) == 0 {
				if sh.traced(c) {
					record(sh, out, rec, c, xc)
				}
				rec++
			}
		}
	}
	return records, nil
}

// SweepNoise runs sweeps with caller-supplied normals instead of the Philox
// stream. noise is laid out [sweeps][dim][chains]: the normal for chain c,
// sweep k, coordinate i is noise[(k*dim+i)*chains+c].
func (r *Reference[T]) SweepNoise(x, noise []T, sweeps int) error {
	if r.co == nil {
		return errors.New("gibbsrt: SweepNoise called before SetModel")
	}
	chains, err := CheckSweepArgs(r.co.Dim, len(x), sweeps, Stream{})
	if err != nil {
		return err
	}
	d := r.co.Dim
	if len(noise) != sweeps*d*chains {
		return fmt.Errorf("gibbsrt: noise has %d elements, want sweeps×dim×chains = %d×%d×%d = %d", len(noise), sweeps, d, chains, sweeps*d*chains)
	}
	z := make([]T, d)
	for c := 0; c < chains; c++ {
		xc := x[c*d : (c+1)*d]
		for k := 0; k < sweeps; k++ {
			for i := range z {
				z[i] = noise[(k*d+i)*chains+c]
			}
			r.co.update(xc, z)
		}
	}
	return nil
}

// update is one sweep of one chain in the documented order.
func (co *Coefficients[T]) update(x, z []T) {
	d, st := co.Dim, co.Stride
	for i := 0; i < d; i++ {
		acc := co.Offset[i]
		for j := i + 1; j < d; j++ {
			acc = fma(co.Weight[j*st+i], x[j], acc)
		}
		for j := 0; j < i; j++ {
			acc = fma(co.Weight[j*st+i], x[j], acc)
		}
		x[i] = fma(co.Scale[i], z[i], acc)
	}
}
