package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScratchPathLength: nvcc's output depends on the scratch path's length
// (scratch.go), so it must not vary with TMPDIR.
func TestScratchPathLength(t *testing.T) {
	if _, err := os.Stat("/tmp"); err != nil {
		t.Skip("no /tmp to fall back on")
	}
	root := t.TempDir()
	long := filepath.Join(root, strings.Repeat("d", 60))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	short, err := os.MkdirTemp("/tmp", "s")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(short)
	for _, tmp := range []string{short, long, filepath.Join(root, "missing")} {
		t.Setenv("TMPDIR", tmp)
		dir, fixed, err := newScratch()
		if err != nil || !fixed {
			t.Fatalf("TMPDIR=%s: newScratch() = %q, %v, %v", tmp, dir, fixed, err)
		}
		if len(dir) != scratchPathLen || !filepath.IsAbs(dir) {
			t.Errorf("TMPDIR=%s: scratch %q has %d bytes, want an absolute path of %d", tmp, dir, len(dir), scratchPathLen)
		}
		if fi, err := os.Stat(filepath.Join(dir, nvccTempDir)); err != nil || !fi.IsDir() {
			t.Errorf("TMPDIR=%s: no %s in %s: %v", tmp, nvccTempDir, dir, err)
		}
		os.RemoveAll(dir)
	}
	if len(nvccTempDir) != len("/tmp") {
		t.Errorf("nvccTempDir %q is not as long as /tmp", nvccTempDir)
	}
}
