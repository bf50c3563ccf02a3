package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// rngHeader is the random stream's device code for gibbsbench's baseline
// kernels (bench/baseline.cu includes it), so that they draw exactly the
// generated samplers' numbers.
var rngHeader = filepath.Join("..", "bench", "rng.cuh")

// TestRNGHeader fails when bench/rng.cuh no longer matches the template
// the generated samplers use; with -update it rewrites the file, which is
// what go generate ./bench runs.
func TestRNGHeader(t *testing.T) {
	want, err := renderRNG()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(rngHeader, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(rngHeader)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bench/rng.cuh is stale; run go generate ./bench (or go test ./gen -run TestRNGHeader -update)")
	}
}
