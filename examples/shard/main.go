// Command shard runs one shard of a sampling run and writes its moments,
// or merges the shards' files into the run's result (docs/GUIDE.md,
// "Several GPUs and machines"). Shard k of n of a run of -chains chains sweeps exactly
// those chains of the whole run (their Stream.Chain), on every GPU of the
// host (gibbsrt.Multi) or on the CPU twin, and writes the moments of its
// final states per block of 1024 chains of the run. Merging folds every
// block in the run's order, so any sharding gives the bits of the run in
// one process.
//
//	shard -chains 100000 -sweeps 200 -out shard.json   # shard from the environment
//	shard -merge shard-0.json,shard-1.json,...         # the run's means and variances
//
// The shard comes from -shard/-shards, or else from the environment of a
// Slurm job array (SLURM_ARRAY_TASK_ID) or a Kubernetes Indexed Job
// (JOB_COMPLETION_INDEX, with GIBBSGEN_SHARDS set to its completions);
// see gibbsrt.ShardFromEnv. The model is AR(1) of dim 8 with -rho. Exit
// status 0 on success, 1 on failure, 2 for invalid flags (as the flag
// package's own errors): -shards below 1, -shard below 0 or not below the
// shard count, a -devices entry that is not a number.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/mcstat"
	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

const (
	dim = gibbs8.Dim
	// block is the run's unit of moments: shards hold whole blocks, and
	// merging folds blocks in order, whatever the sharding.
	block = 1024
)

// File is what a shard writes.
type File struct {
	Chains, Sweeps int
	Seed           uint64
	Rho            float64
	Shard, Shards  int
	Blocks         []Block
}

// Block is the moments of the final states of chains Index·1024, ... of
// the run.
type Block struct {
	Index     int
	Count     float64
	Mean      []float64
	Comoments []float64
}

type options struct {
	chains, sweeps int
	shard, shards  int
	// shardSet and shardsSet: -shard and -shards were given; what was
	// not comes from the environment.
	shardSet, shardsSet bool
	seed                uint64
	rho                 float64
	out, merge          string
	cpu                 bool
	devices             string
	ordinals            []int // -devices, parsed
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) }

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.chains, "chains", 100000, "chains of the whole run")
	fs.IntVar(&o.sweeps, "sweeps", 200, "sweeps from the start (x = 0)")
	fs.IntVar(&o.shard, "shard", 0, "this shard's index, from 0 (default: from the environment, else 0)")
	fs.IntVar(&o.shards, "shards", 0, "shard count, at least 1 (default: from the environment, else 1)")
	fs.Uint64Var(&o.seed, "seed", 1, "stream seed")
	fs.Float64Var(&o.rho, "rho", 0.9, "AR(1) correlation of the model")
	fs.StringVar(&o.out, "out", "shard.json", "file to write the shard's moments to")
	fs.StringVar(&o.merge, "merge", "", "comma-separated shard files to merge and print instead of sampling")
	fs.BoolVar(&o.cpu, "cpu", false, "run the CPU twin even when a GPU is there")
	fs.StringVar(&o.devices, "devices", "", "comma-separated GPU ordinals (default: every visible GPU)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "shard: unexpected argument %q: shard takes flags only\n", fs.Arg(0))
		return 2
	}
	fs.Visit(func(f *flag.Flag) {
		o.shardSet = o.shardSet || f.Name == "shard"
		o.shardsSet = o.shardsSet || f.Name == "shards"
	})
	if err := o.check(); err != nil {
		fmt.Fprintln(stderr, "shard:", err)
		return 2
	}
	var err error
	if o.merge != "" {
		err = mergeFiles(strings.Split(o.merge, ","), stdout)
	} else {
		var k, n int
		var usage usageError
		if k, n, err = o.shardOf(getenv); err == nil {
			err = sample(o, k, n, stderr)
		} else if errors.As(err, &usage) {
			fmt.Fprintln(stderr, "shard:", err)
			return 2
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "shard:", err)
		return 1
	}
	return 0
}

// usageError is an error of the flags (exit 2) that only the
// environment's shard shows.
type usageError string

func (e usageError) Error() string { return string(e) }

// check validates the flags that sampling uses, each alone and -shard
// against -shards where both are given (shardOf checks the rest with the
// environment's shard).
func (o *options) check() error {
	if o.merge != "" {
		return nil
	}
	switch {
	case o.chains < 2:
		return fmt.Errorf("-chains %d: the run needs at least 2 chains (the merge prints their variances)", o.chains)
	case o.sweeps < 0:
		return fmt.Errorf("-sweeps %d: the sweep count must be >= 0", o.sweeps)
	case !(o.rho > -1 && o.rho < 1):
		return fmt.Errorf("-rho %v: the AR(1) correlation must be in (-1, 1)", o.rho)
	case o.shardsSet && o.shards < 1:
		return fmt.Errorf("-shards %d: the shard count must be at least 1", o.shards)
	case o.shardSet && o.shard < 0:
		return fmt.Errorf("-shard %d: the shard index must be at least 0", o.shard)
	case o.shardSet && o.shardsSet && o.shard >= o.shards:
		return fmt.Errorf("-shard %d: the shard index must be below -shards (%d): from 0 to %d", o.shard, o.shards, o.shards-1)
	}
	o.ordinals = nil
	for _, d := range strings.Split(o.devices, ",") {
		if d = strings.TrimSpace(d); d != "" {
			v, err := strconv.Atoi(d)
			if err != nil || v < 0 {
				return fmt.Errorf("-devices %q: %q is not a GPU ordinal (an integer >= 0)", o.devices, d)
			}
			o.ordinals = append(o.ordinals, v)
		}
	}
	return nil
}

// shardOf returns this process's shard k of n: -shard and -shards where
// given, the rest from the job scheduler's environment
// (gibbsrt.ShardFromEnv; shard 0 of 1 without one). A flag that does not
// fit the environment's shard is a usageError; an environment that
// gibbsrt.ShardFromEnv rejects is not.
func (o options) shardOf(getenv func(string) string) (k, n int, err error) {
	if o.shardSet && o.shardsSet {
		return o.shard, o.shards, nil
	}
	ek, en, fromEnv, err := gibbsrt.ShardFromEnv(getenv)
	if err != nil {
		return 0, 0, err
	}
	where := "the environment's"
	if !fromEnv {
		where = "without -shards or a job array in the environment, it is 1"
	}
	switch {
	case o.shardSet && o.shard >= en:
		return 0, 0, usageError(fmt.Sprintf("-shard %d: the shard index must be below the shard count, %d (%s)", o.shard, en, where))
	case o.shardsSet && ek >= o.shards:
		return 0, 0, usageError(fmt.Sprintf("-shards %d: the shard count must be above the shard index, %d (the environment's)", o.shards, ek))
	case o.shardSet:
		return o.shard, en, nil
	case o.shardsSet:
		return ek, o.shards, nil
	}
	return ek, en, nil
}

// model is AR(1) with correlation rho: Q tridiagonal, unit marginals.
func model(rho float64) ([][]float64, []float64) {
	q := make([][]float64, dim)
	for i := range q {
		q[i] = make([]float64, dim)
		q[i][i] = 1 + rho*rho
		if i == 0 || i == dim-1 {
			q[i][i] = 1
		}
		if i > 0 {
			q[i][i-1], q[i-1][i] = -rho, -rho
		}
	}
	for _, row := range q {
		for j := range row {
			row[j] /= 1 - rho*rho
		}
	}
	return q, make([]float64, dim)
}

// sample runs shard k of n and writes its file.
func sample(o options, k, n int, stderr io.Writer) error {
	// Shards hold whole blocks of the run. With more shards than blocks,
	// the last shards have none: they write a file without blocks, which
	// merges like any other, so that a job array of fixed size can run a
	// small run too.
	blocks := (o.chains + block - 1) / block
	b0, nb, err := gibbsrt.Shard(blocks, k, n)
	if err != nil {
		return err
	}
	f := File{Chains: o.chains, Sweeps: o.sweeps, Seed: o.seed, Rho: o.rho, Shard: k, Shards: n, Blocks: []Block{}}
	if nb == 0 {
		plural := "s"
		if blocks == 1 {
			plural = ""
		}
		fmt.Fprintf(stderr, "shard %d of %d: no chains: the run's %d chains make %d block%s of %d, fewer than the %d shards; writing a shard without blocks\n",
			k, n, o.chains, blocks, plural, block, n)
		return writeFile(o.out, f)
	}
	first, last := b0*block, min((b0+nb)*block, o.chains)
	x := make([]float32, (last-first)*dim)
	st := gibbsrt.Stream{Seed: o.seed, Chain: uint64(first)}
	if err := sweep(o, x, st, stderr); err != nil {
		return err
	}
	for b := b0; b < b0+nb; b++ {
		lo, hi := b*block-first, min((b+1)*block, o.chains)-first
		m, err := mcstat.NewMoments(dim)
		if err != nil {
			return err
		}
		if err := m.AddRows(x[lo*dim : hi*dim]); err != nil {
			return err
		}
		f.Blocks = append(f.Blocks, Block{Index: b, Count: m.Count(), Mean: m.Mean(), Comoments: m.Comoments()})
	}
	fmt.Fprintf(stderr, "shard %d of %d: chains %d..%d of %d, blocks %d..%d\n", k, n, first, last-1, o.chains, b0, b0+nb-1)
	return writeFile(o.out, f)
}

func writeFile(path string, f File) error {
	data, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// sweep runs the sweeps on every GPU (gibbsrt.Multi), or on the CPU twin.
func sweep(o options, x []float32, st gibbsrt.Stream, stderr io.Writer) error {
	q, mu := model(o.rho)
	if !o.cpu {
		mg, err := gibbs8.NewMulti(o.ordinals...)
		if gibbsrt.Fallback(err) { // as gibbs8.Open decides, for every GPU of the host
			fmt.Fprintf(stderr, "shard: no GPU (%v); running the CPU twin\n", err)
			o.cpu = true
		} else if err != nil {
			return err
		} else {
			defer mg.Close()
			if err := mg.SetModel(q, mu); err != nil {
				return err
			}
			return mg.Sweep(x, o.sweeps, st)
		}
	}
	r := gibbs8.NewReference()
	if err := r.SetModel(q, mu); err != nil {
		return err
	}
	return r.Sweep(x, o.sweeps, st)
}

// merge folds the blocks of the files in the run's order.
func merge(files []File) (*mcstat.Moments, error) {
	if len(files) == 0 {
		return nil, errors.New("no shard files")
	}
	var blocks []Block
	for _, f := range files {
		if f.Chains != files[0].Chains || f.Sweeps != files[0].Sweeps || f.Seed != files[0].Seed || f.Rho != files[0].Rho {
			return nil, fmt.Errorf("shard %d of %d is of another run (chains, sweeps, seed or rho differ)", f.Shard, f.Shards)
		}
		blocks = append(blocks, f.Blocks...)
	}
	slices.SortFunc(blocks, func(a, b Block) int { return a.Index - b.Index })
	want := (files[0].Chains + block - 1) / block
	for i, b := range blocks {
		if b.Index != i {
			return nil, fmt.Errorf("block %d is missing or repeated (have %d blocks of %d)", i, len(blocks), want)
		}
	}
	if len(blocks) != want {
		return nil, fmt.Errorf("have %d blocks of the run's %d: a shard is missing", len(blocks), want)
	}
	total, err := mcstat.NewMoments(dim)
	if err != nil {
		return nil, err
	}
	for _, b := range blocks {
		m, err := mcstat.FromComoments(dim, b.Count, b.Mean, b.Comoments)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", b.Index, err)
		}
		if err := total.Merge(m); err != nil {
			return nil, err
		}
	}
	return total, nil
}

func mergeFiles(paths []string, stdout io.Writer) error {
	var files []File
	for _, p := range paths {
		data, err := os.ReadFile(strings.TrimSpace(p))
		if err != nil {
			return err
		}
		var f File
		if err := json.Unmarshal(data, &f); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		files = append(files, f)
	}
	m, err := merge(files)
	if err != nil {
		return err
	}
	cov, err := m.Covariance()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d chains after %d sweeps (AR(1), rho %v; exact: mean 0, variance 1)\n", int(m.Count()), files[0].Sweeps, files[0].Rho)
	fmt.Fprintf(stdout, "%3s %22s %22s\n", "i", "mean", "variance")
	for i, v := range m.Mean() {
		fmt.Fprintf(stdout, "%3d %22.17g %22.17g\n", i, v, cov.At(i, i))
	}
	return nil
}
