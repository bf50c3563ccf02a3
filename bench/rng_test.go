package main

import (
	"bytes"
	"os"
	"testing"

	"github.com/gibbsgen/gibbsgen/gen"
)

// TestRNGHeaderUpToDate fails when rng.cuh no longer matches the template
// the generated samplers use; run go generate ./bench.
func TestRNGHeaderUpToDate(t *testing.T) {
	want, err := gen.RenderRNG()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("rng.cuh")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bench/rng.cuh is stale; run go generate ./bench")
	}
}
