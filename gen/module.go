package gen

import (
	"slices"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// module is a validated spec resolved against the kernel table. resolve
// computes it once, and rendering, compiling, binding and the manifest all
// read it, so that no stage selects kernels or applies defaults again.
// Code that takes one calls it s, as it would the spec it resolves.
type module struct {
	Spec
	dtype  kernels.DType     // Spec.DType with the default applied
	all    []*kernels.Kernel // the rows the package holds, in table order
	fatbin image             // of all, the rows nvcc compiles into the fatbin
	ptx    image             // the rows shipped as PTX (the per-model kernel); often none
	tables []kernels.Symbol  // the tables all read, for the manifest
}

// image is the kernels of one compiled file, the fatbin or the PTX, and the
// tables they read: the file's source declares only those.
type image struct {
	kernels []*kernels.Kernel
	symbols []kernels.Symbol
}

func newImage(ks []*kernels.Kernel) image {
	return image{ks, kernels.SymbolsOf(ks)}
}

// resolve validates s and resolves it.
func resolve(s Spec) (*module, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	dt := s.dtype()
	all := s.kernels()
	isPTX := func(k *kernels.Kernel) bool { return k.PTX }
	return &module{
		Spec:   s,
		dtype:  dt,
		all:    all,
		fatbin: newImage(slices.DeleteFunc(slices.Clone(all), isPTX)),
		ptx:    newImage(slices.DeleteFunc(slices.Clone(all), func(k *kernels.Kernel) bool { return !isPTX(k) })),
		tables: kernels.SymbolsOf(all),
	}, nil
}

// hasPTX reports whether the module has a kernel shipped as PTX.
func (s *module) hasPTX() bool { return len(s.ptx.kernels) > 0 }
