package gen

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbsimpl"
)

// TestVersionGuard builds a generated binding that claims a version outside
// gibbsimpl's supported range and expects the compiler to stop at the
// EnforceVersion assertion, whose comment tells the user to regenerate.
func TestVersionGuard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	pkg := fakePackage(t, Spec{Dim: 3, Package: "gibbs3", Dir: "x"})
	code := string(pkg.Files["gibbs3.go"])
	if !strings.Contains(code, "regenerate this package") {
		t.Fatal("the version assertion's comment does not tell the user to regenerate")
	}
	g := strconv.Itoa(gibbsimpl.GenVersion)
	lines := []string{g + " - gibbsimpl.MinVersion", "gibbsimpl.MaxVersion - " + g}
	for _, l := range lines {
		if !strings.Contains(code, l) {
			t.Fatalf("binding lacks %q", l)
		}
	}
	for _, c := range []struct{ name, version string }{
		{"generated for a newer gibbsrt", "99"},
		{"generated for an older gibbsrt", "0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			changed := code
			for _, l := range lines {
				changed = strings.Replace(changed, l, strings.Replace(l, g, c.version, 1), 1)
			}
			dir := scratchDir(t, "version-")
			for name, data := range pkg.Files {
				if name == "gibbs3.go" {
					data = []byte(changed)
				}
				writeFile(t, filepath.Join(dir, name), string(data))
			}
			out, err := exec.Command("go", "build", "./"+filepath.ToSlash(dir)).CombinedOutput()
			if err == nil {
				t.Fatal("a package with an unsupported version compiled")
			}
			if !strings.Contains(string(out), "EnforceVersion") || !strings.Contains(string(out), "gibbs3.go") {
				t.Fatalf("compiler error does not point at the version assertion:\n%s", out)
			}
			t.Logf("go build says:\n%s", out)
		})
	}
}
