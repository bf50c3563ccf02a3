package gibbstest

import (
	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
)

// device is what the GPU suites reach on a sampler beyond its public API:
// the device's stream entry points and the module it was loaded from,
// which gibbsrt keeps unexported and hands over through internal/impl.
type device[T gibbsrt.Float] struct{ s *gibbsrt.Sampler[T] }

func hooks[T gibbsrt.Float](s *gibbsrt.Sampler[T]) device[T] { return device[T]{s} }

// Philox evaluates Philox4x32-10 on the device for each (counter, key).
func (d device[T]) Philox(ctr [][4]uint32, key [][2]uint32) ([][4]uint32, error) {
	return philoxHook[T]()(d.s, ctr, key)
}

// Normals returns the normals of chains chains and sweeps sweeps of st,
// computed on the device, in SweepNoise's layout [sweeps][dim][chains].
func (d device[T]) Normals(chains, sweeps int, st gibbsrt.Stream) ([]T, error) {
	return normalsHook[T]()(d.s, chains, sweeps, st)
}

// Transform evaluates the stream's normal transform on the device for the
// words first, first+1, …, one per element of out.
func (d device[T]) Transform(first uint32, out []T) error {
	return transformHook[T]()(d.s, first, out)
}

// SetChebyshevInRows has later Chebyshev launches keep their iterates in
// x and prev rather than in shared memory.
func (d device[T]) SetChebyshevInRows(rows bool) { chebyshevInRowsHook[T]()(d.s, rows) }

// LastChebyshevShared is the dynamic shared memory in which the last
// Chebyshev launch kept its iterates: 0 for x and prev.
func (d device[T]) LastChebyshevShared() int { return lastChebyshevSharedHook[T]()(d.s) }

// SetStagedNormals has the per-model kernels of models set after it draw
// their Ext passes' normals before each pass (*staged) or inside it; nil
// restores the runtime's choice.
func (d device[T]) SetStagedNormals(staged *bool) { stagedNormalsHook[T]()(d.s, staged) }

// SetPulledSums has the per-model kernels of models set after it pull the
// sums of their plain sweeps (*pulled) or push them; nil restores the
// runtime's choice (pushed).
func (d device[T]) SetPulledSums(pulled *bool) { SetPulledSums(d.s, pulled) }

// SetPulledSums is device.SetPulledSums for the bench, which times the
// per-model kernel both ways.
func SetPulledSums[T gibbsrt.Float](s *gibbsrt.Sampler[T], pulled *bool) {
	pulledSumsHook[T]()(s, impl.PulledSums{Pulled: pulled})
}

// SetPulledByLaunch has later plain launches of the per-model kernel pull
// their sums where they are short (kernels.PullSums), once that entry
// point is compiled, or always push them (the default).
func (d device[T]) SetPulledByLaunch(on bool) { SetPulledByLaunch(d.s, on) }

// SetPulledByLaunch is device.SetPulledByLaunch for the bench, which times
// Auto both ways.
func SetPulledByLaunch[T gibbsrt.Float](s *gibbsrt.Sampler[T], on bool) {
	pulledByLaunchHook[T]()(s, impl.PulledByLaunch{On: on})
}

// SetMatrixPasses has later plain sweeps of the matrix form run a launch a
// pass through the pass kernel (on), or through the matrix strategy's
// kernel (the default), and reports whether the package has the pass
// kernel (from dim 65).
func (d device[T]) SetMatrixPasses(on bool) bool { return SetMatrixPasses(d.s, on) }

// SetMatrixPasses is device.SetMatrixPasses for the bench, which times the
// matrix form both ways.
func SetMatrixPasses[T gibbsrt.Float](s *gibbsrt.Sampler[T], on bool) bool {
	return matrixPassesHook[T]()(s, impl.MatrixPasses{On: on})
}

// SetFusedShift has later plain sweeps with a linear term run the
// per-model kernel's entry point that subtracts and adds the shifts itself
// (fused) where that kernel runs, or the shifts' own passes (the default).
func (d device[T]) SetFusedShift(fused bool) { SetFusedShift(d.s, fused) }

// SetFusedShift is device.SetFusedShift for the bench, which times a
// linear term both ways.
func SetFusedShift[T gibbsrt.Float](s *gibbsrt.Sampler[T], fused bool) {
	fusedShiftHook[T]()(s, impl.FusedShift{Fused: fused})
}

// Module returns the module the sampler was loaded from.
func (d device[T]) Module() impl.Module { return moduleHook[T]()(d.s) }

func philoxHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], [][4]uint32, [][2]uint32) ([][4]uint32, error) {
	return impl.Get[func(*gibbsrt.Sampler[T], [][4]uint32, [][2]uint32) ([][4]uint32, error)]()
}

func normalsHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], int, int, gibbsrt.Stream) ([]T, error) {
	return impl.Get[func(*gibbsrt.Sampler[T], int, int, gibbsrt.Stream) ([]T, error)]()
}

func transformHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], uint32, []T) error {
	return impl.Get[func(*gibbsrt.Sampler[T], uint32, []T) error]()
}

func moduleHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T]) impl.Module {
	return impl.Get[func(*gibbsrt.Sampler[T]) impl.Module]()
}

func chebyshevInRowsHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], bool) {
	return impl.Get[func(*gibbsrt.Sampler[T], bool)]()
}

func lastChebyshevSharedHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T]) int {
	return impl.Get[func(*gibbsrt.Sampler[T]) int]()
}

func stagedNormalsHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], *bool) {
	return impl.Get[func(*gibbsrt.Sampler[T], *bool)]()
}

func pulledSumsHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], impl.PulledSums) {
	return impl.Get[func(*gibbsrt.Sampler[T], impl.PulledSums)]()
}

func pulledByLaunchHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], impl.PulledByLaunch) {
	return impl.Get[func(*gibbsrt.Sampler[T], impl.PulledByLaunch)]()
}

func matrixPassesHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], impl.MatrixPasses) bool {
	return impl.Get[func(*gibbsrt.Sampler[T], impl.MatrixPasses) bool]()
}

func fusedShiftHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], impl.FusedShift) {
	return impl.Get[func(*gibbsrt.Sampler[T], impl.FusedShift)]()
}

func exactKernelHook[T gibbsrt.Float]() func(*gibbsrt.Sampler[T], string) ([]string, error) {
	return impl.Get[func(*gibbsrt.Sampler[T], string) ([]string, error)]()
}

// SetExactKernel has s's later exact draws run the module's exact-draw
// kernel called name, "" for the runtime's choice (kernels.ChooseExact),
// and returns the exact-draw kernels the module has, in table order: for
// the GPU suites, which check each against the twin, and the bench, which
// times each. An unknown name is an error, and changes nothing.
func SetExactKernel[T gibbsrt.Float](s *gibbsrt.Sampler[T], name string) ([]string, error) {
	return exactKernelHook[T]()(s, name)
}
