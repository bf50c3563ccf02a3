package gibbsrt

import (
	"fmt"
	"math"
	"math/bits"
)

// Argument checks shared by the GPU sampler and its CPU twin, so that both
// refuse the same calls with the same errors, and so that a check that
// guards a GPU launch or allocation is exercised on the CPU too.

// mulInts returns a·b for a, b >= 0, and false when the product does not fit
// an int.
func mulInts(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

// checkNoiseArgs checks a SweepNoise call's state of lenX elements and
// noise of lenNoise, laid out [sweeps][dim][chains], and returns the
// chains.
func checkNoiseArgs(dim, lenX, lenNoise, sweeps int) (chains int, err error) {
	chains, err = checkSweepArgs(dim, lenX, sweeps, Stream{})
	if err != nil {
		return 0, err
	}
	want, ok := mulInts(sweeps, lenX) // sweeps×dim×chains
	if !ok {
		return 0, fmt.Errorf("gibbsrt: noise for %d sweeps of %d chains of dim %d has more elements than an int holds", sweeps, chains, dim)
	}
	if lenNoise != want {
		return 0, fmt.Errorf("gibbsrt: noise has %d elements, want sweeps×dim×chains = %d×%d×%d = %d", lenNoise, sweeps, dim, chains, want)
	}
	return chains, nil
}

// normalsLen checks a Normals call and returns the length of its result,
// chains×sweeps×dim elements of T.
func normalsLen[T Float](dim, chains, sweeps int, st Stream) (int, error) {
	if chains < 0 {
		return 0, fmt.Errorf("gibbsrt: chains = %d; it must be >= 0", chains)
	}
	lenX, ok := mulInts(chains, dim)
	if !ok {
		return 0, fmt.Errorf("gibbsrt: %d chains of dim %d have more elements than an int holds", chains, dim)
	}
	if _, err := checkSweepArgs(dim, lenX, sweeps, st); err != nil {
		return 0, err
	}
	n, ok := mulInts(lenX, sweeps)
	if !ok || uint64(n) > maxSliceBytes/elemSize[T]() {
		return 0, fmt.Errorf("gibbsrt: normals of %d chains × %d sweeps × dim %d need more than %d bytes, the most one Go slice may hold", chains, sweeps, dim, uint64(maxSliceBytes))
	}
	return n, nil
}

// maxSliceBytes is the most a slice this package allocates may take: Go's
// allocator refuses (with a panic, not an error) more than 2^48 bytes on
// 64-bit platforms, an int's range on 32-bit ones.
const maxSliceBytes = min(math.MaxInt, 1<<47)

// checkChains checks a chain count of at least least for a new state of
// dim-dimensional chains of T: its bytes must fit an int.
func checkChains[T Float](dim, chains, least int) error {
	if chains < least {
		return fmt.Errorf("gibbsrt: chains = %d; it must be at least %d", chains, least)
	}
	n, ok := mulInts(chains, dim)
	if !ok || uint64(n) > maxSliceBytes/elemSize[T]() {
		return fmt.Errorf("gibbsrt: chains = %d of dim %d: the state's bytes must fit an int (at most %d chains)", chains, dim, math.MaxInt/int(elemSize[T]())/dim)
	}
	_, err := checkSweepArgs(dim, n, 0, Stream{})
	return err
}

// checkOut checks that out, of n elements, holds records records: the
// rule of every output (doc.go, "Arguments"), SweepTrace's and
// DeviceTrace.Download's alike.
func (sh traceShape) checkOut(n, records int) error {
	want, ok := sh.sizeOK(records)
	if !ok {
		return fmt.Errorf("gibbsrt: %d records of %d chains × %d coordinates have more elements than an int holds", records, sh.rows, sh.cols)
	}
	if n < want {
		return fmt.Errorf("gibbsrt: trace output has %d elements; %d records of %d chains × %d coordinates need %d", n, records, sh.rows, sh.cols, want)
	}
	return nil
}

// sizeOK is size, and false when it does not fit an int.
func (sh traceShape) sizeOK(records int) (int, bool) {
	rc, ok := mulInts(sh.rows, sh.cols)
	if !ok {
		return 0, false
	}
	return mulInts(records, rc)
}
