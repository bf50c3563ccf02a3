package gen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Toolchain is an nvcc found on this machine and what it can target.
type Toolchain struct {
	Path    string   // absolute path of nvcc
	Version string   // e.g. "11.8.89"
	Codes   []string // real architectures it can build, e.g. sm_80
	Virtual []string // virtual architectures it can emit PTX for, e.g. compute_90
}

// ErrNoNVCC is wrapped by FindNVCC's error when no nvcc was found.
var ErrNoNVCC = errors.New("nvcc not found")

// installHint says how to get nvcc; it is part of the not-found message.
const installHint = "install the CUDA toolkit (Debian: add \"contrib non-free\" to the Components line of /etc/apt/sources.list.d/debian.sources, then apt-get install nvidia-cuda-toolkit; elsewhere NVIDIA's CUDA installer) or set CUDACXX to the nvcc binary"

// Env abstracts the process environment for FindNVCC, so tests can control it.
type Env struct {
	Getenv   func(string) string
	LookPath func(string) (string, error)
}

// OSEnv is the real environment.
var OSEnv = Env{Getenv: os.Getenv, LookPath: exec.LookPath}

// FindNVCC locates nvcc in order: $CUDACXX, $CUDA_HOME/bin, PATH,
// /usr/local/cuda/bin; then asks it for its version and targets.
func FindNVCC(ctx context.Context, env Env) (*Toolchain, error) {
	path, err := locateNVCC(env)
	if err != nil {
		return nil, err
	}
	tc := &Toolchain{Path: path}
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s --version failed: %v\n%s", path, err, out)
	}
	m := regexp.MustCompile(`release [0-9.]+, V([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("%s --version: no version in output:\n%s", path, out)
	}
	tc.Version = string(m[1])
	if tc.Codes, err = listTargets(ctx, path, "--list-gpu-code"); err != nil {
		return nil, err
	}
	if tc.Virtual, err = listTargets(ctx, path, "--list-gpu-arch"); err != nil {
		return nil, err
	}
	return tc, nil
}

func locateNVCC(env Env) (string, error) {
	if p := env.Getenv("CUDACXX"); p != "" {
		if !isExecutable(p) {
			return "", fmt.Errorf("%w: CUDACXX=%s is not an executable file; %s", ErrNoNVCC, p, installHint)
		}
		return filepath.Abs(p)
	}
	if h := env.Getenv("CUDA_HOME"); h != "" {
		if p := filepath.Join(h, "bin", "nvcc"); isExecutable(p) {
			return filepath.Abs(p)
		}
	}
	if p, err := env.LookPath("nvcc"); err == nil {
		return filepath.Abs(p)
	}
	if p := "/usr/local/cuda/bin/nvcc"; isExecutable(p) {
		return p, nil
	}
	return "", fmt.Errorf("%w: looked in $CUDACXX, $CUDA_HOME/bin, PATH and /usr/local/cuda/bin; %s", ErrNoNVCC, installHint)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

func listTargets(ctx context.Context, nvcc, flag string) ([]string, error) {
	out, err := exec.CommandContext(ctx, nvcc, flag).Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s failed: %v", nvcc, flag, err)
	}
	return strings.Fields(string(out)), nil
}

// archNumber returns 90 for "sm_90" or "compute_90", and ok=false for
// suffixed or malformed names such as "sm_90a".
func archNumber(a string) (int, bool) {
	_, num, ok := strings.Cut(a, "_")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}

// minDefaultArch is the oldest architecture built by default (Turing).
const minDefaultArch = 75

// defaultTargets is, for each GPU generation (major compute capability)
// from sm_75 up that nvcc supports, its oldest real architecture, plus PTX
// for the oldest of them, which newer GPUs JIT-compile: with nvcc 11.8,
// sm_75, sm_80, sm_90 and compute_75. Machine code for sm_XY runs on every
// sm_XZ with Z ≥ Y, so sm_80's serves sm_86, sm_87 and sm_89: targets of
// their own would buy only their own instruction scheduling, for a ptxas
// pass each (together 12 s of dim 64's 57 s of nvcc) and 74% more fatbin
// (docs/log/BENCHMARKS-runs.md, issue 18). PTX for a newer virtual architecture
// would be the same code (see nvccArgs) at the cost of another front-end
// pass.
func (tc *Toolchain) defaultTargets() []string {
	var out []string
	oldest := 0
	generation := map[int]int{} // major version → its oldest real architecture
	for _, c := range tc.Codes {
		if n, ok := archNumber(c); ok && strings.HasPrefix(c, "sm_") && n >= minDefaultArch {
			if g, ok := generation[n/10]; !ok || n < g {
				generation[n/10] = n
			}
		}
	}
	for _, c := range tc.Codes {
		if n, ok := archNumber(c); ok && strings.HasPrefix(c, "sm_") && n >= minDefaultArch && generation[n/10] == n && !slices.Contains(out, c) {
			out = append(out, c)
			if oldest == 0 || n < oldest {
				oldest = n
			}
		}
	}
	if oldest == 0 { // no real architecture qualifies: PTX for the newest virtual one
		for _, v := range tc.Virtual {
			if n, ok := archNumber(v); ok && strings.HasPrefix(v, "compute_") && n > oldest {
				oldest = n
			}
		}
	}
	if oldest > 0 && slices.Contains(tc.Virtual, fmt.Sprintf("compute_%d", oldest)) {
		out = append(out, fmt.Sprintf("compute_%d", oldest))
	}
	return out
}

// checkArch verifies that nvcc supports every target.
func (tc *Toolchain) checkArch(targets []string) error {
	for _, t := range targets {
		list := tc.Codes
		if strings.HasPrefix(t, "compute_") {
			list = tc.Virtual
		}
		if !slices.Contains(list, t) {
			return &SpecError{"arch", t, fmt.Sprintf("is not supported by nvcc %s (%s); supported: %s", tc.Version, tc.Path, strings.Join(append(append([]string{}, tc.Codes...), tc.Virtual...), " "))}
		}
	}
	return nil
}

// Resources is ptxas's report for one kernel on one architecture.
type Resources struct {
	Kernel      string `json:"kernel"`
	Arch        string `json:"arch"`
	Registers   int    `json:"registers"`
	StackBytes  int    `json:"stack_bytes"`
	SpillStores int    `json:"spill_store_bytes"`
	SpillLoads  int    `json:"spill_load_bytes"`
	SharedBytes int    `json:"shared_bytes"`
}

// Build is the output of nvcc: the fatbin and, for a package with a
// per-model kernel, its PTX.
type Build struct {
	Fatbin    []byte
	PTX       []byte // nil when the package has no PTX kernel
	PTXArch   string // the virtual architecture of PTX, e.g. "compute_75"
	Targets   []string
	NVCC      string // nvcc version
	Resources []Resources
	Log       string // nvcc's complete stderr, for -v
	// Caveats say why this fatbin's machine code may differ from another
	// build's of the same source (scratch.go); none where it cannot.
	Caveats []string
}

// NVCCError is a failed nvcc run; Output is nvcc's own text, verbatim.
type NVCCError struct {
	Args   []string
	Err    error
	Output string
}

func (e *NVCCError) Error() string {
	return fmt.Sprintf("nvcc failed (%v):\n%s", e.Err, e.Output)
}

// SpillError reports kernels that ptxas spilled to local memory.
type SpillError struct{ Spills []Resources }

func (e *SpillError) Error() string {
	var b strings.Builder
	b.WriteString("ptxas spilled registers to local memory (pass --allow-spills to accept):")
	for _, r := range e.Spills {
		fmt.Fprintf(&b, "\n  %s on %s: %d registers, %d bytes spill stores, %d bytes spill loads", r.Kernel, r.Arch, r.Registers, r.SpillStores, r.SpillLoads)
	}
	return b.String()
}

// nvccArgs returns nvcc's arguments for compiling src to out. --fmad=false
// guards the documented rounding: the kernels use explicit intrinsics, and no
// other arithmetic may be contracted behind their back.
//
// Every machine-code target is assembled from the PTX of the oldest target's
// virtual architecture, so nvcc's front end (cicc, most of the time: about
// 35 s a pass at dim 64 against 4 s per target for ptxas) runs once, not
// once per target. The kernels use no instruction newer than that architecture's, and
// cicc writes the same PTX for every virtual architecture apart from its
// .version and .target lines, so the machine code is what per-target passes
// would give. A compute_NN target embeds PTX for NN; one other than the
// oldest costs a front-end pass of its own.
func nvccArgs(src, out string, targets []string, threads int) []string {
	args := []string{"-fatbin", "-O3", "--fmad=false", "-Xptxas", "-v", "--threads", strconv.Itoa(threads), "-o", out}
	base := strings.TrimPrefix(ptxArch(targets), "compute_")
	for _, t := range targets {
		num := base
		if strings.HasPrefix(t, "compute_") {
			num = strings.TrimPrefix(t, "compute_")
		}
		args = append(args, "-gencode", fmt.Sprintf("arch=compute_%s,code=%s", num, t))
	}
	return append(args, src)
}

// compile runs nvcc on src in a scratch directory and returns the fatbin and
// resource report. A spill is an error unless allowSpills, or the entry
// point's spills are within src.Spills.
func (tc *Toolchain) compile(ctx context.Context, src source, targets []string, threads int, allowSpills bool) (Build, error) {
	args := nvccArgs(src.Name, "out.fatbin", targets, threads)
	r, err := tc.run(ctx, src, args, "out.fatbin")
	if err != nil {
		return Build{}, err
	}
	b := Build{Fatbin: r.out, Targets: targets, NVCC: tc.Version, Log: r.log, Caveats: r.caveats}
	b.Resources = parsePtxas(b.Log)
	if !allowSpills {
		if spills := src.spills(b.Resources); len(spills) > 0 {
			return Build{}, &SpillError{spills}
		}
	}
	return b, nil
}

// spills returns the entries of res that spill more than src accepts.
func (src source) spills(res []Resources) []Resources {
	var over []Resources
	for _, r := range res {
		if max(r.SpillStores, r.SpillLoads) > src.Spills[r.Kernel] {
			over = append(over, r)
		}
	}
	return over
}

// ptxArgs is the nvcc command line that compiles src to PTX for the
// virtual architecture arch. Only the front end runs: the PTX holds the
// per-model kernel's coefficient markers, which ptxas would reject, and
// the driver assembles it after the runtime has written them.
func ptxArgs(src, out, arch string) []string {
	return []string{"-ptx", "-O3", "--fmad=false", "-std=c++17", "-arch=" + arch, "-o", out, src}
}

// ptxArch is the virtual architecture of the oldest of targets, so that
// the PTX runs wherever the fatbin does.
func ptxArch(targets []string) string {
	oldest := 0
	for _, t := range targets {
		if n, ok := archNumber(t); ok && (oldest == 0 || n < oldest) {
			oldest = n
		}
	}
	return fmt.Sprintf("compute_%d", oldest)
}

// compilePTX compiles src to PTX for arch. Its caveats are those of
// compile, which runs in the same environment.
func (tc *Toolchain) compilePTX(ctx context.Context, src source, arch string) ([]byte, error) {
	r, err := tc.run(ctx, src, ptxArgs(src.Name, "out.ptx", arch), "out.ptx")
	return r.out, err
}

// nvccRun is what one nvcc run gives back.
type nvccRun struct {
	out     []byte   // the output file
	log     string   // nvcc's stdout and stderr
	caveats []string // why the output may differ from other runs' (scratch.go)
}

// run writes src to a scratch directory, runs nvcc there with args and
// returns the file out and nvcc's output.
func (tc *Toolchain) run(ctx context.Context, src source, args []string, out string) (nvccRun, error) {
	var r nvccRun
	dir, fixed, err := newScratch()
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(dir)
	if !fixed {
		r.caveats = append(r.caveats, fmt.Sprintf("no temporary directory is short enough for a scratch path of %d bytes", scratchPathLen))
	}
	if err := os.WriteFile(filepath.Join(dir, src.Name), src.Text, 0o644); err != nil {
		return r, err
	}
	// Cancelling ctx (gibbsgen on SIGINT or SIGTERM) ends nvcc and, on
	// Linux, its children; Wait returns once they are gone, and the
	// deferred RemoveAll removes the scratch directory.
	cmd := exec.CommandContext(ctx, tc.Path, args...)
	cmd.Dir = dir // relative names keep the scratch path out of the output
	cmd.Env = scratchEnv(cmd)
	killGroupOnCancel(cmd)
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	caveat, err := startReproducible(cmd)
	if caveat != "" {
		r.caveats = append(r.caveats, caveat)
	}
	if err == nil {
		err = cmd.Wait()
	}
	if err != nil {
		return r, &NVCCError{Args: args, Err: err, Output: stderr.String()}
	}
	r.log = stderr.String()
	if r.out, err = os.ReadFile(filepath.Join(dir, out)); err != nil {
		return r, fmt.Errorf("nvcc succeeded but wrote no %s: %w", out, err)
	}
	return r, nil
}

var (
	reEntry = regexp.MustCompile(`Compiling entry function '([^']+)' for '([^']+)'`)
	reFrame = regexp.MustCompile(`(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	reUsed  = regexp.MustCompile(`Used (\d+) registers`)
	reSmem  = regexp.MustCompile(`(\d+) bytes smem`)
)

// parsePtxas extracts per-kernel, per-architecture resources from the
// output of nvcc -Xptxas -v, sorted by kernel then architecture.
func parsePtxas(log string) []Resources {
	var out []Resources
	var cur *Resources
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		line := sc.Text()
		if m := reEntry.FindStringSubmatch(line); m != nil {
			out = append(out, Resources{Kernel: m[1], Arch: m[2]})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := reFrame.FindStringSubmatch(line); m != nil {
			cur.StackBytes, _ = strconv.Atoi(m[1])
			cur.SpillStores, _ = strconv.Atoi(m[2])
			cur.SpillLoads, _ = strconv.Atoi(m[3])
		}
		if m := reUsed.FindStringSubmatch(line); m != nil {
			cur.Registers, _ = strconv.Atoi(m[1])
			if s := reSmem.FindStringSubmatch(line); s != nil {
				cur.SharedBytes, _ = strconv.Atoi(s[1])
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Kernel != out[j].Kernel {
			return out[i].Kernel < out[j].Kernel
		}
		ai, _ := archNumber(out[i].Arch)
		aj, _ := archNumber(out[j].Arch)
		return ai < aj
	})
	return out
}
