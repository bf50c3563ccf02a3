package gibbsrt

import "testing"

// A length that Go's allocator would refuse with a panic (the GPU API
// property test found one in Sampler.Normals: 2^48+1 chains × 3 sweeps at
// dim 64) is an error before anything is allocated.
func TestNormalsLenFitsOneSlice(t *testing.T) {
	for _, c := range []struct{ dim, chains, sweeps int }{
		{64, 1<<48 + 1, 3}, {1, 1 << 46, 1}, {1024, 1 << 37, 1},
	} {
		n, err := normalsLen[float32](c.dim, c.chains, c.sweeps, Stream{})
		if err == nil {
			t.Errorf("dim %d, %d chains × %d sweeps: %d normals accepted, %d bytes", c.dim, c.chains, c.sweeps, n, 4*uint64(n))
		}
	}
	if n, err := normalsLen[float64](64, 1<<10, 3, Stream{}); err != nil || n != 64<<10*3 {
		t.Errorf("64 × 1024 × 3 float64 normals: %d, %v", n, err)
	}
}
