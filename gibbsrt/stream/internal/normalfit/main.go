// Command normalfit fits the coefficient table of the stream's normal
// transform (stream version 2) and writes it as gibbsrt/stream/normaltable.go.
//
// The transform (stream.Normal; docs/ARITHMETIC.md, "The random stream")
// maps a word's
// low 31 bits to an upper-tail probability p = q·2⁻³³, q = 2·(w mod 2³¹)+1,
// and returns ±Φ⁻¹(1−p). The octave (leading zeros of q) and the next two
// bits pick a cell; the next 24 bits, x, are the argument of that cell's
// cubic, evaluated by Horner's rule with float32 fmas. This program fits each
// cubic in float64 to the exact inverse CDF at the probabilities its inputs
// stand for, minimizing the largest relative error (Lawson's iteratively
// reweighted least squares), then rounds the coefficients to float32 one at
// a time from the highest degree down, refitting the lower ones after each
// rounding so that they absorb its error.
//
//	go run ./gibbsrt/stream/internal/normalfit            # rewrite the table
//	go run ./gibbsrt/stream/internal/normalfit -check     # fail if it differs
//	go run ./gibbsrt/stream/internal/normalfit -v         # and log each cell's error
//
// The fit is deterministic: pure-Go float64 arithmetic and gonum's QR.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"math"
	"os"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

const (
	out      = "gibbsrt/stream/normaltable.go"
	samples  = 4096 // per cell, where the cell has more inputs than this
	lawson   = 40   // reweighting iterations
	degree   = stream.NormalDegree
	segBits  = stream.NormalSegmentBits
	segments = 1 << segBits
	drop     = stream.NormalDropBits
)

func main() {
	check := flag.Bool("check", false, "compare with the committed table instead of writing it")
	verbose := flag.Bool("v", false, "log each cell's sampled error")
	flag.Parse()
	var tab [stream.NormalCells][degree + 1]float32
	worst := 0.0
	for c := range tab {
		xs := cellInputs(c)
		if len(xs) == 0 {
			continue // no word reaches this cell
		}
		coef, ulps := fitCell(c, xs)
		if *verbose {
			log.Printf("cell %d: %d inputs, %.3f ulp", c, len(xs), ulps)
		}
		tab[c] = coef
		worst = max(worst, ulps)
	}
	src := render(tab, worst)
	if *check {
		old, err := os.ReadFile(out)
		if err != nil {
			log.Fatal(err)
		}
		if !bytes.Equal(old, src) {
			log.Fatalf("%s is not what normalfit writes: run go run ./gibbsrt/stream/internal/normalfit", out)
		}
		return
	}
	if err := os.WriteFile(out, src, 0o644); err != nil {
		log.Fatal(err)
	}
	log.Printf("wrote %s: %d cells, largest sampled error %.3f ulp", out, stream.NormalCells, worst)
}

// cell returns the octave and segment of cell c and whether its argument is
// reflected (the last segment of octave 0 counts x down from p = 1/2, so
// that z near 0 keeps its relative precision).
func cell(c int) (lz, seg int, flip bool) {
	lz, seg = c>>segBits, c&(segments-1)
	return lz, seg, lz == 0 && seg == segments-1
}

// prob returns the mean tail probability of the inputs in cell c whose
// argument is x: the normalized n = q << lz has its top bit set, then the
// segment bits, then x's 24 bits; the drop bits below are dropped. For
// lz < drop they hold q's odd bit at lz and free bits above it, whose mean
// is 2^(drop-1); for lz >= drop they are zero.
func prob(c int, x float64) float64 {
	lz, seg, flip := cell(c)
	if flip {
		x = float64(1<<24-1) - x
	}
	n := float64(uint64(1)<<31+uint64(seg)<<(31-segBits)) + math.Ldexp(x, drop)
	if lz < drop {
		n += 1 << (drop - 1)
	}
	return math.Ldexp(n, -33-lz)
}

// target is the value the transform approximates in cell c at argument x.
func target(c int, x float64) float64 { return -distuv.UnitNormal.Quantile(prob(c, x)) }

// cellInputs returns the arguments x that words reach in cell c: every one
// in the octaves of at most 2¹⁶ words (found with stream.NormalCell, the
// transform's own mapping), otherwise samples points spread like Chebyshev
// nodes over [0, 2²⁴) (the cubic is smooth there).
func cellInputs(c int) []float64 {
	lz, _, _ := cell(c)
	bitsQ := 32 - lz // q = 2w+1 is odd, with bitsQ bits
	if bitsQ <= 17 {
		var xs []float64
		for q := uint32(1)<<(bitsQ-1) | 1; q < 1<<bitsQ && q != 0; q += 2 {
			if cc, x := stream.NormalCell(q >> 1); cc == c {
				xs = append(xs, float64(x))
			}
		}
		return dedup(xs)
	}
	xs := make([]float64, samples)
	for k := range xs {
		t := 0.5 - 0.5*math.Cos(math.Pi*(float64(k)+0.5)/samples)
		xs[k] = math.Floor(t * (1<<24 - 1))
	}
	return dedup(xs)
}

func dedup(xs []float64) []float64 {
	out := xs[:0]
	seen := map[float64]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// fitCell fits cell c's cubic on xs and returns its float32 coefficients
// (c0..c3, in the argument x itself) and the largest error in float32 ulps
// of its float32 Horner evaluation at xs.
func fitCell(c int, xs []float64) ([degree + 1]float32, float64) {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = target(c, x)
	}
	// Fit in t = x·2⁻²⁴ for conditioning; c_k = a_k·2^(-24k) exactly.
	ts := make([]float64, len(xs))
	for i, x := range xs {
		ts[i] = math.Ldexp(x, -24)
	}
	var coef [degree + 1]float32
	fixed := make([]float64, len(xs)) // the rounded terms so far
	for top := degree; top >= 0; top-- {
		n := min(top+1, len(xs))
		resid := make([]float64, len(xs))
		for i := range xs {
			resid[i] = f[i] - fixed[i]
		}
		a := minimax(ts, resid, f, n)
		if top >= n {
			a = append(a, make([]float64, top+1-n)...)
		}
		ck := float32(math.Ldexp(a[top], -24*top))
		coef[top] = ck
		for i, x := range xs {
			fixed[i] += float64(ck) * math.Pow(x, float64(top))
		}
	}
	worst := 0.0
	for i, x := range xs {
		worst = max(worst, ulpErr(horner(coef, float32(x)), f[i]))
	}
	return coef, worst
}

// minimax returns the n coefficients (in t) of the polynomial that
// minimizes the largest |p(t) - r|/|f|, by Lawson's iteration.
func minimax(ts, r, f []float64, n int) []float64 {
	m := len(ts)
	w := make([]float64, m)
	for i := range w {
		w[i] = 1 / float64(m)
	}
	var a []float64
	for it := 0; it < lawson; it++ {
		A := mat.NewDense(m, n, nil)
		b := mat.NewVecDense(m, nil)
		for i, t := range ts {
			s := math.Sqrt(w[i]) / math.Max(math.Abs(f[i]), 1e-30)
			p := s
			for k := 0; k < n; k++ {
				A.Set(i, k, p)
				p *= t
			}
			b.SetVec(i, s*r[i])
		}
		var qr mat.QR
		qr.Factorize(A)
		var sol mat.VecDense
		if err := qr.SolveVecTo(&sol, false, b); err != nil {
			log.Fatal(err)
		}
		a = make([]float64, n)
		for k := range a {
			a[k] = sol.AtVec(k)
		}
		if m <= 4*n {
			break // few inputs: least squares is as good, and Lawson's weights can vanish
		}
		sum := 0.0
		for i, t := range ts {
			e := math.Abs(poly(a, t)-r[i]) / math.Max(math.Abs(f[i]), 1e-30)
			w[i] = max(w[i]*e, 1e-300)
			sum += w[i]
		}
		if sum == 0 {
			break
		}
		for i := range w {
			w[i] /= sum
		}
	}
	return a
}

func poly(a []float64, t float64) float64 {
	s := 0.0
	for k := len(a) - 1; k >= 0; k-- {
		s = s*t + a[k]
	}
	return s
}

// horner is the transform's float32 evaluation, each fma rounded once.
func horner(c [degree + 1]float32, x float32) float32 {
	y := c[degree]
	for k := degree - 1; k >= 0; k-- {
		y = float32(math.FMA(float64(y), float64(x), float64(c[k]))) // exact: see fma32
	}
	return y
}

// ulpErr is |y - f| in units of the float32 ulp at f.
func ulpErr(y float32, f float64) float64 {
	_, e := math.Frexp(f)
	return math.Abs(float64(y)-f) / math.Ldexp(1, e-24)
}

func render(tab [stream.NormalCells][degree + 1]float32, worst float64) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by go run ./gibbsrt/stream/internal/normalfit. DO NOT EDIT.\n\n")
	fmt.Fprintf(&b, "package stream\n\n")
	fmt.Fprintf(&b, "// NormalTable holds the float32 bit patterns of the normal transform's\n")
	fmt.Fprintf(&b, "// cubics, c0..c3 for each cell (octave·%d + segment). The largest error\n", segments)
	fmt.Fprintf(&b, "// the fit saw at its sample points is %.3f float32 ulp; the exhaustive\n", worst)
	fmt.Fprintf(&b, "// test (TestNormalAccuracy) measures every input.\n")
	fmt.Fprintf(&b, "var NormalTable = [NormalCells][NormalDegree + 1]uint32{\n")
	for c, row := range tab {
		fmt.Fprintf(&b, "\t{")
		for k, v := range row {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "0x%08X", math.Float32bits(v))
		}
		lz, seg, _ := cell(c)
		fmt.Fprintf(&b, "}, // octave %d, segment %d\n", lz, seg)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	return src
}
