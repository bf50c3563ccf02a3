package gen

import "context"

// Generate runs the pipeline from a validated spec to the package's files:
// render the CUDA source, compile it with tc, and assemble the Go package.
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
	b, err := tc.Compile(ctx, src, targets, threads, s.AllowSpills)
	if err != nil {
		return Package{}, Build{}, err
	}
	pkg, err := GoPackage(s, src, b)
	return pkg, b, err
}
