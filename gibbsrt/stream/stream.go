// Package stream specifies the random stream every gibbsgen sampler draws
// and the IEEE-754 single-precision arithmetic its kernels and their CPU
// twin share: Philox4x32-10 (Philox4x32, PhiloxCounter), the transform of
// a word into a normal (Normal, NormalCell, Normals4), and the roundings
// of CUDA's __fmaf_rn, __fmul_rn, __fadd_rn and __fsqrt_rn (FMA32, Mul32,
// Add32, Sqrt32). It is the reference definition: the CUDA templates
// implement the same steps with the same constants, which gen takes from
// here (Version, NormalTable and its geometry), and gibbsrt's twin and the
// fitter of the table (gibbsrt/stream/internal/normalfit) use this
// package. It imports nothing of the module, so that everything else can
// import it.
//
// Every normal the samplers use is a pure function of (seed, chain, sweep,
// coordinate), so results do not depend on launch shape, kernel strategy or
// how sweeps are split across calls.
//
// Counter and key. Coordinates are taken in groups of four: group g = i/4
// holds coordinates 4g, 4g+1, 4g+2, 4g+3. For chain c (64-bit), sweep s
// (48-bit) and group g (16-bit), one Philox4x32-10 call is made with
//
//	key     = (seed & 0xffffffff, seed >> 32)
//	counter = (c & 0xffffffff, c >> 32, s & 0xffffffff, (s >> 32) << 16 | g)
//
// and returns four words w0..w3. Coordinates past dim in the last group are
// discarded.
//
// Normals. Each word w becomes one normal, z[4g+k] = Normal(w_k), by a
// table-driven inverse CDF (stream version 2; version 1 used Box-Muller). Its
// low 31 bits stand for the upper-tail probability p = q·2⁻³³ with
// q = 2·(w mod 2³¹) + 1, and its top bit is the sign:
//
//	lz   = clz(q)                      octave: p in [2^(-2-lz), 2^(-1-lz))
//	n    = q << lz                     top bit set
//	seg  = (n >> 27) & 15              segment of the octave
//	x    = (n >> 3) & 0xFFFFFF         argument, reflected (x ^= 0xFFFFFF)
//	                                   when q >= 0xF8000000 (p near 1/2)
//	c    = NormalTable[16·lz + seg]    a cubic's float32 coefficients
//	y    = fma(fma(fma(c3, x, c2), x, c1), x, c0)
//	z    = y with its sign bit xor'ed with w's top bit
//
// float(x) is exact (24 bits) and every fma is rounded once, so the GPU and
// this package agree bit for bit. Each cubic approximates Φ⁻¹(1 − p) at the
// mean p of the words that reach it, within 1.56 float32 ulp
// (gibbsrt/stream/internal/normalfit fits the table; TestNormalAccuracy
// measures every input). |z| ≤ Φ⁻¹(1 − 2⁻³³) ≈ 6.34, and the output is symmetric:
// Normal(w ^ 1<<31) = −Normal(w).
package stream

import (
	"math"
	"math/bits"
)

// Version names the random stream: Philox4x32-10 counters and keys and the
// normal transform (normal.go, with its table), as this package and
// docs/ARITHMETIC.md specify. Any change to the numbers a (seed, chain,
// sweep, coordinate) draws gets a new version, which generated manifests
// (stream_version) and the README name, and new known-answer tests.
//
// Version 1 turned pairs of words into normals by Box-Muller with Cephes'
// float32 log, sin and cos. Version 2 turns each word into one normal by a
// table-driven inverse CDF: about a third of the instructions, tails out to
// 6.34 instead of 5.77.
const Version = 2

// PhiloxCounter returns the counter and key of (seed, chain, sweep, group)
// as documented above.
func PhiloxCounter(seed, chain, sweep uint64, group int) (ctr [4]uint32, key [2]uint32) {
	ctr = [4]uint32{uint32(chain), uint32(chain >> 32), uint32(sweep), uint32(sweep>>32)<<16 | uint32(group)}
	key = [2]uint32{uint32(seed), uint32(seed >> 32)}
	return ctr, key
}

// Normals4 returns the four normals of coordinate group g for one chain and
// sweep.
func Normals4(seed, chain, sweep uint64, group int) [4]float32 {
	w := Philox4x32(PhiloxCounter(seed, chain, sweep, group))
	return [4]float32{Normal(w[0]), Normal(w[1]), Normal(w[2]), Normal(w[3])}
}

// normalTable is NormalTable as float32 values.
var normalTable = func() (t [NormalCells][NormalDegree + 1]float32) {
	for c, row := range NormalTable {
		for k, b := range row {
			t[c][k] = math.Float32frombits(b)
		}
	}
	return t
}()

// NormalCell returns the table cell and the cubic's argument of word w's
// normal: the integer part of the transform.
func NormalCell(w uint32) (cell int, x uint32) {
	const sb = NormalSegmentBits
	q := w<<1 | 1
	lz := bits.LeadingZeros32(q)
	n := q << lz
	x = n >> NormalDropBits & 0xFFFFFF
	if q >= NormalFlip {
		x ^= 0xFFFFFF
	}
	return lz<<sb | int(n>>(31-sb)&(1<<sb-1)), x
}

// Normal is the stream's transform of one word into a standard normal.
func Normal(w uint32) float32 {
	cell, xi := NormalCell(w)
	c := &normalTable[cell]
	x := float32(xi) // exact: 24 bits
	y := FMA32(FMA32(FMA32(c[3], x, c[2]), x, c[1]), x, c[0])
	return math.Float32frombits(math.Float32bits(y) ^ w&0x80000000)
}
