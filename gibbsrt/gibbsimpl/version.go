package gibbsimpl

import "github.com/gibbsgen/gibbsgen/internal/kernels"

// Compatibility between generated packages and this runtime, in the style of
// protobuf's protoimpl.EnforceVersion. A generated package records the
// GenVersion of the gibbsgen that wrote it and asserts, at compile time,
//
//	const _ = gibbsimpl.EnforceVersion(G - gibbsimpl.MinVersion)
//	const _ = gibbsimpl.EnforceVersion(gibbsimpl.MaxVersion - G)
//
// A negative constant does not convert to the unsigned EnforceVersion, so a
// package generated for an incompatible runtime fails to build at those lines,
// whose comment tells the user to regenerate it.
//
// Version 2 (gibbsgen 0.2.0): the module description lists the kernels a
// package holds (ModuleSpec.Kernels, now Module.Kernels) and its dtype;
// device state is a DeviceState.
//
// Version 3 (gibbsgen 0.3.0): the sweep kernels take trace arguments, and
// a module has the moments kernel.
//
// Version 4 (gibbsgen 0.4.0): stream version 2 (the table-driven normal
// transform), and a module has the transform kernel. A version 3 package
// draws stream version 1, which this runtime's twin does not reproduce.
//
// Version 5 (gibbsgen 0.5.0): the matrix strategy (its kernels, the tables
// gibbs_mat_m, gibbs_mat_n and gibbs_mat_c, launches with dynamic shared
// memory), exact draws (DrawExact, DrawExactDevice) and Scheme.Form in the
// generated API. A version 4 package holds none of it and still runs.
//
// Version 6 (gibbsgen 0.6.0): the matrix kernel's _ext entry point loops
// over groups of chains and the runtime caps its grid (Geometry.PerSM),
// which a version 5 fatbin does not do: this runtime would skip chains of
// one. The generated API changed too (Run returns RunResult, Reference
// and Chains are aliases, NewReference takes the dim), so the Go of an
// earlier package does not build against this runtime: regenerate it.
//
// Version 7 (gibbsgen 0.7.0): the contract moved from package gibbsrt to
// this one (Module, NewSampler, NewMulti, OpenWith and the version
// assertion), and the device's stream hooks (Philox, Normals, Transform)
// left the public Sampler. The kernels are version 6's. A version 6
// package asserts gibbsrt.EnforceVersion, which no longer exists, so it
// fails to build at that line, whose comment says to regenerate it.
// gibbsgen 0.8.0 writes version 7 too: its thread-per-chain _ext entry
// points keep Chebyshev's iterates in dynamic shared memory when the launch
// gives them some (kernels.ChebyshevShared) and in x and prev otherwise, so
// a 0.7.0 package runs under this runtime and a 0.8.0 one under 0.7.0's.
//
// Version 8 (gibbsgen 0.9.0): the per-model kernel's PTX holds the marker
// GGZ, which the runtime writes as 1 or 0 to choose where the _ext entry
// point draws a pass's normals (before the pass or inside it). A runtime
// of version 7 leaves the marker in place and the driver rejects the PTX,
// so it refuses version 8 packages; this runtime still runs version 7
// ones, whose PTX has no marker and draws inside the pass.
//
// Version 9 (gibbsgen 0.10.0): a module with the matrix strategy holds the
// tiled exact-draw kernel (role "exact", gibbs_exact), whose grid counts
// tiles and loops (Geometry.Tiles, Geometry.Loops); DrawExact launches it.
// This runtime draws a version 7 or 8 package's exact samples with its
// matrix kernel's _ext entry point, kind 3, as before (the same bits); a
// version 8 runtime does not know the new kernel's role.
const (
	// GenVersion is the version gibbsgen writes into new packages.
	GenVersion = kernels.ABIVersion
	// MinVersion is the oldest generated-package version this runtime supports.
	MinVersion = 7
	// MaxVersion is the newest generated-package version this runtime supports.
	MaxVersion = 9
)

// EnforceVersion is used by generated code to assert compatibility; it has
// no other use.
type EnforceVersion uint
