package stream

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// Random123's known-answer vectors for philox4x32_R(10, ctr, key).
var philoxKAT = []struct {
	ctr  [4]uint32
	key  [2]uint32
	want [4]uint32
}{
	{[4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
	{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
	{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
}

func TestPhiloxKnownAnswers(t *testing.T) {
	for _, v := range philoxKAT {
		if got := Philox4x32(v.ctr, v.key); got != v.want {
			t.Errorf("Philox4x32(%08x, %08x) = %08x, want %08x", v.ctr, v.key, got, v.want)
		}
	}
}

// exactFMA32 rounds a*b+c exactly with math/big, the oracle for FMA32.
func exactFMA32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(200).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(200).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(200).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

func TestFMA32MatchesExactRounding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	check := func(a, b, c float32) {
		t.Helper()
		got, want := FMA32(a, b, c), exactFMA32(a, b, c)
		if math.Float32bits(got) != math.Float32bits(want) && !(got == 0 && want == 0) {
			t.Fatalf("FMA32(%g, %g, %g) = %g (%08x), want %g (%08x)", a, b, c, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	for n := 0; n < 200000; n++ {
		a := float32(rng.NormFloat64())
		b := float32(rng.NormFloat64())
		check(a, b, float32(rng.NormFloat64()))
		// Cancellation cases: c close to -a*b leaves few bits and exposes
		// double rounding.
		check(a, b, -float32(float64(a)*float64(b))*(1+float32(rng.IntN(5)-2)*0x1p-23))
	}
	// Every exponent: uniform bit patterns (finite ones; math/big has no
	// NaN), and products near float32's subnormal and overflow edges, where
	// FMA32 leaves its fast path.
	finite := func() float32 {
		for {
			if f := math.Float32frombits(rng.Uint32()); !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0) {
				return f
			}
		}
	}
	for n := 0; n < 200000; n++ {
		a, b := finite(), finite()
		check(a, b, finite())
		e := rng.IntN(60) - 30
		a, b = float32(math.Ldexp(rng.NormFloat64(), -63+e)), float32(math.Ldexp(rng.NormFloat64(), -63-e))
		check(a, b, float32(math.Ldexp(rng.NormFloat64(), -126-rng.IntN(24))))
		a, b = float32(math.Ldexp(rng.NormFloat64(), 63+e)), float32(math.Ldexp(rng.NormFloat64(), 63-e))
		check(a, b, float32(math.Ldexp(rng.NormFloat64(), 126+rng.IntN(2))))
	}
	// Double-rounding traps: rounding a*b+c to float64 first lands exactly
	// on a float32 midpoint, and ties-to-even would then pick the wrong side.
	// (1+2^-20)(1-2^-20) = 1-2^-40.
	check(1+0x1p-20, 1-0x1p-20, 0x1p24+2)  // 2^24+3-2^-40: round down to 2^24+2
	check(-1-0x1p-20, 1-0x1p-20, 0x1p24+2) // 2^24+1+2^-40: round up to 2^24+2
	// The same among subnormals, whose midpoints float64 holds with other
	// low bits: 2^-140+2^-149+2^-150-2^-196 rounds to float64's
	// 2^-140+2^-149+2^-150, a tie that ties-to-even would round up.
	check(0x1p-75*(1+0x1p-23), 0x1p-75*(1-0x1p-23), 0x1p-140+0x1p-149)
	if got := FMA32(1+0x1p-20, 1-0x1p-20, 0x1p24+2); got != 0x1p24+2 {
		t.Errorf("trap 1: got %v", got)
	}
	if got := FMA32(-1-0x1p-20, 1-0x1p-20, 0x1p24+2); got != 0x1p24+2 {
		t.Errorf("trap 2: got %v", got)
	}
}
