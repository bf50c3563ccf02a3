package mcstat

import (
	"gonum.org/v1/gonum/dsp/fourier"
)

// autocovariance returns acov[t] = (1/n) Σ_{i<n-t} (y_i − ȳ)(y_{i+t} − ȳ)
// for t = 0..n-1, the biased estimator that Geyer's sequence uses, by FFT
// of y zero-padded to at least 2n (so the circular products are linear).
func autocovariance(y []float64) []float64 {
	n := len(y)
	mean := 0.0
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	buf := make([]float64, size)
	for i, v := range y {
		buf[i] = v - mean
	}
	fft := fourier.NewFFT(size)
	c := fft.Coefficients(nil, buf)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	ac := fft.Sequence(buf, c) // unnormalized: size × the circular autocorrelation sums
	out := make([]float64, n)
	for t := range out {
		out[t] = ac[t] / float64(size) / float64(n)
	}
	return out
}
