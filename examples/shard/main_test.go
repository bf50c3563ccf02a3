package main

import (
	"bytes"
	"path/filepath"
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
