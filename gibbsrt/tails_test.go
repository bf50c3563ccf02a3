package gibbsrt_test

import (
	"math"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// TestNormalTailsAndMoments draws 4M normals from the stream and checks the
// frequency of |z| > 4 against 2(1 − Φ(4)) within its binomial bound, and
// the mean and variance within 6 standard errors.
func TestNormalTailsAndMoments(t *testing.T) {
	const calls = 1 << 20
	z := make([]float32, 0, 4*calls)
	for c := uint64(0); c < calls; c++ {
		n := gibbsrt.Normals4(12345, c, 3, int(c%7))
		z = append(z, n[:]...)
	}
	gibbstest.CheckTails(t, z)
	var s, s2 float64
	for _, v := range z {
		s += float64(v)
		s2 += float64(v) * float64(v)
	}
	n := float64(len(z))
	mean, vr := s/n, s2/n
	if se := 1 / math.Sqrt(n); math.Abs(mean) > 6*se {
		t.Errorf("mean of %d normals = %g, bound %g", len(z), mean, 6*se)
	}
	if se := math.Sqrt(2 / n); math.Abs(vr-1) > 6*se {
		t.Errorf("second moment of %d normals = %g, bound 1 ± %g", len(z), vr, 6*se)
	}
}
