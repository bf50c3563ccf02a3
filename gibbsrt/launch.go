package gibbsrt

import (
	"fmt"
	"math"
	"slices"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The kernel ABI is written once, in the table's parameter lists: gen
// renders the entry points' signatures from them, and a launch builds its
// argument list from them. The builders below only name the values a
// launch has; launch takes those the entry point's list names, in its
// order, each passed as its kind says.

// arg is one launch value and the parameter name it is passed as.
type arg struct {
	name string
	v    uint64
}

// argValues are a launch's values by parameter name. A slice, not a map:
// a launch has at most 16, and it is built on every call.
type argValues []arg

// index returns the position of the value passed as name, -1 if none is.
func (vs argValues) index(name string) int {
	return slices.IndexFunc(vs, func(a arg) bool { return a.name == name })
}

// value returns the value passed as name, 0 if none is.
func (vs argValues) value(name string) uint64 {
	if i := vs.index(name); i >= 0 {
		return vs[i].v
	}
	return 0
}

// args returns the argument list of entry point name with params: each
// parameter's value, as a device pointer, a uint64 or a uint32.
func (vs argValues) args(name string, params []kernels.Param) ([]any, error) {
	out := make([]any, len(params))
	for i, p := range params {
		j := vs.index(p.Name)
		if j < 0 {
			return nil, fmt.Errorf("gibbsrt: kernel %s argument %d (%s): the launch has no value for it", name, i, p.Name)
		}
		v := vs[j].v
		switch p.Kind.Go() {
		case kernels.GoPointer:
			out[i] = cuda.DevicePtr(v)
		case kernels.GoUint64:
			out[i] = v
		case kernels.GoUint32:
			if v > math.MaxUint32 {
				return nil, fmt.Errorf("gibbsrt: kernel %s argument %d (%s) = %d; it must fit 32 bits", name, i, p.Name, v)
			}
			out[i] = uint32(v)
		default:
			return nil, fmt.Errorf("gibbsrt: kernel %s argument %d (%s) has kind %v", name, i, p.Name, p.Kind.Go())
		}
	}
	return out, nil
}

// traceArgs are a traced sweep launch's trace arguments; the zero value
// means a plain launch.
type traceArgs struct {
	out, index     cuda.DevicePtr
	coord          cuda.DevicePtr // per column, its coordinate (the linear term's shift of records)
	thin, cols     uint32
	chain0, chains uint64
}

// chebArgs are a Chebyshev launch's arguments: the coefficient table (on
// the device, kernels.ChebyshevStride per iteration) and the previous
// iterates; the zero value means other sweeps.
type chebArgs struct {
	table, prev cuda.DevicePtr
}

// sweepArgs are a Sweep kernel's values: the state and the stream.
func sweepArgs(x cuda.DevicePtr, chains, sweeps int, st Stream) argValues {
	return argValues{{"x", uint64(x)}, {"chains", uint64(chains)}, {"sweeps", uint64(sweeps)},
		{"seed", st.Seed}, {"sweep0", st.Sweep}, {"chain0", st.Chain}}
}

// values are the trace's values.
func (t traceArgs) values() argValues {
	return argValues{{"trace", uint64(t.out)}, {"thin", uint64(t.thin)}, {"trace_chain0", t.chain0},
		{"trace_chains", t.chains}, {"trace_index", uint64(t.index)}, {"trace_cols", uint64(t.cols)}}
}

// exactArgs are the Matrix strategy's Ext entry point's values for one
// exact draw of every chain (kernels.MatrixExactKind).
func exactArgs(x cuda.DevicePtr, chains int, st Stream) argValues {
	return extArgs(x, chains, 1, st, kernels.MatrixExactKind, chebArgs{}, traceArgs{})
}

// extArgs are a Sweep kernel's values for any of its entry points: the
// plain one takes the state and the stream, the traced one the trace too,
// the Ext one all.
func extArgs(x cuda.DevicePtr, chains, sweeps int, st Stream, kind SweepKind, ch chebArgs, t traceArgs) argValues {
	return append(append(sweepArgs(x, chains, sweeps, st),
		arg{"kind", uint64(kind)}, arg{"cheb", uint64(ch.table)}, arg{"prev", uint64(ch.prev)}), t.values()...)
}

// noiseArgs are the SweepNoise kernel's values.
func noiseArgs(x, noise cuda.DevicePtr, chains, sweeps int) argValues {
	return argValues{{"x", uint64(x)}, {"noise", uint64(noise)}, {"chains", uint64(chains)}, {"sweeps", uint64(sweeps)}}
}

// normalsArgs are the Normals kernel's values.
func normalsArgs(out cuda.DevicePtr, chains, sweeps int, st Stream) argValues {
	return argValues{{"out", uint64(out)}, {"chains", uint64(chains)}, {"sweeps", uint64(sweeps)},
		{"seed", st.Seed}, {"sweep0", st.Sweep}, {"chain0", st.Chain}}
}

// philoxArgs are the Philox kernel's values.
func philoxArgs(in, out cuda.DevicePtr, n int) argValues {
	return argValues{{"in", uint64(in)}, {"out", uint64(out)}, {"n", uint64(n)}}
}

// transformArgs are the Transform kernel's values.
func transformArgs(out cuda.DevicePtr, first uint32, n int) argValues {
	return argValues{{"out", uint64(out)}, {"first", uint64(first)}, {"n", uint64(n)}}
}

// linearArgs are gibbs_linear's values: the shifts d of the chains' linear
// terms h, from Q⁻¹ in float64 (p), and the flag of the first bad chain.
func linearArgs(d, h, p cuda.DevicePtr, chains int, bad cuda.DevicePtr) argValues {
	return argValues{{"d", uint64(d)}, {"h", uint64(h)}, {"p", uint64(p)}, {"chains", uint64(chains)}, {"bad", uint64(bad)}}
}

// familyTabs are gibbs_family's tables and per-chain buffers (0: not set)
// and the flags of its bad chains.
type familyTabs struct {
	m, md, b  cuda.DevicePtr
	members   int
	s, w, h   cuda.DevicePtr
	badChains cuda.DevicePtr
}

// familyArgs are gibbs_family's values: a sweep kernel's and the family's.
func familyArgs(x cuda.DevicePtr, chains, sweeps int, st Stream, f familyTabs) argValues {
	return append(sweepArgs(x, chains, sweeps, st), f.values()...)
}

// familyExactArgs are gibbs_family_exact's values: the state, the stream
// (no sweep count: one draw) and the family's.
func familyExactArgs(x cuda.DevicePtr, chains int, st Stream, f familyTabs) argValues {
	return append(argValues{{"x", uint64(x)}, {"chains", uint64(chains)}, {"seed", st.Seed}, {"sweep0", st.Sweep},
		{"chain0", st.Chain}}, f.values()...)
}

// values are the family's tables and buffers (kernels' familyParams).
func (f familyTabs) values() argValues {
	return argValues{{"m", uint64(f.m)}, {"md", uint64(f.md)}, {"b", uint64(f.b)}, {"members", uint64(f.members)},
		{"s", uint64(f.s)}, {"w", uint64(f.w)}, {"h", uint64(f.h)}, {"bad", uint64(f.badChains)}}
}

// shiftArgs are gibbs_shift's values: n elements of out shifted by d, as
// rows of cols columns of the coordinates coord (0: the state).
func shiftArgs(out, d cuda.DevicePtr, n, rows uint64, cols uint32, coord cuda.DevicePtr, sub bool) argValues {
	b := uint64(0)
	if sub {
		b = 1
	}
	return argValues{{"out", uint64(out)}, {"d", uint64(d)}, {"n", n}, {"rows", rows}, {"cols", uint64(cols)},
		{"coord", uint64(coord)}, {"sub", b}}
}

// momentsArgs are the Moments kernel's values.
func momentsArgs(rows cuda.DevicePtr, n, k, perBlock int, partials cuda.DevicePtr) argValues {
	return argValues{{"rows", uint64(rows)}, {"n", uint64(n)}, {"k", uint64(k)}, {"per_block", uint64(perBlock)}, {"partials", uint64(partials)}}
}

// maxGridX is the CUDA limit on gridDim.x.
const maxGridX = 1<<31 - 1

// launch runs entry point e of k over units units (chains, or records)
// with k's geometry and the values vs, after uploading the on-demand
// tables k reads (demand). It must run inside ctx.Do, with s.mu held.
func (s *Sampler[T]) launch(l cuda.Locked, k *kernels.Kernel, e kernels.Entry, units int, vs argValues) error {
	name, params := k.EntryPoint(e)
	args, err := vs.args(name, params)
	if err != nil {
		return err
	}
	g := k.Launch(s.m.Dim, dtypeOf[T]())
	if err := s.demand(l, k); err != nil {
		return err
	}
	fn, chip := s.fn[name], s.chebChip[name]
	if k.PTX {
		var err error
		if fn, chip, err = s.specFunction(k, e); err != nil {
			return err
		}
	}
	resident := 0
	if e.Plain() && g.PlainLoops && s.m.ABI >= impl.PlainLoopsABI {
		if resident, err = s.residentBlocks(l, fn, g); err != nil {
			return err
		}
	}
	blocks := g.Grid(e, units, s.sms, resident)
	if blocks > maxGridX {
		return fmt.Errorf("gibbsrt: %d %s need %d blocks of kernel %s, over CUDA's grid limit %d", units, g.Unit, blocks, name, maxGridX)
	}
	shared := g.Shared
	if vs.value("cheb") != 0 { // a Chebyshev launch
		s.chebShared = 0
		if chip && !s.chebInRows {
			s.chebShared = g.ChebyshevShared
		}
		shared += s.chebShared
	}
	return l.LaunchOn(s.stream, fn, [3]uint32{uint32(blocks), 1, 1}, [3]uint32{uint32(g.Threads), 1, 1}, uint32(shared), args...)
}

// residentBlocks returns how many blocks of fn, a looping plain entry point
// of geometry g, a multiprocessor holds at once, asked of the driver once
// per function. It must run inside ctx.Do, with s.mu held.
func (s *Sampler[T]) residentBlocks(l cuda.Locked, fn cuda.Function, g kernels.Geometry) (int, error) {
	if n, ok := s.resident[fn]; ok {
		return n, nil
	}
	n, err := l.ResidentBlocks(fn, g.Threads, g.Shared)
	if err != nil {
		return 0, err
	}
	s.resident[fn] = n
	return n, nil
}
