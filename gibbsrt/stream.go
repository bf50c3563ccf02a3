package gibbsrt

import (
	"fmt"
	"math"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The random stream
//
// Every normal the samplers use is a pure function of (seed, chain, sweep,
// coordinate), so results do not depend on launch shape, kernel strategy or
// how sweeps are split across calls. This file is the reference definition;
// the CUDA template implements the same steps with the same constants.
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
// Uniforms. A word w becomes one of two uniforms built from its top 24 bits,
// both exact in float32:
//
//	u1(w) = ((w >> 8) + 1) * 2^-24   in (0, 1]   (radius: log is finite)
//	u2(w) = (w >> 8) * 2^-24         in [0, 1)   (angle)
//
// Normals. Box-Muller on the pairs (w0, w1) and (w2, w3):
//
//	R      = sqrt(-2 ln u1(w0))
//	z[4g]   = R cos(2π u2(w1))
//	z[4g+1] = R sin(2π u2(w1))
//
// and likewise z[4g+2], z[4g+3] from (w2, w3). The logarithm, sine and cosine
// are not libm's: they are fixed float32 polynomial sequences (Log32, SinCos2Pi
// below, Cephes coefficients), evaluated with correctly rounded float32
// operations only, so the GPU and this package produce bit-identical normals
// on every architecture. Their accuracy is about 1-2 float32 ulps; R is at
// most sqrt(-2 ln 2^-24) ≈ 5.77, so |z| ≤ 5.77 (tail mass beyond it ≈ 8e-9).

// MaxSweepIndex bounds the sweep counter: it has 48 bits in the Philox counter.
const MaxSweepIndex = uint64(1) << 48

// maxGroups bounds the coordinate group: it has 16 bits in the counter.
const maxGroups = 1 << 16

// Stream names the random numbers a sweep call consumes. Sweep k (0-based)
// of a call updates chain j (0-based, within the call) with the normals of
// chain Chain+j at sweep Sweep+k. Advance Sweep by the number of sweeps
// after each call to continue the same stream.
type Stream struct {
	Seed  uint64 // Philox key
	Sweep uint64 // absolute index of the call's first sweep
	Chain uint64 // absolute index of the call's first chain
}

func (st Stream) check(chains, sweeps int) error {
	if st.Sweep >= MaxSweepIndex || uint64(sweeps) > MaxSweepIndex-st.Sweep {
		return fmt.Errorf("gibbsrt: sweep index %d + %d sweeps exceeds the stream's 48-bit sweep counter (%d)", st.Sweep, sweeps, MaxSweepIndex)
	}
	if uint64(chains) > math.MaxUint64-st.Chain {
		return fmt.Errorf("gibbsrt: chain index %d + %d chains overflows 64 bits", st.Chain, chains)
	}
	return nil
}

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
	z0, z1 := BoxMuller(w[0], w[1])
	z2, z3 := BoxMuller(w[2], w[3])
	return [4]float32{z0, z1, z2, z3}
}

// Uniform1 maps w to ((w>>8)+1)·2^-24, in (0, 1].
func Uniform1(w uint32) float32 { return float32((w>>8)+1) * 0x1p-24 }

// Uniform2 maps w to (w>>8)·2^-24, in [0, 1).
func Uniform2(w uint32) float32 { return float32(w>>8) * 0x1p-24 }

// BoxMuller turns two words into two standard normals: R·cos θ and R·sin θ.
func BoxMuller(wr, wa uint32) (float32, float32) {
	r := Sqrt32(Mul32(-2, Log32(Uniform1(wr))))
	s, c := SinCos2Pi(wa >> 8)
	return Mul32(r, c), Mul32(r, s)
}

// The polynomial coefficients and reduction constants, shared with the
// CUDA template through package kernels.
const (
	logP0  = kernels.LogP0
	logP1  = kernels.LogP1
	logP2  = kernels.LogP2
	logP3  = kernels.LogP3
	logP4  = kernels.LogP4
	logP5  = kernels.LogP5
	logP6  = kernels.LogP6
	logP7  = kernels.LogP7
	logP8  = kernels.LogP8
	logQ1  = kernels.LogQ1
	logQ2  = kernels.LogQ2
	sinP0  = kernels.SinP0
	sinP1  = kernels.SinP1
	sinP2  = kernels.SinP2
	cosP0  = kernels.CosP0
	cosP1  = kernels.CosP1
	cosP2  = kernels.CosP2
	angle  = kernels.AngleStep
	sqrtHf = kernels.SqrtHalfBits
)

// Log32 is the natural logarithm of a positive, finite, normal float32 u, by
// Cephes' logf reduction: u = m·2^e with m in [sqrt(1/2), sqrt(2)), f = m-1,
// ln u = f - f²/2 + f³·P(f) + e·ln 2.
func Log32(u float32) float32 {
	b := math.Float32bits(u)
	e := int32(b>>23) - 126 // u = m'·2^e with m' in [0.5, 1)
	mb := b&0x007FFFFF | 0x3F000000
	if mb < sqrtHf {
		e--
		mb += 0x00800000 // m = 2m', exact
	}
	f := Add32(math.Float32frombits(mb), -1) // exact (Sterbenz)
	fe := float32(e)
	z := Mul32(f, f)
	p := FMA32(logP0, f, logP1)
	p = FMA32(p, f, logP2)
	p = FMA32(p, f, logP3)
	p = FMA32(p, f, logP4)
	p = FMA32(p, f, logP5)
	p = FMA32(p, f, logP6)
	p = FMA32(p, f, logP7)
	p = FMA32(p, f, logP8)
	y := Mul32(Mul32(p, f), z)
	y = FMA32(logQ1, fe, y)
	y = FMA32(-0.5, z, y)
	r := Add32(f, y)
	return FMA32(logQ2, fe, r)
}

// SinCos2Pi returns sin and cos of 2π·k/2^24 for a 24-bit k. The angle is
// reduced exactly in integers to the nearest quarter turn q and a remainder
// r in [-2^21, 2^21]; sin and cos of r·ANGLE_STEP (|angle| ≤ π/4) come from
// Cephes' polynomials, and the quarter turns are applied by swapping and
// negating, which is exact.
func SinCos2Pi(k uint32) (sin, cos float32) {
	q := (k + 1<<21) >> 22 // nearest quarter turn, 0..4
	r := int32(k) - int32(q<<22)
	a := Mul32(float32(r), angle)
	z := Mul32(a, a)
	ps := FMA32(sinP0, z, sinP1)
	ps = FMA32(ps, z, sinP2)
	ps = Mul32(ps, z)
	s := FMA32(ps, a, a)
	pc := FMA32(cosP0, z, cosP1)
	pc = FMA32(pc, z, cosP2)
	pc = Mul32(pc, z)
	c := FMA32(pc, z, FMA32(-0.5, z, 1))
	switch q & 3 {
	case 1:
		return c, -s
	case 2:
		return -s, -c
	case 3:
		return -c, s
	}
	return s, c
}
