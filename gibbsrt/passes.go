package gibbsrt

import (
	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The matrix form's sweeps as a launch a pass (gibbs_matrix_pass,
// kernels.MatrixPassShape): each pass reads the state from one array and
// writes it to another, so that its GEMM-shaped tiles need not hold a
// chain's every coordinate. The arrays are the state itself and scratch
// buffer passScratch, grown to the batch; the last pass writes the state.

// passScratch is the scratch buffer that holds the state between passes.
const passScratch = 3

// passArgs are the pass kernel's values: the pass in frame f of the
// launch's sweep sweep (the stream's sweep st.Sweep + sweep), from x into
// y.
func passArgs(x, y cuda.DevicePtr, chains, f int, st Stream, sweep int) argValues {
	return argValues{{"x", uint64(x)}, {"y", uint64(y)}, {"chains", uint64(chains)}, {"frame", uint64(f)},
		{"seed", st.Seed}, {"sweep", st.Sweep + uint64(sweep)}, {"chain0", st.Chain}}
}

// passKernel returns the module's pass kernel where the sampler runs the
// matrix form's plain sweeps (no trace t, no Chebyshev iteration ch) a
// launch a pass, which only a test or the bench asks for until a GPU run
// has checked it (matrixPasses); nil otherwise. The caller holds s.mu.
func (s *Sampler[T]) passKernel(k *kernels.Kernel, t traceArgs, ch chebArgs) *kernels.Kernel {
	if !s.matrixPasses || k.Strategy != Matrix || t.out != 0 || ch.table != 0 {
		return nil
	}
	pk, err := s.entry(kernels.MatrixPass, Auto)
	if err != nil {
		return nil
	}
	return pk
}

// launchPasses queues sweeps sweeps of the scheme over the chains at x,
// a launch of the pass kernel k a pass, alternating between x and the
// scratch buffer so that the last pass writes x: where the passes are odd
// in number the first reads a copy of x. It must run inside ctx.Do, with
// s.mu held.
func (s *Sampler[T]) launchPasses(l cuda.Locked, k *kernels.Kernel, x cuda.DevicePtr, chains, sweeps int, st Stream) error {
	frames := s.p.scheme.Kind.Frames()
	bytes := uint64(chains) * uint64(s.m.Dim) * elemSize[T]()
	tmp, err := s.scratchBuffer(l, passScratch, bytes)
	if err != nil {
		return err
	}
	src, dst, copyFirst := passStart(sweeps*len(frames), x, tmp)
	if copyFirst {
		if err := l.CopyDeviceAsync(tmp, x, bytes, s.stream); err != nil {
			return err
		}
	}
	for i := range sweeps {
		for _, f := range frames {
			if err := s.launch(l, k, kernels.EntryPlain, chains, passArgs(src, dst, chains, f, st, i)); err != nil {
				return err
			}
			src, dst = dst, src
		}
	}
	return nil
}

// passStart returns the arrays the first of n passes reads and writes,
// each later pass reading what the one before wrote and writing the
// other, so that the last writes x: x into tmp where n is even; where it
// is odd, a copy of x in tmp (copyFirst) into x.
func passStart(n int, x, tmp cuda.DevicePtr) (src, dst cuda.DevicePtr, copyFirst bool) {
	if n%2 == 1 {
		return tmp, x, true
	}
	return x, tmp, false
}

// setMatrixPasses (a test hook) has later plain sweeps of the matrix form
// run a launch a pass through the pass kernel (On), or through the matrix
// strategy's kernel (the default until a GPU run has checked it); it
// reports whether the module has the pass kernel.
func (s *Sampler[T]) setMatrixPasses(p impl.MatrixPasses) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.matrixPasses = p.On
	_, err := s.entry(kernels.MatrixPass, Auto)
	return err == nil
}
