package kernels

import "math"

// The random stream's transform constants: the device code embeds them as
// exact bit patterns, and gibbsrt's Go twin of the stream uses the same
// values (gibbsrt/stream.go documents the transform).

// StreamVersion names the random stream: Philox4x32-10 counters and keys,
// the uniforms, and the Box-Muller transform with these constants, as
// gibbsrt/stream.go and the README specify. Any change to the numbers a
// (seed, chain, sweep, coordinate) draws gets a new version, which the
// manifest and the README name, and new known-answer tests.
const StreamVersion = 1

// Const is a named float32 constant that the CUDA template embeds and
// gibbsrt's twin of the device code uses.
type Const struct {
	Name  string
	Value float32
}

// Polynomial coefficients (Cephes logf, sinf, cosf) and reduction constants.
const (
	LogP0        float32 = 7.0376836292e-2
	LogP1        float32 = -1.1514610310e-1
	LogP2        float32 = 1.1676998740e-1
	LogP3        float32 = -1.2420140846e-1
	LogP4        float32 = 1.4249322787e-1
	LogP5        float32 = -1.6668057665e-1
	LogP6        float32 = 2.0000714765e-1
	LogP7        float32 = -2.4999993993e-1
	LogP8        float32 = 3.3333331174e-1
	LogQ1        float32 = -2.12194440e-4 // ln 2 = LogQ2 - LogQ1, split so e*LogQ2 is exact
	LogQ2        float32 = 0.693359375
	SinP0        float32 = -1.9515295891e-4
	SinP1        float32 = 8.3321608736e-3
	SinP2        float32 = -1.6666654611e-1
	CosP0        float32 = 2.443315711809948e-5
	CosP1        float32 = -1.388731625493765e-3
	CosP2        float32 = 4.166664568298827e-2
	AngleStep    float32 = 2 * math.Pi / (1 << 24) // radians per step of a 24-bit angle
	SqrtHalfBits uint32  = 0x3F3504F3              // float32 bits of sqrt(1/2)
)

// TransformConstants lists the constants the CUDA template must embed, by
// the names it uses. The template prints them as exact bit patterns.
func TransformConstants() []Const {
	return []Const{
		{"LOG_P0", LogP0}, {"LOG_P1", LogP1}, {"LOG_P2", LogP2}, {"LOG_P3", LogP3},
		{"LOG_P4", LogP4}, {"LOG_P5", LogP5}, {"LOG_P6", LogP6}, {"LOG_P7", LogP7},
		{"LOG_P8", LogP8}, {"LOG_Q1", LogQ1}, {"LOG_Q2", LogQ2},
		{"SIN_P0", SinP0}, {"SIN_P1", SinP1}, {"SIN_P2", SinP2},
		{"COS_P0", CosP0}, {"COS_P1", CosP1}, {"COS_P2", CosP2},
		{"ANGLE_STEP", AngleStep},
	}
}
