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
// This runtime runs versions 7 to 15 (gibbsgen 0.7.0 to what follows
// 0.16.0, whose packages are version 14): a version
// 7 package's per-model PTX has no GGZ marker and draws a pass's normals
// inside the pass, a version 7 or 8 package has no tiled exact-draw
// kernel, so its exact samples come from its matrix kernel's _ext entry
// point, with the same bits, and a package before version 10 records no
// ABI, so its thread-per-chain plain entry points, which run one group a
// block, get a block per group; a package before version 11 has no
// chain-per-thread exact-draw kernel, so its draws come from the tiled one,
// with the same bits, and a package before version 12 has no kernels for
// a linear term per chain, so its SetLinear returns a
// *MissingKernelError, and a package before version 13 has no kernel for
// a precision per chain, so its SetPrecision does the same, and a package
// before version 14 has no per-model exact-draw kernel, so its draws come
// from the others, with the same bits, and a package before version 15
// has no exact draw with a precision per chain, so its DrawExact returns
// a *MissingKernelError while one is set. Older packages stop at the
// assertion: their Go or their kernels no longer fit. CHANGELOG.md says what each version
// changed.
const (
	// GenVersion is the version gibbsgen writes into new packages.
	GenVersion = kernels.ABIVersion
	// MinVersion is the oldest generated-package version this runtime supports.
	MinVersion = 7
	// MaxVersion is the newest generated-package version this runtime supports.
	MaxVersion = 15
)

// EnforceVersion is used by generated code to assert compatibility; it has
// no other use.
type EnforceVersion uint
