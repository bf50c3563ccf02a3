package main

// The hardware ceilings, measured in the same run as the samplers so that
// every row's floor uses this device's rates rather than data-sheet figures.

import (
	"fmt"
	"math"
)

// Ceilings are the hardware rates measured in this run.
type Ceilings struct {
	CopyBytesPerLaunch uint64          `json:"copy_bytes_per_launch"` // read + written
	CopyBytesPerSec    float64         `json:"copy_bytes_per_sec"`
	Copy               Stats           `json:"copy"`
	FMAsPerLaunch      float64         `json:"fmas_per_launch"`
	FMAsPerSec         float64         `json:"fmas_per_sec"`
	FMA                Stats           `json:"fma"`
	DFMAsPerSec        float64         `json:"dfmas_per_sec"` // float64
	DFMA               Stats           `json:"dfma"`
	NormalsPerSec      map[int]float64 `json:"normals_per_sec"` // by dim
	Normals            map[int]Stats   `json:"normals"`
}

func (b *bench) measureCeilings(dims []int) error {
	c := &Ceilings{NormalsPerSec: map[int]float64{}, Normals: map[int]Stats{}}
	b.rep.Ceilings = c

	// (a) Device-to-device copy: copy_kernel over copy-mib MiB of float4s.
	n := uint64(b.opt.copyMiB) << 20
	src, err := b.ctx.Alloc(n)
	if err != nil {
		return err
	}
	defer b.ctx.Free(src)
	dst, err := b.ctx.Alloc(n)
	if err != nil {
		return err
	}
	defer b.ctx.Free(dst)
	if err := b.ctx.Memset32(src, math.Float32bits(1), n/4); err != nil {
		return err
	}
	if err := b.ctx.Memset32(dst, 0, n/4); err != nil {
		return err
	}
	nf4 := n / 16
	g, err := blocks(int(nf4), 256)
	if err != nil {
		return err
	}
	st, err := b.timeLaunches(func() error {
		return b.ctx.Launch(b.fn[kernelCopy], [3]uint32{g, 1, 1}, [3]uint32{256, 1, 1}, 0, src, dst, nf4)
	})
	if err != nil {
		return fmt.Errorf("copy_kernel: %w", err)
	}
	c.Copy, c.CopyBytesPerLaunch = st, 2*n
	c.CopyBytesPerSec = float64(2*n) / (st.MedianMs * 1e-3)
	b.bw = c.CopyBytesPerSec

	// (b) FP32 FMA: 4 waves of fully occupied SMs (2048 threads each), each
	// thread fmaChains independent chains of fmaIters FMAs.
	const fmaThreads, fmaIters = 256, 1 << 14
	fg := uint32(b.ctx.MultiprocessorCount() * 8 * 4)
	out, err := b.ctx.Alloc(uint64(fg) * fmaThreads * 4)
	if err != nil {
		return err
	}
	defer b.ctx.Free(out)
	st, err = b.timeLaunches(func() error {
		return b.ctx.Launch(b.fn[kernelFMA], [3]uint32{fg, 1, 1}, [3]uint32{fmaThreads, 1, 1}, 0,
			out, uint32(fmaIters), float32(0.9999), float32(1e-4))
	})
	if err != nil {
		return fmt.Errorf("fma_kernel: %w", err)
	}
	c.FMA = st
	c.FMAsPerLaunch = float64(fg) * fmaThreads * fmaIters * fmaChains
	c.FMAsPerSec = c.FMAsPerLaunch / (st.MedianMs * 1e-3)
	b.fmaRate = c.FMAsPerSec

	// (b') The same in FP64, with an eighth of the iterations (FP64 runs at
	// a fraction of FP32's rate on most GPUs).
	const dfmaIters = fmaIters / 8
	dout, err := b.ctx.Alloc(uint64(fg) * fmaThreads * 8)
	if err != nil {
		return err
	}
	defer b.ctx.Free(dout)
	st, err = b.timeLaunches(func() error {
		return b.ctx.Launch(b.fn[kernelDFMA], [3]uint32{fg, 1, 1}, [3]uint32{fmaThreads, 1, 1}, 0,
			dout, uint32(dfmaIters), 0.9999, 1e-4)
	})
	if err != nil {
		return fmt.Errorf("dfma_kernel: %w", err)
	}
	c.DFMA = st
	c.DFMAsPerSec = float64(fg) * fmaThreads * dfmaIters * fmaChains / (st.MedianMs * 1e-3)
	b.dfmaRate = c.DFMAsPerSec

	// (c) Normals: normals_kernel draws dim normals per chain-sweep, as the
	// samplers do, for about 2^28 Philox calls per launch.
	const rngChains = 1 << 20
	nout, err := b.ctx.Alloc(rngChains * 4)
	if err != nil {
		return err
	}
	defer b.ctx.Free(nout)
	rg, _ := blocks(rngChains, genericBlock)
	for _, dim := range dims {
		groups := (dim + 3) / 4
		sweeps := max(1, (1<<28)/(rngChains*groups))
		sweep0 := uint64(0)
		st, err := b.timeLaunches(func() error {
			err := b.ctx.Launch(b.fn[kernelNormals], [3]uint32{rg, 1, 1}, [3]uint32{genericBlock, 1, 1}, 0,
				nout, uint64(rngChains), uint32(sweeps), uint64(benchSeed), sweep0, uint64(0), int32(dim))
			sweep0 += uint64(sweeps)
			return err
		})
		if err != nil {
			return fmt.Errorf("normals_kernel dim %d: %w", dim, err)
		}
		c.Normals[dim] = st
		c.NormalsPerSec[dim] = float64(rngChains) * float64(sweeps) * float64(dim) / (st.MedianMs * 1e-3)
		b.normalRate[dim] = c.NormalsPerSec[dim]
	}

	b.printf("\nCeilings (measured in this run):\n")
	b.printf("  copy bandwidth  %9.1f GB/s      copy_kernel, %d MiB read + %d MiB written per launch\n",
		c.CopyBytesPerSec/1e9, b.opt.copyMiB, b.opt.copyMiB)
	b.printf("  FP32 FMA rate   %9.2f T FMA/s   fma_kernel, %d independent chains per thread\n", c.FMAsPerSec/1e12, fmaChains)
	b.printf("  FP64 FMA rate   %9.2f T FMA/s   dfma_kernel, the same in float64\n", c.DFMAsPerSec/1e12)
	for _, dim := range dims {
		b.printf("  normals, dim %-4d%8.2f G/s       normals_kernel, %d chains, gg_normals4 as in the samplers\n",
			dim, c.NormalsPerSec[dim]/1e9, rngChains)
	}
	return nil
}

// floor returns the lower bound on the time of one sweep (seconds) of
// float32 state and which term sets it: max(B·D²/FMA_rate +
// B·D/normal_rate, 2·B·D·4/sweeps / BW).
func (b *bench) floor(dim, batch, sweeps int) (float64, string) {
	return b.floorOf(dim, batch, sweeps, 4, b.fmaRate)
}

// floorOf is floor for elements of size bytes and an FMA rate of fmaRate.
func (b *bench) floorOf(dim, batch, sweeps, size int, fmaRate float64) (float64, string) {
	B, D := float64(batch), float64(dim)
	compute := B*D*D/fmaRate + B*D/b.normalRate[dim]
	mem := 2 * B * D * float64(size) / float64(sweeps) / b.bw
	if mem > compute {
		return mem, "mem"
	}
	return compute, "fma+rng"
}
