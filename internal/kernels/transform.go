package kernels

// StreamVersion names the random stream: Philox4x32-10 counters and keys and
// the normal transform (normal.go, with its table), as package gibbsrt/stream
// and docs/ARITHMETIC.md specify. Any change to the numbers a (seed, chain,
// sweep, coordinate) draws gets a new version, which the manifest and the
// README name, and new known-answer tests.
//
// Version 1 turned pairs of words into normals by Box-Muller with Cephes'
// float32 log, sin and cos. Version 2 turns each word into one normal by a
// table-driven inverse CDF: about a third of the instructions, tails out to
// 6.34 instead of 5.77.
const StreamVersion = 2
