package gen

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCheck writes a package made with a stand-in for nvcc and checks it:
// clean as written; then each kind of staleness, named.
func TestCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gibbs5")
	pkg := fakePackage(t, Spec{Dim: 5, Package: "gibbs5", Dir: dir})
	if err := Write(pkg); err != nil {
		t.Fatal(err)
	}
	restore := func() {
		t.Helper()
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := Write(pkg); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, want ...Stale) {
		t.Helper()
		got, err := Check(dir)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(got) == 0 && len(want) == 0 {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Check = %v, want %v", what, got, want)
		}
	}
	check("as written")

	writeFile(t, filepath.Join(dir, "gibbs5.go"), string(pkg.Files["gibbs5.go"])+"// edited\n")
	check("edited binding", Stale{"gibbs5.go", "differs from what gibbsgen " + Version + " generates"})
	restore()

	if err := os.Remove(filepath.Join(dir, "gibbs5_test.go")); err != nil {
		t.Fatal(err)
	}
	check("deleted test file", Stale{"gibbs5_test.go", "is missing"})
	restore()

	writeFile(t, filepath.Join(dir, "gibbs5.fatbin"), "another fatbin\n")
	check("edited fatbin", Stale{"gibbs5.fatbin", "does not match the SHA-256 the manifest records"})
	restore()

	writeFile(t, filepath.Join(dir, "notes.txt"), "mine\n")
	check("foreign file", Stale{"notes.txt", "was not written by gibbsgen"})
	restore()

	m := strings.Replace(string(pkg.Files[ManifestName]), `"gibbsgen": "`+Version+`"`, `"gibbsgen": "0.0.1"`, 1)
	writeFile(t, filepath.Join(dir, ManifestName), m)
	check("another version", Stale{ManifestName, "written by gibbsgen 0.0.1; this is gibbsgen " + Version})
	restore()

	if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(dir); err == nil || !strings.Contains(err.Error(), "has no gibbsgen.json") {
		t.Errorf("no manifest: %v", err)
	}
	if _, err := Check(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("no directory: %v", err)
	}
}
