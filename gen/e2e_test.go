package gen

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// e2eCase is one package the end-to-end test builds.
type e2eCase struct {
	dim   int
	dtype kernels.DType
}

func (c e2eCase) pkg() string {
	if c.dtype == kernels.Float64 {
		return DefaultPackage(c.dim) + "f64"
	}
	return DefaultPackage(c.dim)
}

// e2eDims is the sample of dimensions the end-to-end test builds by
// default: the edges (1, 64), every residue mod 4 (the Philox group of four
// and the float4 padding), both sides of 32 (the warp kernel's lane count),
// and the reference dims, in float32; and one float64 and one tiled-only
// dim. GIBBSGEN_E2E=all builds every float32 dimension 1..64, a float64
// sample of the same edges, and a representative set of large dims in both
// dtypes (e2eLarge); GIBBSGEN_E2E=3,17,1024f64 builds those (float32, or
// float64 with the suffix).
var e2eDims = []int{1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 64}

// e2eLarge is the large dims of GIBBSGEN_E2E=all, in both dtypes: the
// first tiled-only dim, the 128 and 256 (8 and 16 lanes per chain),
// and the largest (32 lanes of 32 slots, with float64's measured spill
// exception). Each takes about 90 s on 2 cores (generate, vet, test).
var e2eLarge = []int{65, 128, 256, 1024}

func e2eCases(t *testing.T) []e2eCase {
	var cs []e2eCase
	add := func(dt kernels.DType, dims ...int) {
		for _, d := range dims {
			cs = append(cs, e2eCase{d, dt})
		}
	}
	switch v := os.Getenv("GIBBSGEN_E2E"); v {
	case "":
		add(kernels.Float32, e2eDims...)
		add(kernels.Float32, 65)
		add(kernels.Float64, 33)
	case "all":
		for d := 1; d <= 64; d++ {
			add(kernels.Float32, d)
		}
		add(kernels.Float64, 1, 3, 5, 16, 17, 32, 33, 48, 49, 64)
		add(kernels.Float32, e2eLarge...)
		add(kernels.Float64, e2eLarge...)
	default:
		for _, f := range strings.Split(v, ",") {
			f, dt := strings.TrimSpace(f), kernels.Float32
			if n, ok := strings.CutSuffix(f, "f64"); ok {
				f, dt = n, kernels.Float64
			}
			d, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("GIBBSGEN_E2E=%q: %v", v, err)
			}
			add(dt, d)
		}
	}
	return cs
}

// TestEndToEnd generates a package for each dimension with the real nvcc
// (one architecture, to keep nvcc's time down), then runs go vet and the
// package's own tests on it: the CPU suites run, the GPU suites skip here
// and run on a GPU machine. Packages go under testdata/ (see scratchDir).
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nvcc and go test for many dimensions")
	}
	tc := needNVCC(t)
	root := scratchDir(t, "e2e-")
	cases := e2eCases(t)
	var pkgs []string
	for _, c := range cases {
		s := Spec{Dim: c.dim, DType: c.dtype, Package: c.pkg(), Dir: filepath.Join(root, c.pkg()), Arch: []string{"sm_80"}}
		pkg, _, err := Generate(context.Background(), s, tc, 1)
		if err != nil {
			t.Fatalf("dim %d %s: %v", c.dim, c.dtype, err)
		}
		if err := Write(pkg); err != nil {
			t.Fatalf("dim %d %s: %v", c.dim, c.dtype, err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(root, s.Package)))
	}
	for _, step := range [][]string{
		append([]string{"vet"}, pkgs...),
		append([]string{"test", "-count=1"}, pkgs...),
	} {
		cmd := exec.Command("go", step...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", step[0], err, out)
		}
		t.Logf("go %s %d packages:\n%s", step[0], len(pkgs), out)
	}
	var names []string
	for _, c := range cases {
		names = append(names, c.pkg())
	}
	fmt.Fprintf(os.Stderr, "end-to-end: generated, vetted and tested %s\n", strings.Join(names, " "))
}
