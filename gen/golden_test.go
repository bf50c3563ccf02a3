package gen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite what the tests run compare with: the golden files in testdata/golden (TestGolden), the resource records (TestEndToEnd), bench/rng.cuh (TestRNGHeader)")

// TestGolden pins every file of a generated package (dim 5, with a fake
// nvcc build) to testdata/golden. Run go test ./gen -run Golden -update
// after an intended change, and review the diff.
func TestGolden(t *testing.T) {
	pkg := fakePackage(t, Spec{Dim: 5, Package: "gibbs5", Dir: "out/gibbs5"})
	var names []string
	for name := range pkg.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	want := []string{"gibbs5.cu", "gibbs5.fatbin", "gibbs5.go", "gibbs5.ptx", "gibbs5_test.go", "gibbsgen.json"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("package files %v, want %v", names, want)
	}
	for _, name := range names {
		golden := filepath.Join("testdata", "golden", name+".golden")
		if *update {
			if err := os.WriteFile(golden, pkg.Files[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		g, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create)", err)
		}
		if !bytes.Equal(g, pkg.Files[name]) {
			t.Errorf("%s differs from %s; run go test ./gen -run Golden -update and review the diff", name, golden)
		}
	}
}

// TestGeneratedHeader checks the header form go/ast.IsGenerated recognises
// and the facts it must record.
func TestGeneratedHeader(t *testing.T) {
	h := header(Spec{Dim: 12}, fakeBuild())
	if !regexp.MustCompile(`^Code generated .* DO NOT EDIT\.$`).MatchString(h) {
		t.Errorf("header %q is not in the generated-code form", h)
	}
	for _, want := range []string{Version, "dim 12", "sm_80 sm_90 compute_90", "nvcc 11.8.89"} {
		if !strings.Contains(h, want) {
			t.Errorf("header %q lacks %q", h, want)
		}
	}
}
