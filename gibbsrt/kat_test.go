package gibbsrt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

var updateKAT = flag.Bool("update", false, "rewrite testdata/sweeps.kat from the current twin")

// katPath holds the known answers of the twin's sweeps: one SHA-256 of the
// output bits per case. The GPU suites compare the kernels with the twin
// bit for bit; these pin the twin itself, so that a change to its
// arithmetic that changes a stream fails here, on any machine, until the
// stream version is bumped and the answers are renewed (-update).
var katPath = filepath.Join("testdata", "sweeps.kat")

// katModel is a dense SPD model built from a fixed PCG stream with
// float64 arithmetic in a fixed order: Q = A·Aᵀ/d + I, mu_i = sin(i).
func katModel(d int) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(uint64(d), 7))
	a := make([][]float64, d)
	for i := range a {
		a[i] = make([]float64, d)
		for j := range a[i] {
			a[i][j] = rng.NormFloat64()
		}
	}
	q := make([][]float64, d)
	mu := make([]float64, d)
	for i := range q {
		q[i] = make([]float64, d)
		mu[i] = math.Sin(float64(i))
	}
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < d; k++ {
				s += a[i][k] * a[j][k]
			}
			s /= float64(d)
			if i == j {
				s++
			}
			q[i][j], q[j][i] = s, s
		}
	}
	return q, mu
}

// katHash appends name and the SHA-256 of xs' bits to out.
func katHash[T Float](out map[string]string, name string, xs ...[]T) {
	h := sha256.New()
	var b [8]byte
	for _, x := range xs {
		for _, v := range x {
			binary.LittleEndian.PutUint64(b[:], bitsOf(v))
			h.Write(b[:])
		}
	}
	out[name] = hex.EncodeToString(h.Sum(nil))
}

// katCases runs the twin's calls on katModel(d) and hashes their outputs.
func katCases[T Float](t *testing.T, d int, out map[string]string) {
	q, mu := katModel(d)
	const chains = 5
	st := Stream{Seed: 0x9e3779b97f4a7c15, Sweep: 1<<35 + 11, Chain: 3}
	x0 := make([]T, chains*d)
	for i := range x0 {
		x0[i] = T(math.Cos(float64(i)))
	}
	schemes := []Scheme{
		Plain,
		{Kind: Forward, Omega: 1.5},
		{Kind: Backward, Omega: 0.7},
		{Kind: Symmetric, Omega: 1.2},
		{Kind: Forward, Omega: 1, Form: FormMatrix},
		{Kind: Symmetric, Omega: 1.2, Form: FormMatrix},
	}
	prefix := fmt.Sprintf("%s/d%d", dtypeOf[T](), d)
	for _, sc := range schemes {
		r := NewReference[T](d)
		if err := r.SetScheme(sc); err != nil {
			t.Fatal(err)
		}
		if err := r.SetModel(q, mu); err != nil {
			t.Fatal(err)
		}
		name := prefix + "/" + sc.String()
		x := append([]T(nil), x0...)
		if err := r.Sweep(x, 3, st); err != nil {
			t.Fatal(err)
		}
		katHash(out, name+"/sweep", x)
		if sc.Kind == Symmetric {
			x, prev := append([]T(nil), x0...), append([]T(nil), x0...)
			if err := r.SweepChebyshev(x, prev, 0, 4, st); err != nil {
				t.Fatal(err)
			}
			katHash(out, name+"/chebyshev", x, prev)
		}
		if sc.Form == FormMatrix {
			if err := r.DrawExact(x, st); err != nil {
				t.Fatal(err)
			}
			katHash(out, name+"/exact", x)
		}
	}
}

// TestSweepKnownAnswers pins the twin's streams: sweeps of every scheme
// kind in both forms, Chebyshev iterations and exact draws, at dims on
// both sides of the float4 padding and the warp's 32, in both dtypes.
func TestSweepKnownAnswers(t *testing.T) {
	got := map[string]string{}
	for _, d := range []int{3, 8, 33} {
		katCases[float32](t, d, got)
		katCases[float64](t, d, got)
	}
	if *updateKAT {
		var b strings.Builder
		fmt.Fprintf(&b, "# Known answers of the twin's sweeps, stream version %d: the SHA-256 of a\n# case's output bits, then the case (kat_test.go). Renew with go test ./gibbsrt -run KnownAnswers -update.\n", stream.Version)
		for _, k := range slices.Sorted(maps.Keys(got)) {
			fmt.Fprintf(&b, "%s %s\n", got[k], k)
		}
		if err := os.WriteFile(katPath, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(katPath)
	if err != nil {
		t.Fatalf("%v (run go test ./gibbsrt -run KnownAnswers -update)", err)
	}
	want := map[string]string{}
	for line := range strings.Lines(string(data)) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			sum, name, _ := strings.Cut(line, " ")
			want[name] = sum
		}
	}
	if !strings.Contains(string(data), fmt.Sprintf("stream version %d:", stream.Version)) {
		t.Errorf("%s is not for stream version %d", katPath, stream.Version)
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if w, ok := want[k]; !ok {
			t.Errorf("%s: no known answer", k)
		} else if w != got[k] {
			t.Errorf("%s: the twin's output changed (SHA-256 %s, known %s): a new stream needs a new stream version", k, got[k], w)
		}
	}
	if len(want) != len(got) {
		t.Errorf("%s has %d answers; the test makes %d", katPath, len(want), len(got))
	}
}
