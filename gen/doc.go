// Package gen is the gibbsgen generator as a Go library: what the gibbsgen
// command runs, for a Go program that generates sampler packages itself.
//
// A caller finds nvcc, describes the package, generates it and writes it:
//
//	tc, err := gen.FindNVCC(ctx, gen.OSEnv) // wraps ErrNoNVCC when there is none
//	s := gen.Spec{Dim: 8, Package: "gibbs8", Dir: "gibbs8"}
//	pkg, build, err := gen.Generate(ctx, s, tc, 2) // nvcc --threads 2
//	err = gen.Write(pkg) // replaces gibbs8/ atomically
//
// Generate validates the spec (an invalid field is a *SpecError naming the
// flag, the value and the rule), resolves it against the kernel table once
// (the kernels the package holds, split into the fatbin's and the PTX's,
// the element type, the strategies' layouts and the tables the kernels
// read), renders the CUDA source from templates/, compiles it with nvcc
// (an *NVCCError carries nvcc's output, a *SpillError the kernels ptxas
// spilled), and assembles the files: the Go binding, its tests, the CUDA
// source, the fatbin, the per-model kernel's PTX and the manifest
// (Manifest, ManifestName). Build reports the targets, the nvcc version,
// ptxas's resources per kernel and why the machine code might differ from
// another build's (Caveats).
//
// Write and CheckOutput refuse to replace a directory holding a file
// gibbsgen did not write, or one edited since (*OwnershipError). Check
// tells, without nvcc, whether a generated package is what this gibbsgen
// makes from its own fatbin, PTX and manifest.
//
// FindNVCC and Generate run nvcc, Write writes the output directory, Check
// and CheckOutput read it; nothing else touches the file system.
package gen
