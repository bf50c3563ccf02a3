package gibbsrt

import "math"

// Float is the element type of a sampler's state and tables. Generated
// packages use float32 today; the twin and the coefficients are written for
// both so that float64 modules need no second copy of them.
type Float interface{ float32 | float64 }

// fma returns a*b+c rounded once to T: FMA32 for float32 (CUDA's
// __fmaf_rn), math.FMA for float64 (__fma_rn).
func fma[T Float](a, b, c T) T {
	if _, ok := any(a).(float32); ok {
		return T(FMA32(float32(a), float32(b), float32(c)))
	}
	return T(math.FMA(float64(a), float64(b), float64(c)))
}

// typeName is T's name, for messages.
func typeName[T Float]() string {
	var z T
	if _, ok := any(z).(float32); ok {
		return "float32"
	}
	return "float64"
}

// mul returns a*b rounded once to T (CUDA's __fmul_rn, __dmul_rn).
func mul[T Float](a, b T) T {
	if _, ok := any(a).(float32); ok {
		return T(Mul32(float32(a), float32(b)))
	}
	return T(float64(a) * float64(b))
}
