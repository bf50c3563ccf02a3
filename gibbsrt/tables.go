package gibbsrt

import (
	"fmt"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// table returns the data of module table sym for the plan: its source
// (kernels.Source), in the layout of sym's row (kernels.Symbol.Layout),
// the matrix form's tables computed on first use.
func (p *plan[T]) table(sym kernels.Symbol) ([]T, error) {
	var src []T
	switch sym.Source {
	case kernels.SourceWeight:
		src = p.co.Weight
	case kernels.SourceOffset:
		src = p.co.Offset
	case kernels.SourceScale:
		src = p.co.Scale
	case kernels.SourceKeep:
		src = []T{p.co.Keep}
	case kernels.SourceMatM, kernels.SourceMatN, kernels.SourceMatC:
		mt, err := p.matrix()
		if err != nil {
			return nil, err
		}
		switch sym.Source {
		case kernels.SourceMatM:
			src = mt.M
		case kernels.SourceMatN:
			src = mt.N
		default:
			src = mt.C
		}
	default:
		return nil, fmt.Errorf("gibbsrt: module table %s has source %d, which this runtime does not know", sym.Name, int(sym.Source))
	}
	if sym.Layout == nil {
		return src, nil
	}
	out := make([]T, sym.Length(p.dim, dtypeOf[T]()))
	sym.Layout(p.dim, dtypeOf[T](), func(dst, i int) { out[dst] = src[i] })
	return out, nil
}

// Table returns the data of the module table called name (a table of the
// manifest's "symbols") for the installed model and scheme, as the GPU
// sampler uploads it: for a host that loads a module's kernels itself,
// and for the kernels' tests. It is an error before SetModel or for a
// table no kernel describes.
func (r *Reference[T]) Table(name string) ([]T, error) {
	sym, ok := kernels.SymbolNamed(name)
	if !ok {
		return nil, fmt.Errorf("gibbsrt: no module table is called %q", name)
	}
	if r.p == nil {
		return nil, fmt.Errorf("gibbsrt: Table(%q) called before SetModel", name)
	}
	return r.p.table(sym)
}
