package gibbsrt_test

import (
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// TestStreamNormals draws 2^23 normals of the stream on the CPU, laid out
// like the device's (sweeps × dim × chains), and checks them with
// gibbstest.CheckNormals: moments, tails, a 4096-bin chi-square and lag
// products across coordinate, sweep and chain.
func TestStreamNormals(t *testing.T) {
	const dim, chains, sweeps = 8, 1 << 14, 64
	st := gibbsrt.Stream{Seed: 12345, Sweep: 3, Chain: 1 << 33}
	z := make([]float32, sweeps*dim*chains)
	for s := range sweeps {
		for c := range chains {
			for g := 0; 4*g < dim; g++ {
				n := stream.Normals4(st.Seed, st.Chain+uint64(c), st.Sweep+uint64(s), g)
				for k, v := range n {
					z[(s*dim+4*g+k)*chains+c] = v
				}
			}
		}
	}
	gibbstest.CheckNormals(t, z, dim, chains, sweeps)
}
