package stream

import "math/bits"

// Philox4x32-10 constants (Salmon et al., "Parallel random numbers: as easy
// as 1, 2, 3", SC11; Random123).
const (
	PhiloxM0 uint32 = 0xD2511F53
	PhiloxM1 uint32 = 0xCD9E8D57
	PhiloxW0 uint32 = 0x9E3779B9 // golden ratio
	PhiloxW1 uint32 = 0xBB67AE85 // sqrt(3) - 1
)

// Philox4x32 applies the ten-round Philox4x32 bijection to counter under key.
// It is the same function as Random123's philox4x32(ctr, key) with R=10.
func Philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		if r > 0 {
			key[0] += PhiloxW0
			key[1] += PhiloxW1
		}
		hi0, lo0 := bits.Mul32(PhiloxM0, ctr[0])
		hi1, lo1 := bits.Mul32(PhiloxM1, ctr[2])
		ctr = [4]uint32{hi1 ^ ctr[1] ^ key[0], lo1, hi0 ^ ctr[3] ^ key[1], lo0}
	}
	return ctr
}
