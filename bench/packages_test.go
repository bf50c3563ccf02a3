package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLoadPackage loads out/gibbs32 by directory, as -packages does, and
// expects the module its generated code embeds: the same kernel rows.
func TestLoadPackage(t *testing.T) {
	spec, err := loadPackage("../out/gibbs32")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("../out/gibbs32/gibbs32.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`Kernels: \[\]string\{([^}]*)\}`).FindSubmatch(src)
	if m == nil {
		t.Fatal("out/gibbs32/gibbs32.go has no module kernel list")
	}
	var want []string
	for _, q := range strings.Split(string(m[1]), ",") {
		want = append(want, strings.Trim(strings.TrimSpace(q), `"`))
	}
	if !slices.Equal(spec.Kernels, want) {
		t.Errorf("kernels %q, want %q", spec.Kernels, want)
	}
	if spec.Dim != 32 || spec.DType != "float32" || len(spec.Fatbin) == 0 || len(spec.PTX) == 0 {
		t.Errorf("dim %d dtype %q, %d bytes of fatbin, %d of PTX", spec.Dim, spec.DType, len(spec.Fatbin), len(spec.PTX))
	}
}

// TestLoadPackageOtherABI: a package of another ABI version is refused,
// naming the version, rather than launched with this runtime's geometry.
func TestLoadPackageOtherABI(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("../out/gibbs32/gibbsgen.json")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`"abi_version": \d+`)
	if !re.Match(raw) {
		t.Fatal("out/gibbs32/gibbsgen.json has no abi_version")
	}
	raw = re.ReplaceAll(raw, []byte(`"abi_version": 3`))
	if err := os.WriteFile(filepath.Join(dir, "gibbsgen.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = loadPackage(dir)
	if err == nil || !strings.Contains(err.Error(), "abi_version 3") {
		t.Fatalf("loadPackage = %v; want an error naming abi_version 3", err)
	}
}
