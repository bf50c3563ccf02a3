package gen

import (
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestMethodsThePackageCanRun: a generated Sampler has SweepNoise exactly
// where the package holds its kernel (a chain per thread: dims up to 64 in
// float32, 32 in float64), and DrawExact's doc says whether the package
// can draw on the GPU (the Matrix strategy), so no method is there that
// could only fail without saying so.
func TestMethodsThePackageCanRun(t *testing.T) {
	const noise = "func (s *Sampler) SweepNoise("
	for _, c := range []struct {
		s    Spec
		want bool
	}{
		{Spec{Dim: 64}, true},
		{Spec{Dim: 65}, false},
		{Spec{Dim: 32, DType: kernels.Float64}, true},
		{Spec{Dim: 33, DType: kernels.Float64}, false},
	} {
		c.s.Package = DefaultPackage(c.s.Dim)
		src := string(fakePackage(t, c.s).Files[c.s.Package+".go"])
		if got := strings.Contains(src, noise); got != c.want {
			t.Errorf("dim %d %s: SweepNoise generated = %v, want %v", c.s.Dim, c.s.dtype(), got, c.want)
		}
		if !strings.Contains(src, "func Open() (Chains, Choice, error)") || !strings.Contains(src, "_ Chains = (*Sampler)(nil)") {
			t.Errorf("dim %d %s: no Open, or no assertion that Sampler is Chains", c.s.Dim, c.s.dtype())
		}
	}
	without := string(fakePackage(t, Spec{Dim: 8, Package: "gibbs8", Strategies: []kernels.Strategy{kernels.SharedMemory}}).Files["gibbs8.go"])
	if !strings.Contains(without, "generated without the Matrix strategy") {
		t.Error("DrawExact's doc in a package without Matrix does not say that it fails on the GPU")
	}
	with := string(fakePackage(t, Spec{Dim: 8, Package: "gibbs8"}).Files["gibbs8.go"])
	if strings.Contains(with, "generated without the Matrix strategy") {
		t.Error("DrawExact's doc in a package with Matrix says it lacks it")
	}
}
