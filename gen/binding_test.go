package gen

import (
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestSamplerIsAnAlias: a generated package's Sampler and Reference are
// gibbsrt's, in the package's dtype, with no methods of its own, so every
// method is there and one the package cannot run returns
// MissingKernelError; the package doc names those (SweepNoise's kernel
// runs a chain per thread: dims up to 64 in float32, 32 in float64;
// DrawExact needs the Matrix strategy).
func TestSamplerIsAnAlias(t *testing.T) {
	const noise, exact = "SweepNoise returns MissingKernelError", "DrawExactDevice return MissingKernelError"
	for _, c := range []struct {
		s            Spec
		noise, exact bool // the doc says the method fails
	}{
		{Spec{Dim: 64}, false, false},
		{Spec{Dim: 65}, true, false},
		{Spec{Dim: 32, DType: kernels.Float64}, false, false},
		{Spec{Dim: 33, DType: kernels.Float64}, true, false},
		{Spec{Dim: 8, Strategies: []kernels.Strategy{kernels.SharedMemory}}, false, true},
	} {
		c.s.Package = DefaultPackage(c.s.Dim)
		c.s.Dir = "out/" + c.s.Package
		src := string(fakePackage(t, c.s).Files[c.s.Package+".go"])
		doc := strings.Join(strings.Fields(strings.ReplaceAll(src[:strings.Index(src, "\npackage ")], "//", "")), " ")
		dt := c.s.dtype()
		for _, want := range []string{
			"Sampler = gibbsrt.Sampler[" + string(dt) + "]",
			"Reference = gibbsrt.Reference[" + string(dt) + "]",
			"func New(device int) (*Sampler, error)",
			"func NewReference() *Reference",
			"func Open() (Chains, Choice, error)",
		} {
			if !strings.Contains(strings.Join(strings.Fields(src), " "), want) {
				t.Errorf("dim %d %s: no %q", c.s.Dim, dt, want)
			}
		}
		if strings.Contains(src, "func (") {
			t.Errorf("dim %d %s: the package declares methods", c.s.Dim, dt)
		}
		if got := strings.Contains(doc, noise); got != c.noise {
			t.Errorf("dim %d %s: doc says SweepNoise fails = %v, want %v", c.s.Dim, dt, got, c.noise)
		}
		if got := strings.Contains(doc, exact); got != c.exact {
			t.Errorf("dim %d %s: doc says DrawExact fails = %v, want %v", c.s.Dim, dt, got, c.exact)
		}
	}
}
