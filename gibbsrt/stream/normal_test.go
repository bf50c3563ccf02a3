package stream

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// normalWant is the value Normal(w) approximates: Φ⁻¹(1 − p̄) with w's
// sign, where p̄ is the mean tail probability of the words that share w's
// cell and argument (docs/ARITHMETIC.md, "The random stream"). Below octave 3 the
// dropped bits of n = q << lz hold q's odd bit and free bits above it; their
// mean is 4.
func normalWant(w uint32) float64 {
	q := w<<1 | 1
	lz := bits.LeadingZeros32(q)
	n := q << lz
	nbar := float64(n)
	if lz < 3 {
		nbar = float64(n&^7 | 4)
	}
	z := -distuv.UnitNormal.Quantile(math.Ldexp(nbar, -33-lz))
	if w>>31 != 0 {
		z = -z
	}
	return z
}

// ulps is |got − want| in float32 ulps at want.
func ulps(got float32, want float64) float64 {
	_, e := math.Frexp(want)
	return math.Abs(float64(got)-want) / math.Ldexp(1, e-24)
}

// maxNormalUlps bounds the transform's error. The exhaustive run over all
// 2³¹ magnitudes (GIBBSGEN_EXHAUSTIVE=1) measured 1.556 ulp, at word
// 0x7f340344.
const maxNormalUlps = 1.56

// normalEdges returns the words at the ends of every cell: the first and
// last 64 odd q of each octave's segments (every q of the small octaves),
// with both signs.
func normalEdges() []uint32 {
	var qs []uint64
	for b := 0; b < 32; b++ { // q in [2^b, 2^(b+1))
		if b < 11 {
			for q := uint64(1) << b; q < 1<<(b+1); q++ {
				qs = append(qs, q)
			}
			continue
		}
		for seg := range uint64(16) {
			lo := uint64(1)<<b + seg<<(b-4)
			hi := lo + 1<<(b-4)
			for d := range uint64(128) {
				qs = append(qs, lo+d, hi-1-d)
			}
		}
	}
	var ws []uint32
	for _, q := range qs {
		if q&1 == 1 {
			ws = append(ws, uint32(q>>1), uint32(q>>1)|1<<31)
		}
	}
	return ws
}

func checkNormals(t *testing.T, ws []uint32) (worst float64, at uint32) {
	t.Helper()
	for _, w := range ws {
		got := Normal(w)
		if e := ulps(got, normalWant(w)); e > worst {
			worst, at = e, w
		}
		if neg := Normal(w ^ 1<<31); neg != -got {
			t.Fatalf("Normal(%#08x) = %v but Normal(%#08x) = %v: not symmetric", w, got, w^1<<31, neg)
		}
	}
	return worst, at
}

// TestNormalAccuracy checks the transform against the float64 inverse CDF
// at the ends of every cell and at a million random words; with
// GIBBSGEN_EXHAUSTIVE=1 at every word (a minute on two cores).
func TestNormalAccuracy(t *testing.T) {
	ws := normalEdges()
	rng := rand.New(rand.NewPCG(7, 11))
	for range 1 << 20 {
		ws = append(ws, rng.Uint32())
	}
	worst, at := checkNormals(t, ws)
	if os.Getenv("GIBBSGEN_EXHAUSTIVE") != "" {
		worst, at = exhaustiveNormalError()
	}
	t.Logf("largest error %.3f ulp, at word %#08x (Normal = %v)", worst, at, Normal(at))
	if worst > maxNormalUlps {
		t.Errorf("Normal(%#08x) = %v is %.3f ulp from %v; the bound is %v", at, Normal(at), worst, normalWant(at), maxNormalUlps)
	}
}

// exhaustiveNormalError returns the largest error over all 2³¹ magnitudes
// (the sign is exact by symmetry, checked above).
func exhaustiveNormalError() (float64, uint32) {
	procs := runtime.GOMAXPROCS(0)
	type res struct {
		e float64
		w uint32
	}
	out := make([]res, procs)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := uint32(p); w < 1<<31; w += uint32(procs) {
				if e := ulps(Normal(w), normalWant(w)); e > out[p].e {
					out[p] = res{e, w}
				}
			}
		}()
	}
	wg.Wait()
	best := out[0]
	for _, r := range out[1:] {
		if r.e > best.e || r.e == best.e && r.w < best.w {
			best = r
		}
	}
	return best.e, best.w
}

// normalKAT pins the transform (stream version 2): word → float32 bits.
// Each value is also within maxNormalUlps of the inverse CDF (checked
// below), so the pins record this table, not an arbitrary one.
var normalKAT = []struct {
	w, bits uint32
}{
	{0x00000000, 0x40CAD08D}, // 6.337958, the largest |z|: q = 1
	{0x80000000, 0xC0CAD08D}, // -6.337958
	{0x00000001, 0x40C55364}, // 6.1664295
	{0x00000003, 0x40C0FDAF}, // 6.030967: octave 29 shares its bits with the segment
	{0x0000FFFF, 0x40856D20}, // 4.169571
	{0x3FFFFFFF, 0x3F2CAB5C}, // 0.67448974: the last word of octave 1
	{0x40000000, 0x3F2CAB5C}, // 0.67448974: the first of octave 0
	{0x7BFFFFFF, 0x3D20771B}, // 0.039176088: below the reflected segment
	{0x7C000000, 0x3D20771A}, // 0.039176084: its first word
	{0x7FFFFFFF, 0x30A06C99}, // 1.1672397e-09, the smallest |z|
	{0xFFFFFFFF, 0xB0A06C99}, // -1.1672397e-09
	{0x12345678, 0x3FBBD932}, // 1.4675658
	{0x9E3779B9, 0xBF97A9E5}, // -1.1848723
	{0xDEADBEEF, 0xBEAA20B3}, // -0.33228073
	{0x6627E8D5, 0x3E82FA50}, // 0.25581598: Philox's first known answer, word 0
}

func TestNormalKnownAnswers(t *testing.T) {
	if len(normalKAT) == 0 {
		t.Fatal("no known answers")
	}
	for _, k := range normalKAT {
		got := Normal(k.w)
		if math.Float32bits(got) != k.bits {
			t.Errorf("Normal(%#08x) = %#08x (%v), want %#08x (%v)", k.w, math.Float32bits(got), got, k.bits, math.Float32frombits(k.bits))
		}
		if e := ulps(math.Float32frombits(k.bits), normalWant(k.w)); e > maxNormalUlps {
			t.Errorf("known answer for %#08x is %.3f ulp from the inverse CDF", k.w, e)
		}
	}
}
