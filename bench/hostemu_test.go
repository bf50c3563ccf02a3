package main

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// TestGenericSweepOnHost compiles baseline.cu as C++ (testdata/hostemu.h
// maps the CUDA intrinsics to correctly rounded host float operations), runs
// generic_sweep thread by thread on the CPU, and requires the states to
// equal gibbsrt.Reference bit for bit. It checks the kernel's indexing,
// random stream and update order without a GPU; gibbsbench repeats the
// comparison on the device before timing. Skips without g++.
func TestGenericSweepOnHost(t *testing.T) {
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("needs g++ to compile baseline.cu for the host")
	}
	bin := filepath.Join(t.TempDir(), "hostemu")
	out, err := exec.Command(cxx, "-O2", "-ffp-contract=off", "-Itestdata", "-I.", "-o", bin, "testdata/hostemu.cc").CombinedOutput()
	if err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	streams := []gibbsrt.Stream{
		{Seed: 0xfedcba9876543210, Sweep: 1<<40 + 11, Chain: 1<<33 + 5}, // high words of every counter field
		{Seed: 42},
	}
	for _, dim := range []int{1, 3, 4, 5, 8, 13, 32, 63, genericMaxDim} {
		for k, st := range streams {
			chains, sweeps := 129+100*k, 3+2*k
			rng := rand.New(rand.NewPCG(uint64(dim), uint64(k)))
			m := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
			co, err := gibbsrt.NewCoefficients[float32](dim, m.Rows(), m.Mu)
			if err != nil {
				t.Fatal(err)
			}
			x0 := randomStart[float32](m, chains, rng)
			ref := gibbsrt.NewReference[float32](dim)
			if err := ref.SetModel(m.Rows(), m.Mu); err != nil {
				t.Fatal(err)
			}
			want := append([]float32(nil), x0...)
			if err := ref.Sweep(want, sweeps, st); err != nil {
				t.Fatal(err)
			}

			var in bytes.Buffer
			w, o, sc := co.Frame(0)
			for _, v := range []any{
				[]int32{int32(dim), int32(co.Stride), int32(chains), int32(sweeps)},
				[]uint64{st.Seed, st.Sweep, st.Chain},
				w, o, sc, x0,
			} {
				if err := binary.Write(&in, binary.LittleEndian, v); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command(bin)
			cmd.Stdin = &in
			raw, err := cmd.Output()
			if err != nil {
				t.Fatalf("dim %d: hostemu: %v", dim, err)
			}
			got := make([]float32, len(x0))
			if err := binary.Read(bytes.NewReader(raw), binary.LittleEndian, got); err != nil {
				t.Fatalf("dim %d: reading hostemu output: %v", dim, err)
			}
			c := compare(dim, "generic (host)", chains, sweeps, got, want)
			if !c.Pass {
				t.Errorf("dim %d, stream %d: %d of %d values differ from gibbsrt.Reference; first: %s", dim, k, c.Mismatches, len(got), c.First)
			}
		}
	}
}
