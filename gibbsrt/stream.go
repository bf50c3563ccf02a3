package gibbsrt

import (
	"fmt"
	"math"
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

// Const is a named float32 constant shared by this file and the CUDA template.
type Const struct {
	Name  string
	Value float32
}

// Polynomial coefficients (Cephes logf, sinf, cosf) and reduction constants.
const (
	logP0  float32 = 7.0376836292e-2
	logP1  float32 = -1.1514610310e-1
	logP2  float32 = 1.1676998740e-1
	logP3  float32 = -1.2420140846e-1
	logP4  float32 = 1.4249322787e-1
	logP5  float32 = -1.6668057665e-1
	logP6  float32 = 2.0000714765e-1
	logP7  float32 = -2.4999993993e-1
	logP8  float32 = 3.3333331174e-1
	logQ1  float32 = -2.12194440e-4 // ln 2 = logQ2 - logQ1, split so e*logQ2 is exact
	logQ2  float32 = 0.693359375
	sinP0  float32 = -1.9515295891e-4
	sinP1  float32 = 8.3321608736e-3
	sinP2  float32 = -1.6666654611e-1
	cosP0  float32 = 2.443315711809948e-5
	cosP1  float32 = -1.388731625493765e-3
	cosP2  float32 = 4.166664568298827e-2
	angle  float32 = 2 * math.Pi / (1 << 24) // radians per step of a 24-bit angle
	sqrtHf uint32  = 0x3F3504F3              // float32 bits of sqrt(1/2)
)

// TransformConstants lists the constants the CUDA template must embed, by
// the names it uses. The template prints them as exact bit patterns.
func TransformConstants() []Const {
	return []Const{
		{"LOG_P0", logP0}, {"LOG_P1", logP1}, {"LOG_P2", logP2}, {"LOG_P3", logP3},
		{"LOG_P4", logP4}, {"LOG_P5", logP5}, {"LOG_P6", logP6}, {"LOG_P7", logP7},
		{"LOG_P8", logP8}, {"LOG_Q1", logQ1}, {"LOG_Q2", logQ2},
		{"SIN_P0", sinP0}, {"SIN_P1", sinP1}, {"SIN_P2", sinP2},
		{"COS_P0", cosP0}, {"COS_P1", cosP1}, {"COS_P2", cosP2},
		{"ANGLE_STEP", angle},
	}
}

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
