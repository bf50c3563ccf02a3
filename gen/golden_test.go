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

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fakeBuild stands in for nvcc so the golden files do not depend on it.
func fakeBuild() Build {
	return Build{
		Fatbin:  []byte("not a real fatbin\n"),
		Targets: []string{"sm_80", "sm_90", "compute_90"},
		NVCC:    "11.8.89",
		Resources: []Resources{
			{Kernel: "gibbs_sweep_const", Arch: "sm_80", Registers: 40},
		},
	}
}

// fakePackage generates the package for s with fakeBuild in place of nvcc.
func fakePackage(t *testing.T, s Spec) Package {
	t.Helper()
	src, err := RenderCUDA(s)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := GoPackage(s, src, fakeBuild())
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

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
	want := []string{"gibbs5.cu", "gibbs5.fatbin", "gibbs5.go", "gibbs5_test.go", "gibbsgen.json"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("package files %v, want %v", names, want)
	}
	for _, name := range names {
		golden := filepath.Join("..", "testdata", "golden", name+".golden")
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

// TestKernelTableMatchesSource checks that the manifest's kernel list,
// which hosts in other languages rely on, matches the entry points of the
// rendered source: names, order of parameters, and C types.
func TestKernelTableMatchesSource(t *testing.T) {
	src, err := RenderCUDA(Spec{Dim: 7, Package: "p", Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`extern "C" __global__ void(?: __launch_bounds__\([^)]*\))?\s+(\w+)\(([^)]*)\)`)
	found := map[string]string{}
	for _, m := range re.FindAllStringSubmatch(string(src.Text), -1) {
		found[m[1]] = strings.Join(strings.Fields(m[2]), " ")
	}
	for _, k := range Kernels() {
		var parts []string
		for _, p := range k.Params {
			parts = append(parts, p.CType+" "+p.Name)
		}
		want := strings.Join(strings.Fields(strings.Join(parts, ", ")), " ")
		want = strings.ReplaceAll(want, "* ", " *")
		got, ok := found[k.Name]
		if !ok {
			t.Errorf("kernel %s is in the manifest but not in the source", k.Name)
			continue
		}
		got = strings.ReplaceAll(got, "* ", " *")
		if got != want {
			t.Errorf("kernel %s: source parameters %q, manifest %q", k.Name, got, want)
		}
		delete(found, k.Name)
	}
	for name := range found {
		t.Errorf("kernel %s is in the source but not in the manifest", name)
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
