package gibbsrt

import (
	"fmt"
	"strconv"
)

// Sharding a run
//
// A run's chains are independent, and chain c draws the normals of chain
// Stream.Chain + c wherever it runs (docs/ARITHMETIC.md, "The random
// stream"). So a
// run of chains chains can be split into shards, on several GPUs of a host
// (Multi) or on several machines, and shard k run alone, with its state
// holding only its chains and Stream.Chain advanced by its first chain,
// gives exactly those chains of the whole run, bit for bit.

// Shard returns the chains of shard k of n of a run of chains chains:
// first, first+1, ..., first+count−1. The shards are contiguous, in order,
// and their sizes differ by at most one.
func Shard(chains, k, n int) (first, count int, err error) {
	switch {
	case chains < 0:
		return 0, 0, fmt.Errorf("gibbsrt: shard of %d chains; the chain count must be >= 0", chains)
	case n < 1:
		return 0, 0, fmt.Errorf("gibbsrt: %d shards; the shard count must be >= 1", n)
	case k < 0 || k >= n:
		return 0, 0, fmt.Errorf("gibbsrt: shard %d of %d; the shard index must be from 0 to %d", k, n, n-1)
	}
	// The first r = chains mod n shards take one chain more; no product
	// chains·k, which could overflow.
	q, r := chains/n, chains%n
	first = k*q + min(k, r)
	count = q
	if k < r {
		count++
	}
	return first, count, nil
}

// ShardStream returns st for shard k of n of a run of chains chains: its
// Chain advanced by the shard's first chain, with the shard's chain count.
func ShardStream(st Stream, chains, k, n int) (Stream, int, error) {
	first, count, err := Shard(chains, k, n)
	if err != nil {
		return Stream{}, 0, err
	}
	st.Chain += uint64(first)
	return st, count, nil
}

// ShardFromEnv returns this process's shard index and count from the job
// scheduler's environment (getenv is os.Getenv, or a fake in tests):
//
//   - Slurm job arrays of consecutive indices (--array=A-B): k =
//     SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN, n = SLURM_ARRAY_TASK_COUNT;
//   - Kubernetes Indexed Jobs: k = JOB_COMPLETION_INDEX, and n from
//     GIBBSGEN_SHARDS, which the Job sets to its .spec.completions
//     (Kubernetes does not export the count).
//
// ok is false when neither is set (a run of one shard).
func ShardFromEnv(getenv func(string) string) (k, n int, ok bool, err error) {
	num := func(name string) (int, error) {
		v := getenv(name)
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return 0, fmt.Errorf("gibbsrt: %s=%q; it must be an integer >= 0", name, v)
		}
		return i, nil
	}
	switch {
	case getenv("SLURM_ARRAY_TASK_ID") != "":
		id, err := num("SLURM_ARRAY_TASK_ID")
		if err != nil {
			return 0, 0, false, err
		}
		lo, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return 0, 0, false, err
		}
		if n, err = num("SLURM_ARRAY_TASK_COUNT"); err != nil {
			return 0, 0, false, err
		}
		k = id - lo
	case getenv("JOB_COMPLETION_INDEX") != "":
		if k, err = num("JOB_COMPLETION_INDEX"); err != nil {
			return 0, 0, false, err
		}
		if n, err = num("GIBBSGEN_SHARDS"); err != nil {
			return 0, 0, false, fmt.Errorf("%w (set it to the Indexed Job's .spec.completions)", err)
		}
	default:
		return 0, 1, false, nil
	}
	if n < 1 || k >= n {
		return 0, 0, false, fmt.Errorf("gibbsrt: shard %d of %d from the environment; the index must be below the count, and the count >= 1", k, n)
	}
	return k, n, true, nil
}
