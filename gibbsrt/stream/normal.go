package stream

// The normal transform of stream version 2 (docs/ARITHMETIC.md, "The
// random stream"; Normal is its Go definition, templates/rng.cu.tmpl its
// device code, which gen renders from these constants and NormalTable). A
// word w gives q = 2·(w mod 2³¹) + 1, the octave lz = clz(q), the
// normalized n = q << lz, the segment (the NormalSegmentBits bits below n's
// top bit) and the 24-bit argument x below them. Cell lz·2^NormalSegmentBits
// + segment holds a cubic in x; its value, with w's top bit as the sign, is
// the normal.
const (
	NormalSegmentBits = 4
	NormalDegree      = 3
	NormalOctaves     = 32
	NormalCells       = NormalOctaves << NormalSegmentBits
	// NormalDropBits are the bits of n below x, which the transform ignores.
	NormalDropBits = 31 - NormalSegmentBits - 24
	// NormalFlip is the q at and above which the argument is
	// reflected (x ^= 0xFFFFFF): the last segment of octave 0, where z runs
	// down to 0 and a cubic in the distance from p = 1/2 keeps its relative
	// precision.
	NormalFlip uint32 = 1<<32 - 1<<(31-NormalSegmentBits)
)
