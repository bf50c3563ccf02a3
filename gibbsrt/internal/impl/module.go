// Package impl holds what gibbsrt shares with the packages beside it and
// does not export: the module description generated code fills in (as
// gibbsimpl.Module), and the link to gibbsrt's unexported entry points.
package impl

import (
	"errors"
	"fmt"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Module describes a generated module: its dimension and dtype, its
// device code, and the kernels gibbsgen compiled into it. The runtime loads
// exactly those: a package may hold only some strategies, and Auto chooses
// among what it has.
type Module struct {
	Dim     int
	DType   string // element type of the state and tables: "float32"
	Fatbin  []byte
	PTX     []byte   // the per-model kernel with its coefficient markers, if the package has one
	Kernels []string // entry points, rows of the kernel table
	// ABI is the kernels.ABIVersion of the gibbsgen that wrote the
	// package; 0 in packages from before version 10, which did not record
	// it. What a kernel of the table does differs between versions where
	// the runtime asks this (Geometry.PlainLoops: from 10).
	ABI int
}

// PlainLoopsABI is the first version whose thread-per-chain plain entry
// points loop over their groups (kernels.Geometry.PlainLoops): launched
// with a capped grid, an older package's would leave chains unswept.
const PlainLoopsABI = 10

// Resolve resolves m.Kernels against the table and checks that the module
// can run: a known dtype this runtime samples, every kernel known and
// supporting the dim and dtype, and at least one sweep strategy.
func (m Module) Resolve(want kernels.DType) ([]*kernels.Kernel, error) {
	if m.Dim < 1 {
		return nil, fmt.Errorf("gibbsrt: module dim %d; it must be at least 1", m.Dim)
	}
	if len(m.Fatbin) == 0 {
		return nil, errors.New("gibbsrt: module has no device code")
	}
	dt, err := kernels.ParseDType(m.DType)
	if err != nil {
		return nil, fmt.Errorf("gibbsrt: module: %v", err)
	}
	if dt != want {
		return nil, fmt.Errorf("gibbsrt: module dtype %s, but the sampler's element type is %s", dt, want)
	}
	var out []*kernels.Kernel
	strategies := 0
	for _, name := range m.Kernels {
		k := kernels.Named(name)
		if k == nil {
			return nil, fmt.Errorf("gibbsrt: module lists kernel %q, which this runtime does not know; regenerate the package", name)
		}
		if !k.Supports(m.Dim, dt) {
			return nil, fmt.Errorf("gibbsrt: module lists kernel %s, which does not support dim %d %s", name, m.Dim, dt)
		}
		for _, o := range out {
			if o == k {
				return nil, fmt.Errorf("gibbsrt: module lists kernel %s twice", name)
			}
		}
		if k.PTX && len(m.PTX) == 0 {
			return nil, fmt.Errorf("gibbsrt: module lists kernel %s but has no PTX", name)
		}
		if k.Role == kernels.Sweep {
			strategies++
		}
		out = append(out, k)
	}
	if strategies == 0 {
		return nil, errors.New("gibbsrt: module has no sweep kernel")
	}
	return out, nil
}
