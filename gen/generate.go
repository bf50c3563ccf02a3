package gen

import "context"

// Generate runs the pipeline from a validated spec to the package's files:
// render the CUDA source, compile it with tc (the fatbin, and the PTX of a
// per-model kernel), and assemble the Go package.
// It writes nothing; pass the result to Write.
func Generate(ctx context.Context, s Spec, tc *Toolchain, threads int) (Package, Build, error) {
	if err := s.Validate(); err != nil {
		return Package{}, Build{}, err
	}
	targets := s.Arch
	if len(targets) == 0 {
		targets = tc.DefaultTargets()
	} else if err := tc.CheckArch(targets); err != nil {
		return Package{}, Build{}, err
	}
	src, err := RenderCUDA(s)
	if err != nil {
		return Package{}, Build{}, err
	}
	psrc, hasPTX, err := RenderPTXSource(s)
	if err != nil {
		return Package{}, Build{}, err
	}
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
			ptx, err := tc.CompilePTX(ctx, psrc, PTXArch(targets))
			ptxDone <- ptxResult{ptx, err}
		}()
	}
	b, err := tc.Compile(ctx, src, targets, threads, s.AllowSpills)
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
		b.PTX, b.PTXArch = r.ptx, PTXArch(targets)
	}
	pkg, err := GoPackage(s, src, b)
	return pkg, b, err
}
