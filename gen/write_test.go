package gen_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gibbsgen/gibbsgen/gen"
)

// writePkg is the package for dim, to be written to dir, from a fake nvcc
// build, so that Write can be tested without nvcc. Different dims give
// different file names (gibbs2.go, gibbs3.go, ...).
func writePkg(t *testing.T, dir string, dim int) gen.Package {
	t.Helper()
	return gen.FakePackage(t, gen.Spec{Dim: dim, Package: gen.DefaultPackage(dim), Dir: dir})
}

// requireOnly fails unless parent holds exactly the entries names: in
// particular, no temporary directory of Write is left behind.
func requireOnly(t *testing.T, parent string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	sort.Strings(names)
	if !reflect.DeepEqual(got, names) && (len(got) > 0 || len(names) > 0) {
		t.Errorf("%s holds %q, want %q", parent, got, names)
	}
}

func TestWriteNew(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", "gibbs2")
	pkg := writePkg(t, dir, 2)
	if err := gen.Write(pkg); err != nil {
		t.Fatal(err)
	}
	gen.RequireTree(t, dir, gen.FilesTree(pkg.Files))
	requireOnly(t, filepath.Dir(dir), "gibbs2")
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("%s has mode %v, want 0755 like a directory made with mkdir", dir, fi.Mode().Perm())
	}
	if err := gen.CheckOutput(dir); err != nil {
		t.Errorf("CheckOutput on what Write wrote: %v", err)
	}
}

func TestWriteReplace(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	v2, v3 := writePkg(t, dir, 2), writePkg(t, dir, 3)
	for i, pkg := range []gen.Package{v2, v3, v3, v2} {
		if err := gen.Write(pkg); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		gen.RequireTree(t, dir, gen.FilesTree(pkg.Files))
		requireOnly(t, root, "out")
	}
}

func TestWriteIntoEmptyDir(t *testing.T) {
	dir := t.TempDir()
	pkg := writePkg(t, dir, 4)
	if err := gen.Write(pkg); err != nil {
		t.Fatal(err)
	}
	gen.RequireTree(t, dir, gen.FilesTree(pkg.Files))
}

// TestWriteAtomic replaces a package over and over while another goroutine
// reads its manifest by path: the manifest is in every version, so every
// read must succeed and give one whole version. (Listing the directory is no
// test: a listing that began on the old directory may see it being deleted.)
func TestWriteAtomic(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("replacement is atomic only where renameat2 RENAME_EXCHANGE exists")
	}
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	v2, v3 := writePkg(t, dir, 2), writePkg(t, dir, 3)
	want := map[string]bool{
		string(v2.Files[gen.ManifestName]): true,
		string(v3.Files[gen.ManifestName]): true,
	}
	if err := gen.Write(v2); err != nil {
		t.Fatal(err)
	}
	var (
		stop  atomic.Bool
		wg    sync.WaitGroup
		reads atomic.Int64
		bad   = make(chan string, 1)
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			b, err := os.ReadFile(filepath.Join(dir, gen.ManifestName))
			if err != nil || !want[string(b)] {
				bad <- fmt.Sprintf("a reader got %d bytes of %s that are neither version (%v)", len(b), gen.ManifestName, err)
				return
			}
			reads.Add(1)
		}
	}()
	for i := 0; i < 20; i++ {
		pkg := v3
		if i%2 == 1 {
			pkg = v2
		}
		if err := gen.Write(pkg); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	select {
	case msg := <-bad:
		t.Fatal(msg)
	default:
	}
	gen.RequireTree(t, dir, gen.FilesTree(v2.Files))
	requireOnly(t, root, "out")
	t.Logf("%d reads, all consistent", reads.Load())
}

func TestWriteRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		file  string // the file the error must name
		why   string
	}{
		{"foreign file", func(t *testing.T, dir string) {
			gen.WriteFile(t, filepath.Join(dir, "notes.txt"), "my notes\n")
		}, "notes.txt", "was not written by gibbsgen"},
		{"edited file", func(t *testing.T, dir string) {
			appendFile(t, filepath.Join(dir, "gibbs2.go"), "\n// my change\n")
		}, "gibbs2.go", "was modified after gibbsgen wrote it"},
		{"truncated fatbin", func(t *testing.T, dir string) {
			gen.WriteFile(t, filepath.Join(dir, "gibbs2.fatbin"), "")
		}, "gibbs2.fatbin", "was modified after gibbsgen wrote it"},
		{"subdirectory", func(t *testing.T, dir string) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			gen.WriteFile(t, filepath.Join(dir, "sub", "keep.go"), "package sub\n")
		}, "sub", "was not written by gibbsgen"},
		{"symlink in place of a generated file", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "gibbs2.go")
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			elsewhere := filepath.Join(t.TempDir(), "gibbs2.go")
			gen.WriteFile(t, elsewhere, string(data))
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(elsewhere, p); err != nil {
				t.Skip("no symlinks:", err)
			}
		}, "gibbs2.go", "was not written by gibbsgen"},
		{"no manifest", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, gen.ManifestName)); err != nil {
				t.Fatal(err)
			}
		}, "gibbs2.cu", "has no gibbsgen.json"},
		{"corrupt manifest", func(t *testing.T, dir string) {
			appendFile(t, filepath.Join(dir, gen.ManifestName), "}")
		}, gen.ManifestName, "is not a gibbsgen manifest"},
		{"foreign manifest", func(t *testing.T, dir string) {
			for _, name := range []string{"gibbs2.go", "gibbs2.cu", "gibbs2_test.go", "gibbs2.fatbin"} {
				if err := os.Remove(filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			gen.WriteFile(t, filepath.Join(dir, gen.ManifestName), `{"name": "someone else's config"}`+"\n")
		}, gen.ManifestName, "is not a gibbsgen manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "out")
			if err := gen.Write(writePkg(t, dir, 2)); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, dir)
			before := gen.ReadTree(t, dir)
			for _, check := range []struct {
				name string
				f    func() error
			}{
				{"CheckOutput", func() error { return gen.CheckOutput(dir) }},
				{"Write", func() error { return gen.Write(writePkg(t, dir, 3)) }},
			} {
				err := check.f()
				var oe *gen.OwnershipError
				if !errors.As(err, &oe) {
					t.Fatalf("%s = %v, want *OwnershipError", check.name, err)
				}
				if oe.Dir != dir || oe.File != tc.file || !strings.Contains(oe.Why, tc.why) {
					t.Errorf("%s: %+v, want file %s: %s", check.name, oe, tc.file, tc.why)
				}
				if msg := err.Error(); !strings.Contains(msg, filepath.Join(dir, tc.file)) || strings.Contains(msg, "\n") {
					t.Errorf("%s: error %q is not one line naming %s", check.name, msg, filepath.Join(dir, tc.file))
				}
				gen.RequireTree(t, dir, before)
				requireOnly(t, root, "out")
			}
		})
	}
}

func TestWriteOutNotADirectory(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	gen.WriteFile(t, file, "precious\n")
	target := filepath.Join(root, "target")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir, rule string
	}{
		{file, "exists and is not a directory"},
		{link, "exists and is not a directory"},
		{filepath.Join(file, "pkg"), "cannot be created: " + file + " exists and is not a directory"},
		{filepath.Join(file, "a", "b", "pkg"), "cannot be created: " + file + " exists and is not a directory"},
	} {
		before := gen.ReadTree(t, root)
		for name, f := range map[string]func() error{
			"CheckOutput": func() error { return gen.CheckOutput(tc.dir) },
			"Write":       func() error { return gen.Write(writePkg(t, tc.dir, 2)) },
		} {
			err := f()
			var se *gen.SpecError
			if !errors.As(err, &se) || se.Flag != "out" || se.Value != tc.dir || se.Rule != tc.rule {
				t.Errorf("%s(%s) = %v, want invalid --out: %s", name, tc.dir, err, tc.rule)
			}
			gen.RequireTree(t, root, before)
		}
	}
}

// TestWriteFailureKeepsPrevious injects a failure while the new files are
// written (a file name the file system rejects): the previous package must
// stay byte-identical and no temporary directory may be left behind.
func TestWriteFailureKeepsPrevious(t *testing.T) {
	for _, bad := range []string{"bad\x00name", "zz/missing-dir/file", "gibbs3.go/x"} {
		t.Run(fmt.Sprintf("%q", bad), func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "out")
			old := writePkg(t, dir, 2)
			if err := gen.Write(old); err != nil {
				t.Fatal(err)
			}
			pkg := writePkg(t, dir, 3)
			pkg.Files[bad] = []byte("x")
			if err := gen.Write(pkg); err == nil {
				t.Fatal("Write succeeded")
			}
			gen.RequireTree(t, dir, gen.FilesTree(old.Files))
			requireOnly(t, root, "out")

			// The same failure creating a new directory creates nothing.
			fresh := filepath.Join(root, "fresh")
			pkg.Dir = fresh
			if err := gen.Write(pkg); err == nil {
				t.Fatal("Write succeeded")
			}
			requireOnly(t, root, "out")
		})
	}
}

// TestWriteUnwritableParent: a parent directory Write cannot create entries
// in. Root ignores permission bits, so as root this uses /proc/self, where
// nobody can create directories.
func TestWriteUnwritableParent(t *testing.T) {
	t.Run("proc", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("needs /proc")
		}
		dir := "/proc/self/gibbsgen-write-test"
		err := gen.Write(writePkg(t, dir, 2))
		if err == nil || !strings.Contains(err.Error(), "/proc/self is not writable") {
			t.Errorf("Write(%s) = %v, want a not-writable error", dir, err)
		}
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v", dir, err)
		}
	})
	t.Run("chmod", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no permission bits")
		}
		if os.Geteuid() == 0 {
			t.Skip("root ignores permission bits; the proc subtest covers this as root")
		}
		root := t.TempDir()
		dir := filepath.Join(root, "out")
		old := writePkg(t, dir, 2)
		if err := gen.Write(old); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(root, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(root, 0o755)
		err := gen.Write(writePkg(t, dir, 3))
		if err == nil || !strings.Contains(err.Error(), "is not writable") {
			t.Errorf("Write = %v, want a not-writable error", err)
		}
		gen.RequireTree(t, dir, gen.FilesTree(old.Files))
		requireOnly(t, root, "out")
	})
}

func TestCheckOutputAccepts(t *testing.T) {
	root := t.TempDir()
	gen2 := filepath.Join(root, "gen2")
	if err := gen.Write(writePkg(t, gen2, 2)); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{
		filepath.Join(root, "missing"),
		filepath.Join(root, "missing", "deeper"),
		gen2,
		t.TempDir(),
	} {
		if err := gen.CheckOutput(dir); err != nil {
			t.Errorf("CheckOutput(%s) = %v", dir, err)
		}
	}
	// A directory holding a generated package is not itself generated.
	var oe *gen.OwnershipError
	if err := gen.CheckOutput(root); !errors.As(err, &oe) || oe.File != "gen2" {
		t.Errorf("CheckOutput(%s) = %v, want gen2 named as foreign", root, err)
	}
}

func appendFile(t *testing.T, path, data string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gen.WriteFile(t, path, string(b)+data)
}
