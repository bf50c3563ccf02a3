package stream

import "math"

// The CPU twin must round exactly as the GPU does. The kernels use only
// IEEE-754 single-precision operations with round-to-nearest-even
// (__fmaf_rn, __fmul_rn, __fadd_rn, __fsqrt_rn), which the compiler may not
// contract or reorder. These helpers are their Go equivalents. Each result is
// passed through an explicit conversion, which the Go spec guarantees rounds
// and prevents fusion with neighbouring operations (Go may otherwise fuse
// x*y+z on some architectures).

// Mul32 returns a*b rounded once to float32.
func Mul32(a, b float32) float32 { return float32(a * b) }

// Add32 returns a+b rounded once to float32.
func Add32(a, b float32) float32 { return float32(a + b) }

// Sqrt32 returns the correctly rounded float32 square root of a. Computing in
// float64 and rounding again is exact for sqrt: 53 >= 2*24+2 bits.
func Sqrt32(a float32) float32 { return float32(math.Sqrt(float64(a))) }

// FMA32 returns a*b+c rounded once to float32, like CUDA's __fmaf_rn.
//
// a*b is exact in float64 (24+24 bits < 53). The sum p+c is rounded to
// float64 as s, with the rounding error e recovered exactly by TwoSum.
// Rounding s to float32 is then correct unless s is exactly halfway between
// two float32 values and e != 0: in that case the exact sum lies on e's side
// of the midpoint, and the tie must be broken towards it.
func FMA32(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact; the conversion forbids fusion
	s := float64(p + float64(c))
	// The common case, first: rounding to float64 and then to float32 is
	// monotone, and float32's midpoints are float64 values, so the double
	// rounding is correct unless s is itself a midpoint (the 29 bits that
	// float32 drops are 1 and then zeros). Outside float32's normal
	// exponents (subnormal, zero, overflow, NaN) the slow path decides.
	if bits := math.Float64bits(s); (bits>>52&0x7ff)-(1023-126) < 254 && bits&(1<<29-1) != 1<<28 {
		return float32(s)
	}
	// TwoSum (Knuth): e is the exact error of s = p + c.
	bb := float64(s - p)
	e := float64(float64(p-float64(s-bb)) + float64(float64(c)-bb))
	r := float32(s)
	if e == 0 || math.IsInf(float64(r), 0) || math.IsNaN(s) {
		return r
	}
	d := float64(r) - s // exact: r and s are within one float32 ulp
	if d == 0 {
		return r // s is a float32; e cannot move it past a midpoint
	}
	lo, hi := r, r
	if d > 0 {
		lo = math.Nextafter32(r, float32(math.Inf(-1)))
	} else {
		hi = math.Nextafter32(r, float32(math.Inf(1)))
	}
	mid := float64(lo)/2 + float64(hi)/2 // exact in float64
	if s != mid {
		return r
	}
	if e > 0 {
		return hi
	}
	return lo
}
