package gibbsrt

import "testing"

// TestChoose pins Auto's rule (see Sampler.Choose) on a 132-SM device, and
// that an override wins.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		dim, chains, sweeps int
		want                Strategy
	}{
		{8, 4096, 100, WarpPerChain}, // small batch, many sweeps
		{8, 4096, 1, ConstMemory},    // weights fit, one sweep: no staging
		{8, 1 << 20, 100, SharedMemory},
		{8, 1 << 20, 1, ConstMemory},
		{20, 1 << 20, 1, ConstMemory},  // 20·20·4 = 1600 B fit the 2 KB fast level
		{22, 1 << 20, 1, SharedMemory}, // 22·24·4 = 2112 B (rows padded to 24) do not
		{32, 4096, 1, WarpPerChain},    // one sweep, but the weights do not fit the constant cache
		{32, 4096, 100, WarpPerChain},
		{32, 132*64 - 1, 100, WarpPerChain},
		{32, 132 * 64, 100, SharedMemory},
		{64, 1 << 20, 1, SharedMemory},
		{9, 100, 5, WarpPerChain},
	} {
		s := &Sampler{m: ModuleSpec{Dim: c.dim}, ctx: &Context{sms: 132}}
		if got := s.Choose(c.chains, c.sweeps); got != c.want {
			t.Errorf("dim %d, %d chains, %d sweeps: Auto picks %v, want %v", c.dim, c.chains, c.sweeps, got, c.want)
		}
		s.strategy = ConstMemory
		if got := s.Choose(c.chains, c.sweeps); got != ConstMemory {
			t.Errorf("override ignored: got %v", got)
		}
	}
}
