package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/gibbsgen/gibbsgen/gen"
)

// TestMain lets the test binary act as gibbsgen: testscript puts a copy of
// it named gibbsgen on the scripts' PATH.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"gibbsgen": func() { os.Exit(runMain(os.Args, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar. Besides the standard commands
// and conditions, scripts have:
//
//	exits N prog [args...]  run prog (like exec) and require exit status N
//	dirtree DIR             print every entry under DIR, with a hash of each
//	                        file's contents, to stdout (for before/after cmp)
//	replace FILE OLD NEW    replace every OLD in FILE by NEW; OLD must occur
//	[nvcc]                  a real nvcc is found ($CUDACXX, $CUDA_HOME/bin,
//	                        PATH, /usr/local/cuda/bin); with CI=true a missing
//	                        nvcc fails the script instead of skipping it
//	[root]                  running as root, which ignores permission bits
//	[cudadefault]           /usr/local/cuda/bin/nvcc exists, so nvcc cannot be
//	                        hidden by emptying PATH
//
// and the variable $GIBBSGEN, the gibbsgen command's absolute path, for
// scripts that change PATH. CUDACXX and CUDA_HOME are passed through.
//
// For scripts that run the go command on a module of their own
// (gotool.txtar), $GIBBSGEN_MODULE is this checkout's module root, and the
// go command sees this machine's module and build caches but no network:
// GOPROXY=off (.ci/setup's go mod download fills the module cache) and
// GOSUMDB=off (sum.golang.org is out of reach; the cached modules were
// verified against this module's go.sum when they were downloaded).
// GOPATH is the script's own, GOFLAGS is empty (so -mod=readonly, the
// default) and GOTOOLCHAIN=local.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:       filepath.Join("testdata", "script"),
		Setup:     scriptSetup,
		Condition: scriptCondition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"dirtree": cmdDirtree,
			"replace": cmdReplace,
		},
	})
}

func scriptSetup(env *testscript.Env) error {
	for _, name := range []string{"CUDACXX", "CUDA_HOME"} {
		if v, ok := os.LookupEnv(name); ok {
			env.Setenv(name, v)
		}
	}
	self, err := exec.LookPath("gibbsgen")
	if err != nil {
		return fmt.Errorf("testscript did not put gibbsgen on PATH: %v", err)
	}
	env.Setenv("GIBBSGEN", self)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return fmt.Errorf("module root of this checkout: %v", err)
	}
	env.Setenv("GIBBSGEN_MODULE", root)
	goenv, err := goEnv()
	if err != nil {
		return nil // no go command: scripts that need it check [exec:go]
	}
	env.Setenv("GOCACHE", goenv.GOCACHE)
	env.Setenv("GOMODCACHE", goenv.GOMODCACHE)
	env.Setenv("GOPATH", filepath.Join(env.WorkDir, ".gopath"))
	env.Setenv("GOPROXY", "off")
	env.Setenv("GOSUMDB", "off")
	env.Setenv("GOFLAGS", "")
	env.Setenv("GOENV", "off")
	env.Setenv("GOTOOLCHAIN", "local")
	return nil
}

// goEnv is the go command's caches on this machine, which scripts share.
var goEnv = sync.OnceValues(func() (struct{ GOCACHE, GOMODCACHE string }, error) {
	var v struct{ GOCACHE, GOMODCACHE string }
	out, err := exec.Command("go", "env", "-json", "GOCACHE", "GOMODCACHE").Output()
	if err == nil {
		err = json.Unmarshal(out, &v)
	}
	return v, err
})

// findNVCC is what gibbsgen would find in the scripts' environment, which
// scriptSetup makes the same as the test's own.
var findNVCC = sync.OnceValues(func() (*gen.Toolchain, error) {
	return gen.FindNVCC(context.Background(), gen.OSEnv)
})

func inCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

func scriptCondition(cond string) (bool, error) {
	switch cond {
	case "nvcc":
		_, err := findNVCC()
		if err != nil && inCI() {
			return false, fmt.Errorf("CI=%s requires nvcc, which CI installs, but: %v", os.Getenv("CI"), err)
		}
		return err == nil, nil
	case "root":
		return os.Geteuid() == 0, nil
	case "cudadefault":
		fi, err := os.Stat("/usr/local/cuda/bin/nvcc")
		return err == nil && !fi.IsDir(), nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// cmdExits runs a program and requires a particular exit status; its
// stdout and stderr are then available to the stdout and stderr commands.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad status %q", args[0])
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// cmdDirtree prints every entry under a directory, sorted: directories
// with a trailing slash, files with their size and SHA-256, symlinks with
// their target. Hidden entries (such as a temporary directory left behind)
// are listed too.
func cmdDirtree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: dirtree DIR")
	}
	root := ts.MkAbs(args[0])
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(ts.Stdout(), "%s -> %s\n", rel, target)
		case d.IsDir():
			fmt.Fprintf(ts.Stdout(), "%s/\n", rel)
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			fmt.Fprintf(ts.Stdout(), "%s %d %x\n", rel, len(data), sha256.Sum256(data))
		}
		return nil
	})
	if err != nil {
		ts.Fatalf("dirtree: %v", err)
	}
	ts.Stdout() // an empty directory prints nothing, but stdout is still reset
}

// cmdReplace replaces every occurrence of a string in a file, which must
// hold it.
func cmdReplace(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: replace FILE OLD NEW")
	}
	path := ts.MkAbs(args[0])
	data, err := os.ReadFile(path)
	ts.Check(err)
	if !strings.Contains(string(data), args[1]) {
		ts.Fatalf("replace: %s does not contain %q", args[0], args[1])
	}
	ts.Check(os.WriteFile(path, []byte(strings.ReplaceAll(string(data), args[1], args[2])), 0o644))
}

// TestRunUsageExitsWithoutWork checks in-process what the scripts check
// through the binary: an invalid flag exits 2 with one line on stderr and
// nothing on stdout, before any nvcc lookup.
func TestRunUsageExitsWithoutWork(t *testing.T) {
	t.Setenv("CUDACXX", filepath.Join(t.TempDir(), "no-nvcc-here"))
	for _, args := range [][]string{
		{},
		{"--dim", "0"},
		{"--dim", "2", "--pkg", "func"},
		{"--dim", "2", "--out", "."},
		{"--dim", "2", "--arch", "sm80"},
		{"--dim", "2", "--threads", "-1"},
		{"--dim", "2", "stray"},
		{"--dim", "2", "--no-such-flag"},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), append([]string{"gibbsgen"}, args...), &stdout, &stderr)
		if code != exitUsage || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), "gibbsgen: ") {
			t.Errorf("gibbsgen %s: exit %d, stdout %q, stderr %q; want exit 2 and one line on stderr", strings.Join(args, " "), code, stdout.String(), stderr.String())
		}
	}
}
