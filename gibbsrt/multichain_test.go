package gibbsrt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// shardedTwins are n twins of traceModel, each holding shard k of n of a
// linear term and a precision per chain, as Multi's devices do.
func shardedTwins(t *testing.T, dim, chains, n int, h []float32, p *Precision[float32]) []*Reference[float32] {
	t.Helper()
	refs := make([]*Reference[float32], n)
	for i := range refs {
		refs[i] = traceModel(t, dim)
		part, err := shardRows(h, chains, dim, i, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := refs[i].SetLinear(part); err != nil {
			t.Fatal(err)
		}
		if p == nil {
			continue
		}
		pp, err := shardPrecision(p, dim, chains, i, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := refs[i].SetPrecision(pp); err != nil {
			t.Fatal(err)
		}
	}
	return refs
}

// TestShardedTermsReproduceTheRun: a linear term and a precision per chain
// split by shard, as Multi splits them across its devices, give each
// shard's chains of the whole run's sweeps and exact draws (with and
// without the precision), bit for bit,
// for every shard count (more shards than chains included).
func TestShardedTermsReproduceTheRun(t *testing.T) {
	const dim, chains, sweeps = 5, 11, 3
	rng := rand.New(rand.NewPCG(8, 3))
	h := make([]float32, chains*dim)
	w := make([]float32, chains*dim)
	scales := make([]float32, chains*2)
	for i := range h {
		h[i], w[i] = float32(rng.NormFloat64()), float32(rng.Float64())
	}
	for i := range scales {
		scales[i] = float32(0.5 + rng.Float64())
	}
	member := make([][]float64, dim)
	for i := range member {
		member[i] = make([]float64, dim)
		member[i][i] = 1
		if i > 0 {
			member[i][i-1], member[i-1][i] = 0.3, 0.3
		}
	}
	p := &Precision[float32]{Members: [][][]float64{member}, Scales: scales, Diag: w}
	x0 := make([]float32, chains*dim)
	for i := range x0 {
		x0[i] = float32(rng.NormFloat64())
	}
	st := Stream{Seed: 17, Sweep: 3, Chain: 1 << 40}
	for _, c := range []struct {
		name string
		p    *Precision[float32]
		call func(r *Reference[float32], x []float32, st Stream) error
	}{
		{"sweeps", p, func(r *Reference[float32], x []float32, st Stream) error { return r.Sweep(x, sweeps, st) }},
		{"exact draws", nil, func(r *Reference[float32], x []float32, st Stream) error { return r.DrawExact(x, st) }},
		{"exact draws with a precision", p, func(r *Reference[float32], x []float32, st Stream) error { return r.DrawExact(x, st) }},
	} {
		whole := slices.Clone(x0)
		if err := c.call(shardedTwins(t, dim, chains, 1, h, c.p)[0], whole, st); err != nil {
			t.Fatal(err)
		}
		for n := 2; n <= chains+2; n++ {
			refs := shardedTwins(t, dim, chains, n, h, c.p)
			got := slices.Clone(x0)
			err := sweepShards(n, chains, dim, got, st, func(i int, part []float32, st Stream) error {
				return c.call(refs[i], part, st)
			}, make([]int, n))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, whole) {
				t.Fatalf("%s: %d shards differ from the whole run", c.name, n)
			}
		}
	}
	// The check can fail: a shard given the whole run's first rows draws
	// other chains' targets.
	whole := slices.Clone(x0)
	if err := shardedTwins(t, dim, chains, 1, h, p)[0].Sweep(whole, sweeps, st); err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(x0)
	first, count, _ := Shard(chains, 1, 2)
	sub := st
	sub.Chain += uint64(first)
	wrong := shardedTwins(t, dim, count, 1, h[:count*dim], &Precision[float32]{Members: p.Members, Scales: scales[:count*2], Diag: w[:count*dim]})[0]
	if err := wrong.Sweep(got[first*dim:], sweeps, sub); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(got[first*dim:], whole[first*dim:]) {
		t.Error("a shard with the first chains' terms matched the run")
	}
}

// TestRenumberNamesTheRunsChain: a shard's error about its chain c names
// the run's chain first + c, wrapped or not; other errors pass unchanged.
func TestRenumberNamesTheRunsChain(t *testing.T) {
	const dim, chains, bad = 3, 10, 8
	w := make([]float32, chains*dim)
	w[bad*dim+2] = -100 // Q_8[2][2] < 0
	p := &Precision[float32]{Diag: w}
	for n := 1; n <= 4; n++ {
		i := 0
		for ; i < n; i++ {
			first, count, _ := Shard(chains, i, n)
			if bad < first+count {
				break
			}
		}
		first, _, _ := Shard(chains, i, n)
		part, err := shardPrecision(p, dim, chains, i, n)
		if err != nil {
			t.Fatal(err)
		}
		err = traceModel(t, dim).SetPrecision(part)
		if n > 1 && (err == nil || !strings.Contains(err.Error(), "chain 8's") == (first == 0)) {
			t.Fatalf("%d shards: shard %d's own error %v should name its chain %d", n, i, err, bad-first)
		}
		// A fresh error: renumber changes a chainError in place.
		wrapped := fmt.Errorf("context: %w", traceModel(t, dim).SetPrecision(part))
		err = onDevices([]int{7}, func(int) error { return renumber(err, first) })
		if err == nil || !strings.Contains(err.Error(), "chain 8's precision Q_c has diagonal entry [2][2]") || !strings.Contains(err.Error(), "device 7") {
			t.Errorf("%d shards: %v; want the run's chain 8 and device 7", n, err)
		}
		want := fmt.Sprintf("chain %d's precision", bad-first)
		if first > 0 {
			want = fmt.Sprintf("(the shard's chain %d is the run's chain 8)", bad-first)
		}
		if err := renumber(wrapped, first); !strings.Contains(err.Error(), want) {
			t.Errorf("%d shards, wrapped: %v; want %q", n, err, want)
		}
	}
	plain := errLinearChains(3, 4)
	if got := renumber(plain, 5); got.Error() != plain.Error() {
		t.Errorf("renumber changed %v to %v", plain, got)
	}
}
