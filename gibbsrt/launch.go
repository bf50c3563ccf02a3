package gibbsrt

import (
	"fmt"

	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The kernel ABI has three writings: the template's signatures, the table's
// Params (from which the manifest is written), and the argument lists
// below. gen's tests check the first against the second; launch checks the
// third against the second at every launch, and TestLaunchArgsMatchTable
// runs every builder below against every row.

// sweepArgs is the argument list of a Sweep kernel.
func sweepArgs(x cuda.DevicePtr, chains, sweeps int, st Stream) []any {
	return []any{x, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain}
}

// noiseArgs is the argument list of the SweepNoise kernel.
func noiseArgs(x, noise cuda.DevicePtr, chains, sweeps int) []any {
	return []any{x, noise, uint64(chains), uint32(sweeps)}
}

// normalsArgs is the argument list of the Normals kernel.
func normalsArgs(out cuda.DevicePtr, chains, sweeps int, st Stream) []any {
	return []any{out, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain}
}

// philoxArgs is the argument list of the Philox kernel.
func philoxArgs(in, out cuda.DevicePtr, n int) []any {
	return []any{in, out, uint32(n)}
}

// goKind is how the driver binding passes a launch argument.
func goKind(a any) kernels.GoKind {
	switch a.(type) {
	case cuda.DevicePtr:
		return kernels.GoPointer
	case uint64:
		return kernels.GoUint64
	case uint32:
		return kernels.GoUint32
	}
	return 0
}

// checkArgs checks a launch's arguments against k's parameters.
func checkArgs(k *kernels.Kernel, args []any) error {
	kinds := make([]kernels.GoKind, len(args))
	for i, a := range args {
		kinds[i] = goKind(a)
	}
	if err := k.CheckArgs(kinds); err != nil {
		return fmt.Errorf("gibbsrt: %v", err)
	}
	return nil
}

// maxGridX is the CUDA limit on gridDim.x.
const maxGridX = 1<<31 - 1

// launch runs k over units units (chains, or records) with k's geometry.
// It must run inside ctx.Do.
func (s *Sampler) launch(l cuda.Locked, k *kernels.Kernel, units int, args ...any) error {
	if err := checkArgs(k, args); err != nil {
		return err
	}
	g := k.Geometry
	blocks := g.Blocks(units)
	if blocks > maxGridX {
		return fmt.Errorf("gibbsrt: %d %s need %d blocks of kernel %s, over CUDA's grid limit %d", units, g.Unit, blocks, k.Name, maxGridX)
	}
	return l.Launch(s.fn[k.Name], [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(g.Threads), 1, 1}, 0, args...)
}
