package gibbsrt

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// decodeModel turns fuzz bytes into a model of dimension 1..6. Entries are
// int16/64, with two byte values reserved for NaN and ±Inf; when sym is
// set the lower triangle mirrors the upper, so the positive-definiteness
// check is reached often.
func decodeModel(dimByte uint8, sym bool, data []byte) ([][]float64, []float64) {
	d := 1 + int(dimByte%6)
	next := func() float64 {
		if len(data) < 2 {
			return 1
		}
		v := binary.LittleEndian.Uint16(data)
		data = data[2:]
		switch v {
		case 0x7ff8:
			return math.NaN()
		case 0x7ff0:
			return math.Inf(1)
		case 0xfff0:
			return math.Inf(-1)
		}
		return float64(int16(v)) / 64
	}
	q := make([][]float64, d)
	for i := range q {
		q[i] = make([]float64, d)
		for j := range q[i] {
			if sym && j < i {
				q[i][j] = q[j][i]
			} else {
				q[i][j] = next()
			}
		}
	}
	mu := make([]float64, d)
	for i := range mu {
		mu[i] = next()
	}
	return q, mu
}

// FuzzSetModel checks that validation never panics, rejects with a
// *ModelError, and accepts only models that really are valid: finite,
// symmetric within tolerance, positive diagonal, positive definite, with
// finite float32 tables.
func FuzzSetModel(f *testing.F) {
	f.Add(uint8(1), true, []byte{128, 0, 32, 0, 32, 0, 128, 0})
	f.Add(uint8(2), false, []byte{0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, dimByte uint8, sym bool, data []byte) {
		q, mu := decodeModel(dimByte, sym, data)
		d := len(q)
		co, err := NewCoefficients[float32](d, q, mu)
		if err != nil {
			var me *ModelError
			if !errors.As(err, &me) {
				t.Fatalf("rejection %v is a %T, not a *ModelError", err, err)
			}
			return
		}
		sq := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			if !(q[i][i] > 0) {
				t.Fatalf("accepted Q[%d][%d] = %v", i, i, q[i][i])
			}
			for j := 0; j < d; j++ {
				if math.IsNaN(q[i][j]) || math.IsInf(q[i][j], 0) {
					t.Fatalf("accepted non-finite Q[%d][%d]", i, j)
				}
				if math.Abs(q[i][j]-q[j][i]) > SymmetryTolerance*math.Sqrt(q[i][i]*q[j][j]) {
					t.Fatalf("accepted asymmetric Q at (%d, %d)", i, j)
				}
				sq.SetSym(i, j, 0.5*(q[i][j]+q[j][i]))
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sq) {
			t.Fatal("accepted a Q that is not positive definite")
		}
		for _, tab := range [][]float32{co.Weight, co.Offset, co.Scale} {
			for k, v := range tab {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Fatalf("accepted model has non-finite table entry %d: %v", k, v)
				}
			}
		}
	})
}

// TestReferenceConcurrent runs one Reference from several goroutines on
// disjoint states, as documented; run it with -race. Each result must equal
// a sequential run.
func TestReferenceConcurrent(t *testing.T) {
	const d, chains, workers = 6, 8, 8
	r := traceModel(t, d)
	want := make([]float32, chains*d)
	if err := r.Sweep(want, 5, Stream{Seed: 9}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([][]float32, workers)
	for w := range got {
		got[w] = make([]float32, chains*d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Sweep(got[w], 5, Stream{Seed: 9}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for w := range got {
		for i := range want {
			if got[w][i] != want[i] {
				t.Fatalf("worker %d: element %d = %v, want %v", w, i, got[w][i], want[i])
			}
		}
	}
}

// TestTablesTheDtypeCannotHold: SetModel refuses a model whose tables
// overflow, underflow to zero or lose precision in the dtype, naming the
// table and the entry; the same model is accepted in float64 where it
// fits.
func TestTablesTheDtypeCannotHold(t *testing.T) {
	diag := func(v float64, off float64) [][]float64 {
		q := [][]float64{{v, off * v, 0}, {off * v, v, 0}, {0, 0, v}}
		return q
	}
	zero := []float64{0, 0, 0}
	for _, c := range []struct {
		name string
		q    [][]float64
		mu   []float64
		want string // in the float32 error; "" accepted
	}{
		{"Q = 1e-90·I: scales overflow", diag(1e-90, 0), zero, "scale[0] = sqrt(ω(2−ω))/sqrt(Q[0][0]) = 1e+45 overflows float32"},
		{"Q = 1e92·I: scales underflow", diag(1e92, 0), zero, "scale[0] = sqrt(ω(2−ω))/sqrt(Q[0][0]) = 1e-46 underflows to zero in float32"},
		{"Q = 1e78·I: scales subnormal", diag(1e78, 0), zero, "scale[0] = sqrt(ω(2−ω))/sqrt(Q[0][0]) = 1e-39 is below float32's smallest normal number"},
		{"a weight that underflows", diag(1, 1e-50), zero, "weight[1][0] = ω·(−Q[0][1]/Q[0][0]) = -1e-50 underflows to zero in float32"},
		{"an offset that overflows", diag(1, 0), []float64{1e39, 0, 0}, "offset[0], the conditional mean's constant term of coordinate 0, = 1e+39 overflows float32"},
		{"an ordinary model", diag(2, 0.3), []float64{1, 2, 3}, ""},
	} {
		r := NewReference[float32](3)
		err := r.SetModel(c.q, c.mu)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v; want one containing %q", c.name, err, c.want)
		}
		var me *ModelError
		if c.want != "" && !errors.As(err, &me) {
			t.Errorf("%s: %v is not a *ModelError", c.name, err)
		}
		if err := NewReference[float64](3).SetModel(c.q, c.mu); err != nil {
			t.Errorf("%s in float64: %v", c.name, err)
		}
	}
}
