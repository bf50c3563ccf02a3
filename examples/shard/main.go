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
// see gibbsrt.ShardFromEnv. The model is AR(1) of dim 8 with -rho.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
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
	seed           uint64
	rho            float64
	out, merge     string
	cpu            bool
	devices        string
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, os.Getenv)) }

func run(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("shard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.chains, "chains", 100000, "chains of the whole run")
	fs.IntVar(&o.sweeps, "sweeps", 200, "sweeps from the start (x = 0)")
	fs.IntVar(&o.shard, "shard", -1, "this shard's index (default: from the environment, else 0)")
	fs.IntVar(&o.shards, "shards", 0, "shard count (default: from the environment, else 1)")
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
	if err := o.check(); err != nil {
		fmt.Fprintln(stderr, "shard:", err)
		return 2
	}
	var err error
	if o.merge != "" {
		err = mergeFiles(strings.Split(o.merge, ","), stdout)
	} else {
		err = sample(o, stderr, getenv)
	}
	if err != nil {
		fmt.Fprintln(stderr, "shard:", err)
		return 1
	}
	return 0
}

// check validates the flags that sampling uses (shard and shards are
// checked with the environment's, by gibbsrt.Shard).
func (o options) check() error {
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
	}
	return nil
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

func sample(o options, stderr io.Writer, getenv func(string) string) error {
	k, n := o.shard, o.shards
	if k < 0 || n == 0 {
		ek, en, _, err := gibbsrt.ShardFromEnv(getenv)
		if err != nil {
			return err
		}
		if k < 0 {
			k = ek
		}
		if n == 0 {
			n = en
		}
	}
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
		var devices []int
		for _, d := range strings.Split(o.devices, ",") {
			if d = strings.TrimSpace(d); d != "" {
				var v int
				if _, err := fmt.Sscan(d, &v); err != nil {
					return fmt.Errorf("-devices %q: %v", o.devices, err)
				}
				devices = append(devices, v)
			}
		}
		mg, err := gibbs8.NewMulti(devices...)
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
