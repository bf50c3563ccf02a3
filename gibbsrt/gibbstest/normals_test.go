package gibbstest

import (
	"math"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// streamNormals draws the stream's normals on the CPU in the device layout
// [sweeps][dim][chains].
func streamNormals(dim, chains, sweeps int) []float32 {
	z := make([]float32, sweeps*dim*chains)
	for s := range sweeps {
		for c := range chains {
			for g := 0; 4*g < dim; g++ {
				n := stream.Normals4(99, uint64(c), uint64(s), g)
				for k, v := range n {
					if i := 4*g + k; i < dim {
						z[(s*dim+i)*chains+c] = v
					}
				}
			}
		}
	}
	return z
}

// TestCheckNormalsCatchesFaults shows that each of CheckNormals' checks can
// fail: the stream passes, and each fault is reported by its check.
func TestCheckNormalsCatchesFaults(t *testing.T) {
	const dim, chains, sweeps = 4, 4096, 64
	base := streamNormals(dim, chains, sweeps)
	idx := func(s, i, c int) int { return (s*dim+i)*chains + c }
	faults := []struct {
		name, want string
		mutate     func(z []float32)
	}{
		{"scaled by 1.01", "E[z²]", func(z []float32) {
			for k := range z {
				z[k] *= 1.01
			}
		}},
		{"clamped at 3.5", "|z| > 4", func(z []float32) {
			for k, v := range z {
				z[k] = float32(math.Max(-3.5, math.Min(3.5, float64(v))))
			}
		}},
		{"rounded to 0.05", "chi-square", func(z []float32) {
			for k, v := range z {
				z[k] = float32(math.Round(float64(v)/0.05) * 0.05)
			}
		}},
		{"odd chains copy even ones", "across chains", func(z []float32) {
			for s := range sweeps {
				for i := range dim {
					for c := 1; c < chains; c += 2 {
						z[idx(s, i, c)] = z[idx(s, i, c-1)]
					}
				}
			}
		}},
		{"odd sweeps copy even ones", "across sweeps", func(z []float32) {
			for s := 1; s < sweeps; s += 2 {
				copy(z[idx(s, 0, 0):idx(s+1, 0, 0)], z[idx(s-1, 0, 0):idx(s, 0, 0)])
			}
		}},
		{"coordinate 1 copies 0", "across coordinates", func(z []float32) {
			for s := range sweeps {
				copy(z[idx(s, 1, 0):idx(s, 2, 0)], z[idx(s, 0, 0):idx(s, 1, 0)])
			}
		}},
	}
	var r recorder
	CheckNormals(&r, base, dim, chains, sweeps)
	if len(r.errs) > 0 {
		t.Fatalf("the stream's own normals fail: %v", r.errs)
	}
	for _, f := range faults {
		z := append([]float32(nil), base...)
		f.mutate(z)
		var r recorder
		CheckNormals(&r, z, dim, chains, sweeps)
		if !strings.Contains(strings.Join(r.errs, "\n"), f.want) {
			t.Errorf("%s: want a %q failure, got %q", f.name, f.want, r.errs)
		}
	}
}
