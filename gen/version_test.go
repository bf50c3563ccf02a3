package gen

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// TestVersionGuard builds a generated binding that claims a version outside
// gibbsrt's supported range and expects the compiler to stop at the
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
	g := itoa(gibbsrt.GenVersion)
	lines := []string{g + " - gibbsrt.MinVersion", "gibbsrt.MaxVersion - " + g}
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
			dir, err := os.MkdirTemp("testdata", "version-")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(dir)
			for name, data := range pkg.Files {
				if name == "gibbs3.go" {
					data = []byte(changed)
				}
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
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

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
