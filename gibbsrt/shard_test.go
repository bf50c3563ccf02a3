package gibbsrt

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestShardCoversInOrder(t *testing.T) {
	for _, chains := range []int{0, 1, 2, 7, 100, 1 << 20, 1<<20 + 3} {
		for n := 1; n <= 9; n++ {
			next := 0
			for k := 0; k < n; k++ {
				first, count, err := Shard(chains, k, n)
				if err != nil {
					t.Fatal(err)
				}
				if first != next {
					t.Fatalf("Shard(%d, %d, %d): first %d, want %d (contiguous)", chains, k, n, first, next)
				}
				if lo := chains / n; count != lo && count != lo+1 {
					t.Fatalf("Shard(%d, %d, %d): %d chains, want %d or %d", chains, k, n, count, lo, lo+1)
				}
				next += count
			}
			if next != chains {
				t.Fatalf("%d shards of %d chains cover %d", n, chains, next)
			}
		}
	}
}

func TestShardRejects(t *testing.T) {
	for _, c := range []struct {
		chains, k, n int
		want         string
	}{
		{-1, 0, 1, "chain count must be >= 0"},
		{10, 0, 0, "shard count must be >= 1"},
		{10, 3, 3, "shard index must be from 0 to 2"},
		{10, -1, 3, "shard index must be from 0 to 2"},
	} {
		if _, _, err := Shard(c.chains, c.k, c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Shard(%d, %d, %d): %v, want %q", c.chains, c.k, c.n, err, c.want)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		name   string
		getenv func(string) string
		k, n   int
		ok     bool
		err    string
	}{
		{"none", env(), 0, 1, false, ""},
		{"slurm", env("SLURM_ARRAY_TASK_ID", "13", "SLURM_ARRAY_TASK_MIN", "10", "SLURM_ARRAY_TASK_COUNT", "4"), 3, 4, true, ""},
		{"kubernetes", env("JOB_COMPLETION_INDEX", "2", "GIBBSGEN_SHARDS", "5"), 2, 5, true, ""},
		{"kubernetes without count", env("JOB_COMPLETION_INDEX", "2"), 0, 0, false, "GIBBSGEN_SHARDS"},
		{"index past count", env("JOB_COMPLETION_INDEX", "5", "GIBBSGEN_SHARDS", "5"), 0, 0, false, "shard 5 of 5"},
		{"slurm step", env("SLURM_ARRAY_TASK_ID", "20", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_COUNT", "11"), 0, 0, false, "shard 20 of 11"},
		{"not a number", env("SLURM_ARRAY_TASK_ID", "x"), 0, 0, false, `SLURM_ARRAY_TASK_ID="x"`},
	} {
		k, n, ok, err := ShardFromEnv(c.getenv)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || k != c.k || n != c.n || ok != c.ok {
			t.Errorf("%s: %d of %d, %v, %v; want %d of %d, %v", c.name, k, n, ok, err, c.k, c.n, c.ok)
		}
	}
}

// TestShardsReproduceTheRun runs a batch whole on the CPU twin and as n
// shards (as Multi and separate machines do), and expects the same bits;
// shard k alone, with ShardStream, gives exactly its chains of the run.
func TestShardsReproduceTheRun(t *testing.T) {
	const dim, chains, sweeps = 5, 23, 4
	ref := traceModel(t, dim)
	rng := rand.New(rand.NewPCG(5, 6))
	x0 := make([]float32, chains*dim)
	for i := range x0 {
		x0[i] = float32(rng.NormFloat64())
	}
	st := Stream{Seed: 99, Sweep: 7, Chain: 1 << 33}
	whole := slices.Clone(x0)
	if err := ref.Sweep(whole, sweeps, st); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 6; n++ {
		got := slices.Clone(x0)
		err := sweepShards(n, chains, dim, got, st, func(_ int, part []float32, st Stream) error {
			return ref.Sweep(part, sweeps, st)
		}, make([]int, n))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, whole) {
			t.Errorf("%d shards differ from the whole run", n)
		}
		for k := 0; k < n; k++ {
			sub, count, err := ShardStream(st, chains, k, n)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := Shard(chains, k, n)
			part := slices.Clone(x0[first*dim : (first+count)*dim])
			if err := ref.Sweep(part, sweeps, sub); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(part, whole[first*dim:(first+count)*dim]) {
				t.Errorf("shard %d of %d alone differs from its chains of the run", k, n)
			}
		}
	}
	// The check can fail: shards that do not advance the stream's chain
	// draw other chains' normals.
	got := slices.Clone(x0)
	_ = sweepShards(3, chains, dim, got, st, func(_ int, part []float32, _ Stream) error {
		return ref.Sweep(part, sweeps, st)
	}, make([]int, 3))
	if slices.Equal(got, whole) {
		t.Error("shards sweeping with the run's stream unchanged matched the run")
	}
}

func TestSweepShardsNamesTheDevice(t *testing.T) {
	boom := errors.New("boom")
	x := make([]float32, 10*2)
	err := sweepShards(3, 10, 2, x, Stream{}, func(i int, _ []float32, _ Stream) error {
		if i == 1 {
			return boom
		}
		return nil
	}, []int{4, 7, 9})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "device 7") || strings.Contains(err.Error(), "device 4") {
		t.Errorf("error %v; want boom, naming device 7 alone", err)
	}
}
