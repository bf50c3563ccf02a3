package gen

import "context"

// Generate runs the pipeline from a spec to the package's files: validate
// and resolve the spec, render the CUDA source, compile it with tc (the
// fatbin, and the PTX of a per-model kernel), and assemble the Go package.
// It writes nothing; pass the result to Write. Errors are a *SpecError for
// a bad spec or target, an *NVCCError when nvcc fails, and a *SpillError
// when ptxas spills registers that s.AllowSpills does not accept.
func Generate(ctx context.Context, s Spec, tc *Toolchain, threads int) (Package, Build, error) {
	m, err := resolve(s)
	if err != nil {
		return Package{}, Build{}, err
	}
	targets := s.Arch
	if len(targets) == 0 {
		targets = tc.defaultTargets()
	} else if err := tc.checkArch(targets); err != nil {
		return Package{}, Build{}, err
	}
	src, psrc, err := m.render()
	if err != nil {
		return Package{}, Build{}, err
	}
	hasPTX, arch := m.hasPTX(), ptxArch(targets)
	// The PTX compile (the front end only) runs beside the fatbin's, on
	// another core: a package then takes about as long as its fatbin.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type ptxResult struct {
		ptx []byte
		err error
	}
	ptxDone := make(chan ptxResult, 1)
	if hasPTX {
		go func() {
			ptx, err := tc.compilePTX(ctx, psrc, arch)
			ptxDone <- ptxResult{ptx, err}
		}()
	}
	b, err := tc.compile(ctx, src, targets, threads, s.AllowSpills)
	if err != nil {
		cancel()
		if hasPTX {
			<-ptxDone // its scratch directory is removed before we return
		}
		return Package{}, Build{}, err
	}
	if hasPTX {
		r := <-ptxDone
		if r.err != nil {
			return Package{}, Build{}, r.err
		}
		b.PTX, b.PTXArch = r.ptx, arch
	}
	pkg, err := goPackage(m, src, psrc, b)
	return pkg, b, err
}
