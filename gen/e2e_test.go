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
)

// e2eDims is the sample of dimensions the end-to-end test builds by
// default: the edges (1, 64), every residue mod 4 (the Philox group of four
// and the float4 padding), both sides of 32 (the warp kernel's lane count),
// and the reference dims. GIBBSGEN_E2E=all builds every dimension 1..64
// (about 20 minutes on 2 cores); GIBBSGEN_E2E=3,17 builds those.
var e2eDims = []int{1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 64}

func e2eDimList(t *testing.T) []int {
	switch v := os.Getenv("GIBBSGEN_E2E"); v {
	case "":
		return e2eDims
	case "all":
		var all []int
		for d := 1; d <= MaxDim; d++ {
			all = append(all, d)
		}
		return all
	default:
		var dims []int
		for _, f := range strings.Split(v, ",") {
			d, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				t.Fatalf("GIBBSGEN_E2E=%q: %v", v, err)
			}
			dims = append(dims, d)
		}
		return dims
	}
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
	dims := e2eDimList(t)
	var pkgs []string
	for _, dim := range dims {
		s := Spec{Dim: dim, Package: DefaultPackage(dim), Dir: filepath.Join(root, DefaultPackage(dim)), Arch: []string{"sm_80"}}
		pkg, _, err := Generate(context.Background(), s, tc, 1)
		if err != nil {
			t.Fatalf("dim %d: %v", dim, err)
		}
		if err := Write(pkg); err != nil {
			t.Fatalf("dim %d: %v", dim, err)
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
	fmt.Fprintf(os.Stderr, "end-to-end: generated, vetted and tested dims %v\n", dims)
}
