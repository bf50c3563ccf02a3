// Package gibbsimpl is for generated code only: it is the contract between
// gibbsrt and the packages gibbsgen writes, in the style of protobuf's
// protoimpl. A generated package describes its device code (Module),
// asserts that it matches this runtime (EnforceVersion), and makes its
// samplers with NewSampler, NewMulti and OpenWith (gibbsbench, which loads
// generated packages at run time, calls them too). Its API follows the
// generated-package version (MinVersion, MaxVersion) and changes with it,
// without the compatibility that gibbsrt promises its users: programs use
// the generated package, or gibbsrt.
package gibbsimpl

import (
	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
)

// Module describes a generated module: its dimension and dtype, its
// device code, and the kernels gibbsgen compiled into it. The runtime
// loads exactly those: a package may hold only some strategies, and Auto
// chooses among what it has.
type Module = impl.Module

// NewSampler opens CUDA device ordinal device, loads m's fatbin and
// resolves the kernels it lists. Without a driver or device it returns an
// error that wraps gibbsrt.ErrNoDriver or gibbsrt.ErrNoDevice.
func NewSampler[T gibbsrt.Float](m Module, device int) (*gibbsrt.Sampler[T], error) {
	return newSampler[T]()(m, device)
}

// newSampler and newMulti are gibbsrt's constructors (internal/impl).
func newSampler[T gibbsrt.Float]() func(impl.Module, int) (*gibbsrt.Sampler[T], error) {
	return impl.Get[func(impl.Module, int) (*gibbsrt.Sampler[T], error)]()
}

func newMulti[T gibbsrt.Float]() func(impl.Module, ...int) (*gibbsrt.Multi[T], error) {
	return impl.Get[func(impl.Module, ...int) (*gibbsrt.Multi[T], error)]()
}

// NewMulti opens a sampler of m on each of devices (CUDA ordinals, in the
// order the chains are split), or on every visible device if devices is
// empty (see gibbsrt.Multi).
func NewMulti[T gibbsrt.Float](m Module, devices ...int) (*gibbsrt.Multi[T], error) {
	return newMulti[T]()(m, devices...)
}

// GPU is a GPU sampler as OpenWith needs it.
type GPU[T gibbsrt.Float] interface {
	gibbsrt.Chains[T]
	Device() gibbsrt.Device
}

// OpenWith is a generated package's Open, with its constructors, so that
// it returns the package's own types: gpu(0), or twin() where gpu's error
// passes gibbsrt.Fallback, and the choice. Its results are the same bits
// either way. A module the runtime cannot run is an error whether or not
// there is a GPU (the module is checked before the device is opened), and
// so is any other error of gpu.
func OpenWith[T gibbsrt.Float, S GPU[T], R gibbsrt.Chains[T]](gpu func(device int) (S, error), twin func() R) (gibbsrt.Chains[T], gibbsrt.Choice, error) {
	s, err := gpu(0)
	switch {
	case err == nil:
		return s, gibbsrt.Choice{Backend: gibbsrt.OnGPU, Device: s.Device()}, nil
	case gibbsrt.Fallback(err):
		return twin(), gibbsrt.Choice{Backend: gibbsrt.OnTwin, Reason: err}, nil
	}
	return nil, gibbsrt.Choice{}, err
}
