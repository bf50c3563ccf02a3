package gibbsrt

import (
	"fmt"
	"math"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Float is the element type of a sampler's state and tables: a package's
// dtype (gibbsgen --dtype).
type Float interface{ float32 | float64 }

// fma returns a*b+c rounded once to T: FMA32 for float32 (CUDA's
// __fmaf_rn), math.FMA for float64 (__fma_rn).
func fma[T Float](a, b, c T) T {
	if _, ok := any(a).(float32); ok {
		return T(stream.FMA32(float32(a), float32(b), float32(c)))
	}
	return T(math.FMA(float64(a), float64(b), float64(c)))
}

// fmaColumn sets acc[i] = fma(col[i], v, acc[i]) for each i < len(acc).
// It picks T's fma once, not per element.
func fmaColumn[T Float](acc, col []T, v T) {
	col = col[:len(acc)]
	switch a := any(acc).(type) {
	case []float32:
		c, w := any(col).([]float32), any(v).(float32)
		for i := range a {
			a[i] = stream.FMA32(c[i], w, a[i])
		}
	case []float64:
		c, w := any(col).([]float64), any(v).(float64)
		for i := range a {
			a[i] = math.FMA(c[i], w, a[i])
		}
	}
}

// fmaDot returns acc after acc = fma(w[j], x[j], acc) for j = 0, 1, …,
// len(w)−1, in that order. It picks T's fma once, not per element.
func fmaDot[T Float](acc T, w, x []T) T {
	x = x[:len(w)]
	if a, ok := any(acc).(float32); ok {
		w, x := any(w).([]float32), any(x).([]float32)
		for j := range w {
			a = stream.FMA32(w[j], x[j], a)
		}
		return T(a)
	}
	a, w64, x64 := float64(acc), any(w).([]float64), any(x).([]float64)
	for j := range w64 {
		a = math.FMA(w64[j], x64[j], a)
	}
	return T(a)
}

// dtypeOf is T's kernels.DType.
func dtypeOf[T Float]() kernels.DType {
	if elemSize[T]() == 4 {
		return kernels.Float32
	}
	return kernels.Float64
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
		return T(stream.Mul32(float32(a), float32(b)))
	}
	return T(float64(a) * float64(b))
}

// bitsOf returns v's IEEE-754 bit pattern: 32 bits for float32, 64 for
// float64.
func bitsOf[T Float](v T) uint64 {
	if f, ok := any(v).(float32); ok {
		return uint64(math.Float32bits(f))
	}
	return math.Float64bits(float64(v))
}

// ptxImmediate is v as a PTX floating-point immediate with its exact bits:
// 0fXXXXXXXX for float32, 0dXXXXXXXXXXXXXXXX for float64.
func ptxImmediate[T Float](v T) string {
	if f, ok := any(v).(float32); ok {
		return fmt.Sprintf("0f%08X", math.Float32bits(f))
	}
	return fmt.Sprintf("0d%016X", math.Float64bits(float64(v)))
}

// elemSize is T's size in bytes.
func elemSize[T Float]() uint64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return 4
	}
	return 8
}
