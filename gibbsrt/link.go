package gibbsrt

import "github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"

// The entry points gibbsrt keeps unexported and hands to its neighbours
// (internal/impl): the constructors of generated code, through package
// gibbsimpl, and the device's stream hooks, to package gibbstest.
func init() {
	link[float32]()
	link[float64]()
}

func link[T Float]() {
	impl.Set(newSampler[T])
	impl.Set(newMulti[T])
	impl.Set((*Sampler[T]).module)
	impl.Set((*Sampler[T]).philox)
	impl.Set((*Sampler[T]).normals)
	impl.Set((*Sampler[T]).transform)
	impl.Set((*Sampler[T]).setChebyshevInRows)
	impl.Set((*Sampler[T]).lastChebyshevShared)
	impl.Set((*Sampler[T]).setStagedNormals)
	impl.Set((*Sampler[T]).setPulledSums)
	impl.Set((*Sampler[T]).setPulledByLaunch)
	impl.Set((*Sampler[T]).setFusedShift)
	impl.Set((*Sampler[T]).setMatrixPasses)
	impl.Set((*Sampler[T]).setExactKernel)
}
