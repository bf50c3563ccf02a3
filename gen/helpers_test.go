package gen

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync"
	"testing"
)

// Helpers shared by the tests of package gen and of package gen_test.

// The helpers the external tests (package gen_test) use. These names exist
// only while testing.
var (
	FakePackage = fakePackage
	RenderCUDA  = renderCUDA
	ReadTree    = readTree
	FilesTree   = filesTree
	RequireTree = requireTree
	WriteFile   = writeFile
)

// fakeBuild stands in for nvcc so the golden files do not depend on it.
func fakeBuild() Build {
	return Build{
		Fatbin:  []byte("not a real fatbin\n"),
		PTX:     []byte("// not real PTX\n"),
		PTXArch: "compute_80",
		Targets: []string{"sm_80", "sm_90", "compute_90"},
		NVCC:    "11.8.89",
		Resources: []Resources{
			{Kernel: "gibbs_sweep_const", Arch: "sm_80", Registers: 40},
		},
	}
}

// fakePackage generates the package for s with fakeBuild in place of nvcc.
func fakePackage(t testing.TB, s Spec) Package {
	t.Helper()
	m := resolved(t, s)
	src, psrc, err := m.render()
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := goPackage(m, src, psrc, fakeBuild())
	if err != nil {
		t.Fatal(err)
	}
	return pkg
}

// resolved resolves s, failing the test if it cannot.
func resolved(t testing.TB, s Spec) *module {
	t.Helper()
	m, err := resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// renderCUDA is the fatbin's source for s.
func renderCUDA(s Spec) (source, error) {
	m, err := resolve(s)
	if err != nil {
		return source{}, err
	}
	src, _, err := m.render()
	return src, err
}

// needNVCC finds nvcc or skips; under CI (CI=true) a missing nvcc fails,
// because .ci/run installs it.
func needNVCC(t testing.TB) *Toolchain {
	t.Helper()
	tc, err := FindNVCC(context.Background(), OSEnv)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must have nvcc: %v", err)
		}
		t.Skipf("needs nvcc: %v", err)
	}
	return tc
}

// scratchDir makes a fresh directory for generated packages under
// testdata/: inside this module, so that they resolve gibbsrt, and out of
// reach of ./... patterns. It is removed when the test ends, and fresh per
// call, so concurrent runs do not collide.
func scratchDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// writeFile writes data to path, mode 0644.
func writeFile(t testing.TB, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readTree returns every entry under dir: files by content, directories
// as "<dir>", symlinks as "-> target".
func readTree(t testing.TB, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			tree[rel] = "-> " + target
		case fi.IsDir():
			tree[rel] = "<dir>"
		default:
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			tree[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// filesTree is a package's files in the form readTree returns.
func filesTree(files map[string][]byte) map[string]string {
	tree := map[string]string{}
	for name, data := range files {
		tree[name] = string(data)
	}
	return tree
}

// compareTree reports every entry in which got, what dir holds, differs
// from want, each with hint appended.
func compareTree(t testing.TB, dir string, got, want map[string]string, hint string) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	var names []string
	for name := range want {
		names = append(names, name)
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		g, inGot := got[name]
		w, inWant := want[name]
		path := filepath.Join(dir, name)
		switch {
		case !inGot:
			t.Errorf("%s is missing%s", path, hint)
		case !inWant:
			t.Errorf("%s should not be there%s", path, hint)
		case g != w:
			t.Errorf("%s has different contents%s", path, hint)
		}
	}
}

// requireTree fails unless dir holds exactly want.
func requireTree(t testing.TB, dir string, want map[string]string) {
	t.Helper()
	compareTree(t, dir, readTree(t, dir), want, "")
}

// generated memoizes Generate within the test binary for the packages
// two tests build (out/'s: TestEndToEnd's reference dims and
// TestOutRebuildsIdentically), so that nvcc runs for each once; the other
// packages are not kept. A package's files do not depend on Spec.Dir, so
// the key is the spec without it.
var generated sync.Map // Spec (Dir "") → *generation

type generation struct {
	once sync.Once
	pkg  Package
	b    Build
	err  error
}

// generateOnce is Generate with one nvcc thread, memoized (see generated).
func generateOnce(s Spec, tc *Toolchain) (Package, Build, error) {
	key := s
	key.Dir = ""
	v, _ := generated.LoadOrStore(fmt.Sprint(key), new(generation))
	g := v.(*generation)
	g.once.Do(func() { g.pkg, g.b, g.err = Generate(context.Background(), s, tc, 1) })
	pkg := g.pkg
	pkg.Dir = s.Dir
	return pkg, g.b, g.err
}
