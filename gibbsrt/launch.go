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

// traceArgs are a traced sweep launch's trace arguments; the zero value
// means a plain launch.
type traceArgs struct {
	out, index     cuda.DevicePtr
	thin, cols     uint32
	chain0, chains uint64
}

// sweepArgs is the argument list of a Sweep kernel.
func sweepArgs(x cuda.DevicePtr, chains, sweeps int, st Stream) []any {
	return []any{x, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain}
}

// tracedArgs is the argument list of a Sweep kernel's traced entry point.
func tracedArgs(x cuda.DevicePtr, chains, sweeps int, st Stream, t traceArgs) []any {
	return append(sweepArgs(x, chains, sweeps, st), t.out, t.thin, t.chain0, t.chains, t.index, t.cols)
}

// chebArgs are a Chebyshev launch's arguments: the coefficient table (on
// the device, kernels.ChebyshevStride per iteration) and the previous
// iterates; the zero value means other sweeps.
type chebArgs struct {
	table, prev cuda.DevicePtr
}

// exactArgs is the argument list of the Matrix strategy's Ext entry point
// for one exact draw of every chain (kernels.MatrixExactKind).
func exactArgs(x cuda.DevicePtr, chains int, st Stream) []any {
	return extArgs(x, chains, 1, st, kernels.MatrixExactKind, chebArgs{}, traceArgs{})
}

// extArgs is the argument list of a Sweep kernel's Ext entry point.
func extArgs(x cuda.DevicePtr, chains, sweeps int, st Stream, kind SweepKind, ch chebArgs, t traceArgs) []any {
	return append(sweepArgs(x, chains, sweeps, st), uint32(kind), ch.table, ch.prev,
		t.out, t.thin, t.chain0, t.chains, t.index, t.cols)
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

// transformArgs is the argument list of the Transform kernel.
func transformArgs(out cuda.DevicePtr, first uint32, n int) []any {
	return []any{out, first, uint32(n)}
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

// checkArgs checks a launch's arguments against params, the parameters of
// the entry point name.
func checkArgs(name string, params []kernels.Param, args []any) error {
	kinds := make([]kernels.GoKind, len(args))
	for i, a := range args {
		kinds[i] = goKind(a)
	}
	if err := kernels.CheckArgs(name, params, kinds); err != nil {
		return fmt.Errorf("gibbsrt: %v", err)
	}
	return nil
}

// maxGridX is the CUDA limit on gridDim.x.
const maxGridX = 1<<31 - 1

// launch runs entry point e of k over units units (chains, or records)
// with k's geometry. It must run inside ctx.Do.
func (s *Sampler[T]) launch(l cuda.Locked, k *kernels.Kernel, e kernels.Entry, units int, args ...any) error {
	name, params := k.EntryPoint(e)
	if err := checkArgs(name, params, args); err != nil {
		return err
	}
	g := k.Launch(s.m.Dim, dtypeOf[T]())
	blocks := g.Grid(units, s.sms)
	if blocks > maxGridX {
		return fmt.Errorf("gibbsrt: %d %s need %d blocks of kernel %s, over CUDA's grid limit %d", units, g.Unit, blocks, name, maxGridX)
	}
	fn := s.fn[name]
	if k.PTX {
		var err error
		if fn, err = s.specFunction(k, e); err != nil {
			return err
		}
	}
	return l.LaunchOn(s.stream, fn, [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(g.Threads), 1, 1}, uint32(g.Shared), args...)
}
