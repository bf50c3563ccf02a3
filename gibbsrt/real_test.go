package gibbsrt

import (
	"math"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// TestFloat64Twin: the coefficients and the twin are generic; in float64
// they are the float64 formulas with math.FMA, on the stream's float32
// normals widened exactly. (No float64 module exists yet; this keeps the
// generic code honest until one does.)
func TestFloat64Twin(t *testing.T) {
	const d, chains, sweeps = 5, 3, 4
	q := make([][]float64, d)
	mu := make([]float64, d)
	for i := range q {
		q[i] = make([]float64, d)
		q[i][i] = 2 + 0.1*float64(i)
		if i > 0 {
			q[i][i-1], q[i-1][i] = -0.7, -0.7
		}
		mu[i] = 0.3 * float64(i)
	}
	r := NewReference[float64](d)
	if err := r.SetModel(q, mu); err != nil {
		t.Fatal(err)
	}
	co := r.Coefficients()
	for i := 0; i < d; i++ {
		off := mu[i]
		for j := 0; j < d; j++ {
			if j == i {
				continue
			}
			c := -q[i][j] / q[i][i]
			if co.Weight[j*co.Stride+i] != c {
				t.Errorf("weight[%d][%d] = %v, want %v", j, i, co.Weight[j*co.Stride+i], c)
			}
			off -= c * mu[j]
		}
		if co.Offset[i] != off || co.Scale[i] != 1/math.Sqrt(q[i][i]) {
			t.Errorf("coordinate %d: offset %v scale %v, want %v %v", i, co.Offset[i], co.Scale[i], off, 1/math.Sqrt(q[i][i]))
		}
	}
	x := make([]float64, chains*d)
	for k := range x {
		x[k] = float64(k%7) - 3.25
	}
	want := append([]float64(nil), x...)
	st := Stream{Seed: 11, Sweep: 3, Chain: 2}
	for c := 0; c < chains; c++ {
		xc := want[c*d : (c+1)*d]
		for k := 0; k < sweeps; k++ {
			var z []float64
			for g := 0; 4*g < d; g++ {
				for _, v := range stream.Normals4(st.Seed, st.Chain+uint64(c), st.Sweep+uint64(k), g) {
					z = append(z, float64(v))
				}
			}
			for i := 0; i < d; i++ {
				acc := co.Offset[i]
				for n := 1; n < d; n++ {
					j := (i + n) % d
					acc = math.FMA(co.Weight[j*co.Stride+i], xc[j], acc)
				}
				xc[i] = math.FMA(co.Scale[i], z[i], acc)
			}
		}
	}
	if err := r.Sweep(x, sweeps, st); err != nil {
		t.Fatal(err)
	}
	for k := range x {
		if x[k] != want[k] {
			t.Fatalf("element %d: twin %v, float64 formula %v", k, x[k], want[k])
		}
	}
}
