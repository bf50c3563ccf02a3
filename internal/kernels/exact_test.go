package kernels

import (
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// TestExactShape: every dim's exact-draw shape is one the template can
// run: whole Philox groups per slab, vector loads of a thread's normals
// and table elements, tiles that cover the dim, and static shared memory
// within the limit beside the normal table.
func TestExactShape(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for dim := 1; dim <= TileMaxDim; dim++ {
			s := ExactShapeOf(dim, dt)
			vw := 16 / dt.Size()
			switch {
			case s.BK%4 != 0 || s.RM%4 != 0 || s.RN%vw != 0:
				t.Fatalf("%s dim %d: %+v: a slab or a register tile is not whole vectors", dt, dim, s)
			case s.BN*s.Tiles < dim || s.BN*(s.Tiles-1) >= dim:
				t.Fatalf("%s dim %d: %+v: %d tiles of %d do not cover the dim once", dt, dim, s, s.Tiles, s.BN)
			case s.Shared > exactMaxShared || s.Shared+stream.NormalCells*16 > 48<<10:
				t.Fatalf("%s dim %d: %+v: %d bytes of shared memory", dt, dim, s, s.Shared)
			case s.Threads != s.TX*s.TY || s.Threads > 256 || s.BM != s.TY*s.RM || s.BN != s.TX*s.RN:
				t.Fatalf("%s dim %d: %+v: inconsistent", dt, dim, s)
			case 4*s.TY*(s.BN+s.Pad)*dt.Size() > s.Shared || (s.BN+s.Pad)*dt.Size()/16%2 != 1:
				t.Fatalf("%s dim %d: %+v: staged outputs that do not fit, or rows of an even number of vectors", dt, dim, s)
			case s.TY&(s.TY-1) != 0:
				t.Fatalf("%s dim %d: %+v: threads along chains not a power of two", dt, dim, s)
			}
		}
	}
}

// TestExactLoopChains: at ExactLoopChains's batch for each dim, every
// exact kernel that loops has more work items than a full grid holds on
// 132 multiprocessors, so that the GPU suites run each block's loop.
func TestExactLoopChains(t *testing.T) {
	for _, dt := range []DType{Float32, Float64} {
		for dim := 1; dim <= TileMaxDim; dim++ {
			b := ExactLoopChains(dim)
			s := ExactShapeOf(dim, dt)
			if items := (b + s.BM - 1) / s.BM * s.Tiles; items <= 132*s.MinBlocks {
				t.Fatalf("%s dim %d: gibbs_exact: %d work items at %d chains", dt, dim, items, b)
			}
			if dim < ExactGemmMinDim {
				continue
			}
			if dt == Float32 && dim <= ExactTriMaxDim {
				r := ExactTriShapeOf(dim)
				if groups := (b + r.BM - 1) / r.BM; groups <= 132*r.MinBlocks {
					t.Fatalf("dim %d: gibbs_exact_tri: %d groups at %d chains", dim, groups, b)
				}
			}
			g := ExactGemmShapeOf(dim, dt)
			if items := (b + g.BM - 1) / g.BM * g.Pairs; items <= 132*g.MinBlocks {
				t.Fatalf("%s dim %d: gibbs_exact_gemm: %d work items at %d chains", dt, dim, items, b)
			}
		}
	}
}

// TestChooseExact: Auto's exact-draw kernel is one of the module's Exact
// rows, and the tiled kernel, the last by AutoRank, holds at every shape,
// so that none falls through; a module without exact kernels gets nil.
func TestChooseExact(t *testing.T) {
	tiled, chain := Named("gibbs_exact"), Named("gibbs_exact_chain")
	sweep := ForStrategy(Matrix)
	for _, s := range []Shape{{1, 1, 1, 1, false, Float64}, {32, 1 << 20, 1, 132, false, Float32}, {64, 1 << 30, 1, 200, false, Float32}} {
		if got := ChooseExact(s, []*Kernel{sweep, tiled}); got != tiled {
			t.Errorf("ChooseExact(%+v, tiled only) = %v", s, got)
		}
		if got := ChooseExact(s, []*Kernel{chain, sweep, tiled}); got != tiled && got != chain {
			t.Errorf("ChooseExact(%+v) = %v", s, got)
		}
		if !tiled.Prefer(s) {
			t.Errorf("the tiled exact kernel does not hold at %+v", s)
		}
	}
	// The chain-per-thread kernel in float32 only (run 31).
	if got := ChooseExact(Shape{Dim: 32, Chains: 1 << 20, DType: Float32}, []*Kernel{tiled, chain}); got != chain {
		t.Errorf("ChooseExact(float32) = %v, want %s", got.Name, chain.Name)
	}
	if got := ChooseExact(Shape{Dim: 32, Chains: 1 << 20, DType: Float64}, []*Kernel{tiled, chain}); got != tiled {
		t.Errorf("ChooseExact(float64) = %v, want %s", got.Name, tiled.Name)
	}
	// The per-model kernel first in float32 (run 34), where the module
	// has it; in float64 the tiled kernel still.
	model := Named("gibbs_exact_model")
	if got := ChooseExact(Shape{Dim: 32, Chains: 4096, DType: Float32}, []*Kernel{tiled, chain, model}); got != model {
		t.Errorf("ChooseExact(float32, with the per-model kernel) = %v, want %s", got.Name, model.Name)
	}
	if got := ChooseExact(Shape{Dim: 32, Chains: 1 << 20, DType: Float64}, []*Kernel{tiled, chain, model}); got != tiled {
		t.Errorf("ChooseExact(float64, with the per-model kernel) = %v, want %s", got.Name, tiled.Name)
	}
	// The GEMM-shaped kernel in float64 and beyond dim 512 in float32
	// (run 37), where the module has it; the tiled kernel below that.
	gemm := Named("gibbs_exact_gemm")
	for _, c := range []struct {
		dim  int
		dt   DType
		want *Kernel
	}{{128, Float32, tiled}, {256, Float32, tiled}, {512, Float32, tiled}, {513, Float32, gemm}, {1024, Float32, gemm}, {65, Float64, gemm}, {1024, Float64, gemm}} {
		if got := ChooseExact(Shape{Dim: c.dim, Chains: 4096, DType: c.dt}, []*Kernel{tiled, gemm}); got != c.want {
			t.Errorf("ChooseExact(%s dim %d) = %v, want %s", c.dt, c.dim, got.Name, c.want.Name)
		}
	}
	// The resident-triangle kernel in float32 to dim 128 from 8 waves of
	// its groups (run 38): 270,336 chains on 132 multiprocessors.
	tri := Named("gibbs_exact_tri")
	for _, c := range []struct {
		dim, chains, sms int
		want             *Kernel
	}{
		{128, 1 << 20, 132, tri}, {72, 1 << 20, 132, tri}, {128, 270_336, 132, tri}, {128, 270_335, 132, tiled},
		{128, 1 << 20, 0, tri}, {128, 65_536, 132, tiled}, {129, 1 << 20, 132, tiled}, {256, 1 << 20, 132, tiled},
		{128, 1 << 20, 1 << 10, tiled},
	} {
		sh := Shape{Dim: c.dim, Chains: c.chains, Multiprocessors: c.sms, DType: Float32}
		if got := ChooseExact(sh, []*Kernel{tiled, gemm, tri}); got != c.want {
			t.Errorf("ChooseExact(%+v) = %v, want %s", sh, got.Name, c.want.Name)
		}
	}
	if got := ChooseExact(Shape{Dim: 128, Chains: 1 << 20, DType: Float64}, []*Kernel{tiled, gemm, tri}); got != gemm {
		t.Errorf("ChooseExact(float64 dim 128) = %v, want %s", got.Name, gemm.Name)
	}
	if got := ChooseExact(Shape{Dim: 8}, []*Kernel{sweep}); got != nil {
		t.Errorf("ChooseExact without exact kernels = %v", got.Name)
	}
}

// TestExactTriShape: at every dim of gibbs_exact_tri the padded
// coordinates cover the dim in two halves of whole warps, the shared memory fits sm_90's 227 KB a block with
// the normal table's 8 KB (two blocks a multiprocessor where MinBlocks
// says so), and the packed triangle holds every row from its slab.
func TestExactTriShape(t *testing.T) {
	for dim := ExactTriMinDim; dim <= ExactTriMaxDim; dim++ {
		s := ExactTriShapeOf(dim)
		wtx := 32 / s.TY
		switch {
		case s.DP < dim || s.DP != 8*s.TX || s.BM != 8*s.TY || s.Threads != s.TX*s.TY || s.Threads > 1024:
			t.Fatalf("dim %d: %+v", dim, s)
		case s.TX%(2*wtx) != 0:
			t.Fatalf("dim %d: %d threads along coordinates are not two halves of whole warps (%d a warp)", dim, s.TX, wtx)
		case s.Shared+(8<<10) > 227<<10 || s.MinBlocks == 2 && 2*(s.Shared+(9<<10)) > 228<<10:
			t.Fatalf("dim %d: %d bytes of shared memory, %d blocks a multiprocessor", dim, s.Shared, s.MinBlocks)
		}
		n := 0
		for p := 0; p < s.DP; p++ {
			n += s.DP - p&^7
		}
		if n != s.NPack {
			t.Fatalf("dim %d: the packed triangle has %d elements, NPack %d", dim, n, s.NPack)
		}
	}
}
