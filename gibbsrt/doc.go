// Package gibbsrt runs the Gibbs samplers that gibbsgen compiles: one
// dimension and element type per generated package, on an NVIDIA GPU
// (Sampler) or on the CPU (Reference, the twin), with the same bits on both.
// A generated package wraps this runtime for its dimension and re-exports
// what ordinary use needs, so most programs import only the package.
//
// # Samplers
//
// A sampler draws from the Gaussian N(mu, Q⁻¹) given by a precision matrix
// Q and a mean mu (SetModel). Its state is a batch of independent chains,
// a row-major [chains][dim] slice of float32 or float64; a sweep updates
// every coordinate of every chain from its full conditional, in place.
// SetScheme chooses the sweeps (forward, backward or symmetric, plain or
// over-relaxed, sequential or in the matrix form), Mixing predicts how
// fast they mix, SweepChebyshev accelerates burn-in, DrawExact starts
// chains at exact draws, and SetLinear gives each chain a linear term of
// its own, N(mu + Q⁻¹·h_c, Q⁻¹), as the Gaussian block of a larger sampler
// needs.
//
// Chains is what both samplers offer with the same argument types: code
// written against it runs on either. Open opens GPU 0, or the twin where
// there is no driver or device, and says which it chose. What only a GPU
// has (device state and traces, strategies, the per-model kernel) is on
// Sampler alone.
//
// # The stream
//
// The normals are a function of (Stream.Seed, chain, sweep, coordinate):
// Philox4x32-10 and a fixed transform, specified in package
// gibbsrt/stream with the single-precision arithmetic the kernels and the
// twin share, and versioned (the manifest's stream version). A call of sweeps sweeps
// over a batch uses chain Stream.Chain+c and sweeps Stream.Sweep …
// Stream.Sweep+sweeps−1, so results depend neither on how sweeps are
// split into calls, nor chains into batches, devices or machines (Shard),
// nor on the kernel that runs them. Advance Stream.Sweep by the sweeps
// done to continue a stream.
//
// # The twin
//
// Reference computes every update in the documented order with the same
// rounding as the kernels (see "The update order" in reference.go), so its
// states, traces and moments equal the GPU's bit for bit. It runs
// anywhere Go does, without a driver, and is what the GPU is tested
// against.
//
// # Arguments
//
// One rule per kind of argument, on both samplers:
//
//   - A state (x, prev, a host copy of device state) is a whole number of
//     chains: its length a multiple of dim, chains = len/dim. Where the
//     chain count is already fixed (DeviceState.Upload and Download, the
//     prev of SweepChebyshev, which matches x), the length must be exactly
//     chains×dim.
//   - An input the call reads whole (SweepNoise's noise) has exactly the
//     length the call reads.
//   - An output (SweepTrace's out, DeviceTrace.Download's out) must hold
//     at least what the call writes; the call writes a prefix, says how
//     long (SweepTrace's count; Records and Shape of a DeviceTrace), and
//     leaves the rest as it was.
//   - A selection left empty selects everything: Trace.Coords nil or of
//     length 0 traces every coordinate, as Trace.Chains 0 traces every
//     chain from FirstChain on, and NewMulti with no devices opens every
//     one.
//   - Counts (sweeps, chains, iterations) are at least 0; 0 chains or 0
//     sweeps is a no-op that still checks its arguments.
//
// # Errors
//
// A call refuses bad input with one error that names the value and the
// rule it breaks, and changes nothing; no panic crosses the API. Errors to
// tell apart: ModelError (SetModel), ErrClosed (any call after Close),
// ErrNoDriver and ErrNoDevice (wrapped by a generated package's New's
// error without libcuda.so.1 or a device), MissingKernelError (a call that needs a
// kernel the package was generated without: SetStrategy of a strategy it
// lacks, DrawExact without the Matrix strategy, SweepNoise beyond dim 64
// in float32 or 32 in float64, where generated packages omit the method),
// and DriverError (a failed driver call).
//
// # Concurrency
//
// A Sampler's methods are safe for concurrent use: calls are serialized,
// and each sampler queues its work on a stream of its own, so samplers
// used from different goroutines overlap on one device. A Reference is
// safe for concurrent calls on disjoint states once SetModel has
// returned; SetModel, SetScheme and SetLinear must not run concurrently
// with its other calls. A large Reference call sweeps its chains on every CPU.
//
// # Audiences
//
// This package is the samplers' API, for programs. Three packages beside
// it serve other readers: gibbsrt/stream specifies the random stream and
// the reference arithmetic the kernels and the twin share; gibbsimpl is
// the contract with generated code (the module description, the
// constructors and the version assertion), for generated code only; and
// gibbstest holds the suites the generated packages' tests run, which
// reach the device's stream entry points through an internal package.
package gibbsrt
