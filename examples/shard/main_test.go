package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// runShard runs the command on the CPU twin with env as its environment.
func runShard(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"-cpu"}, args...), &out, &errb, func(k string) string { return env[k] }); code != 0 {
		t.Fatalf("shard %q: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// TestShardsMergeToTheRun shards a run three ways (flags, a Kubernetes
// Indexed Job's environment, a Slurm array's) and expects the merged
// moments to print the whole run's bits.
func TestShardsMergeToTheRun(t *testing.T) {
	dir := t.TempDir()
	common := []string{"-chains", "5000", "-sweeps", "20", "-seed", "7"}
	whole := filepath.Join(dir, "whole.json")
	runShard(t, nil, append(common, "-out", whole)...)
	want := runShard(t, nil, "-merge", whole)

	var byFlags, byK8s, bySlurm []string
	for k := 0; k < 3; k++ {
		f := filepath.Join(dir, "f"+strconv.Itoa(k)+".json")
		runShard(t, nil, append(common, "-shard", strconv.Itoa(k), "-shards", "3", "-out", f)...)
		byFlags = append(byFlags, f)
		f = filepath.Join(dir, "k"+strconv.Itoa(k)+".json")
		runShard(t, map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(k), "GIBBSGEN_SHARDS": "3"}, append(common, "-out", f)...)
		byK8s = append(byK8s, f)
		f = filepath.Join(dir, "s"+strconv.Itoa(k)+".json")
		runShard(t, map[string]string{"SLURM_ARRAY_TASK_ID": strconv.Itoa(k + 1), "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"}, append(common, "-out", f)...)
		bySlurm = append(bySlurm, f)
	}
	for name, files := range map[string][]string{"flags": byFlags, "kubernetes": byK8s, "slurm": bySlurm} {
		// Any order of the files: the blocks carry their place in the run.
		files = append(files[2:], files[:2]...)
		if got := runShard(t, nil, "-merge", strings.Join(files, ",")); got != want {
			t.Errorf("%s: merged shards print\n%s\nthe whole run\n%s", name, got, want)
		}
	}
	if !strings.Contains(want, "5000 chains after 20 sweeps") {
		t.Errorf("output %q", want)
	}

	// A missing shard, or one of another run, fails the merge.
	var out, errb bytes.Buffer
	if run([]string{"-merge", strings.Join(byFlags[:2], ",")}, &out, &errb, func(string) string { return "" }) == 0 {
		t.Error("merging 2 of 3 shards succeeded")
	}
	other := filepath.Join(dir, "other.json")
	runShard(t, nil, "-chains", "5000", "-sweeps", "21", "-seed", "7", "-shard", "2", "-shards", "3", "-out", other)
	if run([]string{"-merge", strings.Join(append(byFlags[:2], other), ",")}, &out, &errb, func(string) string { return "" }) == 0 {
		t.Error("merging a shard of another run succeeded")
	}
}

// TestMoreShardsThanBlocks: with more shards than blocks of 1024 chains,
// the shards without a block write a file without blocks (they used to
// panic), and every shard's file merges to the run's bits.
func TestMoreShardsThanBlocks(t *testing.T) {
	for _, c := range []struct{ chains, shards int }{{100, 2}, {2000, 4}, {2, 3}, {3000, 5}} {
		dir := t.TempDir()
		common := []string{"-chains", strconv.Itoa(c.chains), "-sweeps", "5", "-seed", "3"}
		whole := filepath.Join(dir, "whole.json")
		runShard(t, nil, append(common, "-out", whole)...)
		want := runShard(t, nil, "-merge", whole)
		blocks := (c.chains + 1023) / 1024
		var files []string
		for k := 0; k < c.shards; k++ {
			f := filepath.Join(dir, "s"+strconv.Itoa(k)+".json")
			var out, errb bytes.Buffer
			code := run(append([]string{"-cpu", "-shard", strconv.Itoa(k), "-shards", strconv.Itoa(c.shards), "-out", f}, common...), &out, &errb, func(string) string { return "" })
			if code != 0 {
				t.Fatalf("%d chains, shard %d of %d: exit %d: %s", c.chains, k, c.shards, code, errb.String())
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var file File
			if err := json.Unmarshal(data, &file); err != nil {
				t.Fatal(err)
			}
			empty := k >= blocks // gibbsrt.Shard gives the first shards one block each
			if got := len(file.Blocks) == 0; got != empty {
				t.Errorf("%d chains, shard %d of %d: %d blocks", c.chains, k, c.shards, len(file.Blocks))
			}
			if msg := "no chains: the run's " + strconv.Itoa(c.chains) + " chains make "; empty != strings.Contains(errb.String(), msg) {
				t.Errorf("%d chains, shard %d of %d: stderr %q", c.chains, k, c.shards, errb.String())
			}
			files = append(files, f)
		}
		if got := runShard(t, nil, "-merge", strings.Join(files, ",")); got != want {
			t.Errorf("%d chains in %d shards: merged shards print\n%s\nthe whole run\n%s", c.chains, c.shards, got, want)
		}
	}
}

// TestUsageErrors: invalid flags exit 2 with one line naming the flag,
// its value and the rule, and write nothing; -shard and -shards are
// checked alone, against each other, and against the environment's shard.
func TestUsageErrors(t *testing.T) {
	k8s := map[string]string{"JOB_COMPLETION_INDEX": "3", "GIBBSGEN_SHARDS": "4"}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"-chains", "1"}, nil, "shard: -chains 1: the run needs at least 2 chains (the merge prints their variances)\n"},
		{[]string{"-chains", "-5"}, nil, "shard: -chains -5: the run needs at least 2 chains (the merge prints their variances)\n"},
		{[]string{"-sweeps", "-1"}, nil, "shard: -sweeps -1: the sweep count must be >= 0\n"},
		{[]string{"-rho", "1"}, nil, "shard: -rho 1: the AR(1) correlation must be in (-1, 1)\n"},
		{[]string{"-rho", "NaN"}, nil, "shard: -rho NaN: the AR(1) correlation must be in (-1, 1)\n"},
		{[]string{"extra"}, nil, "shard: unexpected argument \"extra\": shard takes flags only\n"},
		{[]string{"-shards", "0"}, nil, "shard: -shards 0: the shard count must be at least 1\n"},
		{[]string{"-shards", "0"}, k8s, "shard: -shards 0: the shard count must be at least 1\n"},
		{[]string{"-shards", "-2", "-shard", "0"}, nil, "shard: -shards -2: the shard count must be at least 1\n"},
		{[]string{"-shard", "-1"}, nil, "shard: -shard -1: the shard index must be at least 0\n"},
		{[]string{"-shard", "3", "-shards", "3"}, nil, "shard: -shard 3: the shard index must be below -shards (3): from 0 to 2\n"},
		{[]string{"-shard", "1"}, nil, "shard: -shard 1: the shard index must be below the shard count, 1 (without -shards or a job array in the environment, it is 1)\n"},
		{[]string{"-shard", "4"}, k8s, "shard: -shard 4: the shard index must be below the shard count, 4 (the environment's)\n"},
		{[]string{"-shards", "3"}, k8s, "shard: -shards 3: the shard count must be above the shard index, 3 (the environment's)\n"},
		{[]string{"-devices", "0,x"}, nil, "shard: -devices \"0,x\": \"x\" is not a GPU ordinal (an integer >= 0)\n"},
		{[]string{"-devices", "-1"}, nil, "shard: -devices \"-1\": \"-1\" is not a GPU ordinal (an integer >= 0)\n"},
	} {
		out := filepath.Join(t.TempDir(), "shard.json")
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"-cpu", "-out", out}, c.args...), &stdout, &stderr, func(k string) string { return c.env[k] })
		if code != 2 || stderr.String() != c.want || stdout.Len() != 0 {
			t.Errorf("shard %q (environment %v): exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, c.env, code, stdout.String(), stderr.String(), c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("shard %q wrote %s", c.args, out)
		}
	}
}

// TestShardFlagsWithEnvironment: a flag given overrides the environment's
// value, and the other comes from the environment; an environment that
// gibbsrt.ShardFromEnv rejects is a failure (exit 1), not a usage error.
func TestShardFlagsWithEnvironment(t *testing.T) {
	k8s := map[string]string{"JOB_COMPLETION_INDEX": "1", "GIBBSGEN_SHARDS": "4"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "shard 1 of 4: "},
		{[]string{"-shard", "2"}, "shard 2 of 4: "},
		{[]string{"-shards", "2"}, "shard 1 of 2: "},
		{[]string{"-shard", "0", "-shards", "1"}, "shard 0 of 1: "},
	} {
		out := filepath.Join(t.TempDir(), "shard.json")
		var stdout, stderr bytes.Buffer
		args := append([]string{"-cpu", "-chains", "5000", "-sweeps", "1", "-out", out}, c.args...)
		if code := run(args, &stdout, &stderr, func(k string) string { return k8s[k] }); code != 0 || !strings.HasPrefix(stderr.String(), c.want) {
			t.Errorf("shard %q: exit %d, stderr %q; want exit 0 and %q...", c.args, code, stderr.String(), c.want)
		}
	}
	var stdout, stderr bytes.Buffer
	bad := map[string]string{"SLURM_ARRAY_TASK_ID": "x"}
	code := run([]string{"-cpu", "-out", filepath.Join(t.TempDir(), "shard.json")}, &stdout, &stderr, func(k string) string { return bad[k] })
	if want := "shard: gibbsrt: SLURM_ARRAY_TASK_ID=\"x\"; it must be an integer >= 0\n"; code != 1 || stderr.String() != want {
		t.Errorf("a bad environment: exit %d, stderr %q; want exit 1 and %q", code, stderr.String(), want)
	}
}

// TestSbatchSubmitCreatesOutputDir runs the submission command that
// array.sbatch documents with a fake sbatch, which fails unless the
// directory of the script's --output exists when it is called, as Slurm
// needs.
func TestSbatchSubmitCreatesOutputDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fake sbatch is a shell script")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("needs bash")
	}
	script, err := os.ReadFile("array.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	var submit string
	for _, line := range strings.Split(string(script), "\n") {
		if cmd, ok := strings.CutPrefix(line, "#   "); ok && strings.Contains(cmd, "sbatch array.sbatch") {
			submit = cmd
		}
	}
	if submit == "" {
		t.Fatal("array.sbatch documents no submission command (a comment line \"#   ... sbatch array.sbatch\")")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	const fake = `#!/bin/sh
out=$(sed -n 's/^#SBATCH --output=//p' "$1")
[ -n "$out" ] || { echo "fake sbatch: $1 has no --output" >&2; exit 1; }
[ -d "$(dirname "$out")" ] || { echo "fake sbatch: the directory of --output=$out does not exist" >&2; exit 1; }
echo "Submitted batch job 1"
`
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "array.sbatch"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, "-euc", submit)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", submit, err, out)
	}
}
