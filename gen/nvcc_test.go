package gen

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// nvcc118Codes and nvcc118Virtual are what nvcc 11.8 answers to
// --list-gpu-code and --list-gpu-arch.
var (
	nvcc118Codes   = strings.Fields("sm_35 sm_37 sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90")
	nvcc118Virtual = strings.Fields("compute_35 compute_37 compute_50 compute_52 compute_53 compute_60 compute_61 compute_62 compute_70 compute_72 compute_75 compute_80 compute_86 compute_87 compute_89 compute_90")
)

// nvccFake describes a shell script that impersonates nvcc: it answers
// --version, --list-gpu-code and --list-gpu-arch the way nvcc 11.8 does and
// runs Compile (a shell snippet) for anything else.
type nvccFake struct {
	Version string   // the V... number; default 11.8.89
	Codes   []string // default nvcc118Codes
	Virtual []string // default nvcc118Virtual
	Compile string   // shell commands run for a compile; default exit 0
}

// write writes the fake to path as an executable and returns path.
func (f nvccFake) write(t *testing.T, path string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("fake nvcc is a shell script")
	}
	if f.Version == "" {
		f.Version = "11.8.89"
	}
	if f.Codes == nil {
		f.Codes = nvcc118Codes
	}
	if f.Virtual == nil {
		f.Virtual = nvcc118Virtual
	}
	if f.Compile == "" {
		f.Compile = "exit 0"
	}
	script := fmt.Sprintf(`#!/bin/sh
case "$1" in
--version)
	echo 'nvcc: NVIDIA (R) Cuda compiler driver'
	echo 'Copyright (c) 2005-2022 NVIDIA Corporation'
	echo 'Built on Wed_Sep_21_10:33:58_PDT_2022'
	echo 'Cuda compilation tools, release 11.8, V%s'
	echo 'Build cuda_11.8.r11.8/compiler.31833905_0'
	;;
--list-gpu-code)
	printf '%%s\n' %s
	;;
--list-gpu-arch)
	printf '%%s\n' %s
	;;
*)
%s
	;;
esac
`, f.Version, strings.Join(f.Codes, " "), strings.Join(f.Virtual, " "), f.Compile)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// nvccEnv is a Env with the given variables whose PATH holds only the
// directories in path.
func nvccEnv(vars map[string]string, path ...string) Env {
	return Env{
		Getenv: func(k string) string { return vars[k] },
		LookPath: func(name string) (string, error) {
			for _, dir := range path {
				p := filepath.Join(dir, name)
				if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
					return p, nil
				}
			}
			return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
		},
	}
}

func TestFindNVCCSearchOrder(t *testing.T) {
	root := t.TempDir()
	cudacxx := nvccFake{Version: "11.8.1"}.write(t, filepath.Join(root, "cudacxx", "my-nvcc"))
	home := filepath.Join(root, "cudahome")
	nvccFake{Version: "11.8.2"}.write(t, filepath.Join(home, "bin", "nvcc"))
	pathDir := filepath.Join(root, "pathdir")
	nvccFake{Version: "11.8.3"}.write(t, filepath.Join(pathDir, "nvcc"))
	emptyHome := filepath.Join(root, "emptyhome")
	if err := os.MkdirAll(filepath.Join(emptyHome, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name        string
		vars        map[string]string
		path        []string
		wantPath    string
		wantVersion string
	}{
		{"CUDACXX first", map[string]string{"CUDACXX": cudacxx, "CUDA_HOME": home}, []string{pathDir}, cudacxx, "11.8.1"},
		{"CUDA_HOME before PATH", map[string]string{"CUDA_HOME": home}, []string{pathDir}, filepath.Join(home, "bin", "nvcc"), "11.8.2"},
		{"PATH when CUDA_HOME has no nvcc", map[string]string{"CUDA_HOME": emptyHome}, []string{pathDir}, filepath.Join(pathDir, "nvcc"), "11.8.3"},
		{"PATH alone", nil, []string{pathDir}, filepath.Join(pathDir, "nvcc"), "11.8.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FindNVCC(context.Background(), nvccEnv(tc.vars, tc.path...))
			if err != nil {
				t.Fatal(err)
			}
			if got.Path != tc.wantPath || got.Version != tc.wantVersion {
				t.Errorf("found %s (version %s), want %s (version %s)", got.Path, got.Version, tc.wantPath, tc.wantVersion)
			}
			if !reflect.DeepEqual(got.Codes, nvcc118Codes) || !reflect.DeepEqual(got.Virtual, nvcc118Virtual) {
				t.Errorf("targets %v / %v, want nvcc 11.8's", got.Codes, got.Virtual)
			}
		})
	}
}

// TestFindNVCCLastResort covers the fallback to /usr/local/cuda/bin/nvcc,
// which is a fixed path: what the test expects depends on this machine.
func TestFindNVCCLastResort(t *testing.T) {
	const fallback = "/usr/local/cuda/bin/nvcc"
	got, err := FindNVCC(context.Background(), nvccEnv(map[string]string{"CUDA_HOME": t.TempDir()}))
	if fi, serr := os.Stat(fallback); serr == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		if err != nil {
			t.Fatalf("%s exists, but: %v", fallback, err)
		}
		if got.Path != fallback {
			t.Errorf("found %s, want %s", got.Path, fallback)
		}
		return
	}
	if !errors.Is(err, ErrNoNVCC) {
		t.Fatalf("got %v, %v; want an error wrapping ErrNoNVCC", got, err)
	}
	for _, want := range []string{"$CUDACXX", "$CUDA_HOME/bin", "PATH", "/usr/local/cuda/bin", "apt-get install nvidia-cuda-toolkit", "set CUDACXX"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestFindNVCCBadCUDACXX: an explicit CUDACXX that is not an executable is
// an error, not a reason to quietly use another nvcc.
func TestFindNVCCBadCUDACXX(t *testing.T) {
	root := t.TempDir()
	pathDir := filepath.Join(root, "pathdir")
	nvccFake{}.write(t, filepath.Join(pathDir, "nvcc"))
	notExec := filepath.Join(root, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "missing"), notExec, root} {
		_, err := FindNVCC(context.Background(), nvccEnv(map[string]string{"CUDACXX": p}, pathDir))
		if !errors.Is(err, ErrNoNVCC) {
			t.Errorf("CUDACXX=%s: got %v, want ErrNoNVCC", p, err)
			continue
		}
		if !strings.Contains(err.Error(), "CUDACXX="+p) {
			t.Errorf("CUDACXX=%s: error %q does not name it", p, err)
		}
	}
}

func TestFindNVCCRelativeCUDACXX(t *testing.T) {
	dir := t.TempDir()
	nvccFake{}.write(t, filepath.Join(dir, "nvcc"))
	t.Chdir(dir)
	got, err := FindNVCC(context.Background(), nvccEnv(map[string]string{"CUDACXX": "./nvcc"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "nvcc"); got.Path != want {
		t.Errorf("Path = %s, want the absolute %s", got.Path, want)
	}
}

func TestFindNVCCBrokenNVCC(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name, script, want string
	}{
		{"version fails", "#!/bin/sh\necho 'libcudart missing' >&2\nexit 3\n", "--version failed"},
		{"no version", "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\n", "no version in output"},
		{"no target list", "#!/bin/sh\ncase \"$1\" in --version) echo 'Cuda compilation tools, release 11.8, V11.8.89';; *) exit 1;; esac\n", "--list-gpu-code failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if runtime.GOOS == "windows" {
				t.Skip("fake nvcc is a shell script")
			}
			p := filepath.Join(root, strings.ReplaceAll(tc.name, " ", "-"))
			if err := os.WriteFile(p, []byte(tc.script), 0o755); err != nil {
				t.Fatal(err)
			}
			_, err := FindNVCC(context.Background(), nvccEnv(map[string]string{"CUDACXX": p}))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) {
				t.Errorf("got %v, want an error naming %s and saying %q", err, p, tc.want)
			}
		})
	}
}

func TestDefaultTargets(t *testing.T) {
	for _, tc := range []struct {
		name           string
		codes, virtual []string
		want           []string
	}{
		{"nvcc 11.8", nvcc118Codes, nvcc118Virtual, []string{"sm_75", "sm_80", "sm_90", "compute_75"}},
		{"suffixed architectures are not defaults",
			append(append([]string{}, nvcc118Codes...), "sm_90a"),
			append(append([]string{}, nvcc118Virtual...), "compute_90a"),
			[]string{"sm_75", "sm_80", "sm_90", "compute_75"}},
		{"the oldest of each generation, whatever the order",
			[]string{"sm_89", "sm_120", "sm_86", "sm_100", "sm_80", "sm_103", "sm_121", "sm_101", "sm_90"},
			[]string{"compute_80", "compute_90", "compute_100", "compute_120"},
			[]string{"sm_120", "sm_100", "sm_80", "sm_90", "compute_80"}},
		{"unsorted lists", []string{"sm_90", "sm_70", "sm_80"}, []string{"compute_90", "compute_70", "compute_80"}, []string{"sm_90", "sm_80", "compute_80"}},
		{"too old for any default", []string{"sm_35", "sm_70"}, []string{"compute_35", "compute_70"}, []string{"compute_70"}},
		{"nothing", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := (&Toolchain{Codes: tc.codes, Virtual: tc.virtual}).defaultTargets()
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("defaultTargets() = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestNVCCArgs: every machine-code target is assembled from the oldest
// target's PTX (one front-end pass), and a PTX target embeds its own.
func TestNVCCArgs(t *testing.T) {
	got := nvccArgs("p.cu", "o.fatbin", []string{"sm_90", "sm_75", "sm_80", "compute_90", "compute_75"}, 2)
	var gencodes []string
	for i, a := range got {
		if a == "-gencode" {
			gencodes = append(gencodes, got[i+1])
		}
	}
	want := []string{"arch=compute_75,code=sm_90", "arch=compute_75,code=sm_75", "arch=compute_75,code=sm_80",
		"arch=compute_90,code=compute_90", "arch=compute_75,code=compute_75"}
	if !reflect.DeepEqual(gencodes, want) {
		t.Errorf("gencodes %q, want %q", gencodes, want)
	}
	if got[len(got)-1] != "p.cu" {
		t.Errorf("last argument %q, want the source", got[len(got)-1])
	}
}

func TestCheckArch(t *testing.T) {
	tc := &Toolchain{Path: "/opt/cuda/bin/nvcc", Version: "11.8.89", Codes: nvcc118Codes, Virtual: nvcc118Virtual}
	for _, ok := range [][]string{nil, {"sm_80"}, {"sm_35", "compute_35"}, {"sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "compute_90"}} {
		if err := tc.checkArch(ok); err != nil {
			t.Errorf("checkArch(%v) = %v, want nil", ok, err)
		}
	}
	for _, tt := range []struct {
		targets []string
		bad     string
	}{
		{[]string{"sm_12"}, "sm_12"},
		{[]string{"sm_80", "sm_100"}, "sm_100"},
		{[]string{"compute_12"}, "compute_12"},
		{[]string{"compute_91"}, "compute_91"},
		{[]string{"sm_90a"}, "sm_90a"},
		// A virtual name is checked against the virtual list, a real one
		// against the real list.
		{[]string{"compute_80", "sm_80", "sm_compute_80"}, "sm_compute_80"},
	} {
		err := tc.checkArch(tt.targets)
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("checkArch(%v) = %v, want *SpecError", tt.targets, err)
			continue
		}
		if se.Flag != "arch" || se.Value != tt.bad {
			t.Errorf("checkArch(%v): --%s %q, want --arch %q", tt.targets, se.Flag, se.Value, tt.bad)
		}
		want := "supported: " + strings.Join(nvcc118Codes, " ") + " " + strings.Join(nvcc118Virtual, " ")
		for _, w := range []string{want, "nvcc 11.8.89", "/opt/cuda/bin/nvcc"} {
			if !strings.Contains(se.Rule, w) {
				t.Errorf("checkArch(%v): rule %q lacks %q", tt.targets, se.Rule, w)
			}
		}
	}
}

// TestCapturePtxasLog rewrites testdata/ptxas/dim3.log, the fixture of
// TestParsePtxasCaptured, from the installed nvcc. The expectations in
// TestParsePtxasCaptured must then be updated by hand from the new log.
func TestCapturePtxasLog(t *testing.T) {
	if os.Getenv("GIBBSGEN_CAPTURE_PTXAS") == "" {
		t.Skip("set GIBBSGEN_CAPTURE_PTXAS=1 to recapture testdata/ptxas/dim3.log with the installed nvcc")
	}
	ctx := context.Background()
	tc, err := FindNVCC(ctx, OSEnv)
	if err != nil {
		t.Fatal(err)
	}
	src, err := renderCUDA(Spec{Dim: 3, Package: "p", Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := tc.compile(ctx, src, ptxasFixtureTargets, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("testdata", "ptxas", "dim3.log"), []byte(b.Log), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ptxasFixtureTargets are the targets testdata/ptxas/dim3.log was built for.
var ptxasFixtureTargets = []string{"sm_75", "sm_90", "sm_80", "compute_90"}

func readPtxasFixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ptxas", "dim3.log"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ptxasSpillEntry is the synthetic spill spliced into the captured log: ptxas
// ran gibbs_sweep_const for sm_80 out of registers.
const (
	ptxasNoSpill = "ptxas info    : Compiling entry function 'gibbs_sweep_const' for 'sm_80'\n" +
		"ptxas info    : Function properties for gibbs_sweep_const\n" +
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n" +
		"ptxas info    : Used 31 registers, 400 bytes cmem[0]\n"
	ptxasSpill = "ptxas info    : Compiling entry function 'gibbs_sweep_const' for 'sm_80'\n" +
		"ptxas info    : Function properties for gibbs_sweep_const\n" +
		"    168 bytes stack frame, 164 bytes spill stores, 172 bytes spill loads\n" +
		"ptxas info    : Used 255 registers, 400 bytes cmem[0]\n"
)

// ptxasSpillLog is the captured log with the synthetic spill.
func ptxasSpillLog(t *testing.T) string {
	t.Helper()
	log := readPtxasFixture(t)
	if strings.Count(log, ptxasNoSpill) != 1 {
		t.Fatalf("testdata/ptxas/dim3.log has no gibbs_sweep_const sm_80 entry to turn into a spill:\n%s", ptxasNoSpill)
	}
	return strings.Replace(log, ptxasNoSpill, ptxasSpill, 1)
}

// ptxasFixtureWant is parsePtxas of testdata/ptxas/dim3.log: sorted by
// kernel, then by architecture number (the log has sm_90 before sm_80).
func ptxasFixtureWant() []Resources {
	type k = Resources
	return []Resources{
		k{Kernel: "gibbs_normals", Arch: "sm_75", Registers: 29},
		k{Kernel: "gibbs_normals", Arch: "sm_80", Registers: 28},
		k{Kernel: "gibbs_normals", Arch: "sm_90", Registers: 32},
		k{Kernel: "gibbs_philox", Arch: "sm_75", Registers: 18},
		k{Kernel: "gibbs_philox", Arch: "sm_80", Registers: 18},
		k{Kernel: "gibbs_philox", Arch: "sm_90", Registers: 16},
		k{Kernel: "gibbs_sweep_const", Arch: "sm_75", Registers: 33},
		k{Kernel: "gibbs_sweep_const", Arch: "sm_80", Registers: 31},
		k{Kernel: "gibbs_sweep_const", Arch: "sm_90", Registers: 31},
		k{Kernel: "gibbs_sweep_noise", Arch: "sm_75", Registers: 31, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_noise", Arch: "sm_80", Registers: 32, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_noise", Arch: "sm_90", Registers: 32, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_shared", Arch: "sm_75", Registers: 29, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_shared", Arch: "sm_80", Registers: 29, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_shared", Arch: "sm_90", Registers: 30, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_warp", Arch: "sm_75", Registers: 33, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_warp", Arch: "sm_80", Registers: 29, SharedBytes: 48},
		k{Kernel: "gibbs_sweep_warp", Arch: "sm_90", Registers: 32, SharedBytes: 48},
	}
}

func TestParsePtxasCaptured(t *testing.T) {
	got := parsePtxas(readPtxasFixture(t))
	if want := ptxasFixtureWant(); !reflect.DeepEqual(got, want) {
		t.Errorf("parsePtxas(testdata/ptxas/dim3.log):\ngot  %+v\nwant %+v", got, want)
	}
}

func TestParsePtxasSpill(t *testing.T) {
	got := parsePtxas(ptxasSpillLog(t))
	want := ptxasFixtureWant()
	want[7] = Resources{Kernel: "gibbs_sweep_const", Arch: "sm_80", Registers: 255, StackBytes: 168, SpillStores: 164, SpillLoads: 172}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsePtxas(log with a spill):\ngot  %+v\nwant %+v", got, want)
	}
}

func TestParsePtxasOddInput(t *testing.T) {
	for _, log := range []string{
		"",
		"nvcc warning : The 'compute_35' architecture is deprecated\n",
		// Properties before any entry belong to no kernel.
		"    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\nptxas info    : Used 12 registers\n",
		"ptxas info    : Compiling entry function 'k' for 'sm_80'\r\nptxas info    : Used 12 registers\r\n",
	} {
		got := parsePtxas(log)
		for _, r := range got {
			if r.Kernel == "" || r.Arch == "" {
				t.Errorf("parsePtxas(%q) has an entry without kernel or arch: %+v", log, got)
			}
			if r.SpillStores != 0 || r.SpillLoads != 0 {
				t.Errorf("parsePtxas(%q) found a spill: %+v", log, got)
			}
		}
	}
}

// nvccCompileFake writes a fake nvcc whose compile step is compile and
// returns its toolchain.
func nvccCompileFake(t *testing.T, compile string) *Toolchain {
	t.Helper()
	p := nvccFake{Compile: compile}.write(t, filepath.Join(t.TempDir(), "nvcc"))
	tc, err := FindNVCC(context.Background(), nvccEnv(map[string]string{"CUDACXX": p}))
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

func nvccTestSource(t *testing.T) source {
	t.Helper()
	src, err := renderCUDA(Spec{Dim: 3, Package: "p", Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestCompileNVCCFails(t *testing.T) {
	const said = "p.cu(17): error: identifier \"gibbs_undefined\" is undefined\n" +
		"\n" +
		"1 error detected in the compilation of \"p.cu\".\n"
	tc := nvccCompileFake(t, `
	echo 'p.cu(17): error: identifier "gibbs_undefined" is undefined'
	echo
	echo '1 error detected in the compilation of "p.cu".' >&2
	exit 1`)
	targets := []string{"sm_80", "compute_90"}
	_, err := tc.compile(context.Background(), nvccTestSource(t), targets, 2, false)
	var ne *NVCCError
	if !errors.As(err, &ne) {
		t.Fatalf("compile = %v, want *NVCCError", err)
	}
	if ne.Output != said {
		t.Errorf("Output = %q, want nvcc's text verbatim: %q", ne.Output, said)
	}
	if want := nvccArgs("p.cu", "out.fatbin", targets, 2); !reflect.DeepEqual(ne.Args, want) {
		t.Errorf("Args = %q, want %q", ne.Args, want)
	}
	var ee *exec.ExitError
	if !errors.As(ne.Err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("Err = %v, want exit status 1", ne.Err)
	}
	if !strings.Contains(err.Error(), said) {
		t.Errorf("Error() = %q does not contain nvcc's text", err)
	}
}

func TestCompileNoFatbin(t *testing.T) {
	tc := nvccCompileFake(t, "\texit 0")
	_, err := tc.compile(context.Background(), nvccTestSource(t), []string{"sm_80"}, 1, false)
	if err == nil || !strings.Contains(err.Error(), "wrote no out.fatbin") {
		t.Errorf("compile = %v, want a missing-fatbin error", err)
	}
}

// nvccSuccessFake writes a fake nvcc that records its arguments, working
// directory and input into rec, writes a fatbin and prints log.
func nvccSuccessFake(t *testing.T, log string) (tc *Toolchain, rec string) {
	t.Helper()
	rec = t.TempDir()
	logFile := filepath.Join(rec, "ptxas.log")
	if err := os.WriteFile(logFile, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	tc = nvccCompileFake(t, fmt.Sprintf(`
	pwd > '%[1]s/pwd'
	printf '%%s\n' "$@" > '%[1]s/args'
	cp p.cu '%[1]s/p.cu'
	printf 'FATBIN\000\001' > out.fatbin
	cat '%[2]s' >&2`, rec, logFile))
	return tc, rec
}

func TestCompile(t *testing.T) {
	log := readPtxasFixture(t)
	tc, rec := nvccSuccessFake(t, log)
	src := nvccTestSource(t)
	b, err := tc.compile(context.Background(), src, ptxasFixtureTargets, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(b.Fatbin) != "FATBIN\x00\x01" {
		t.Errorf("Fatbin = %q, want what nvcc wrote", b.Fatbin)
	}
	if b.Log != log {
		t.Errorf("Log is not nvcc's output verbatim")
	}
	if b.NVCC != "11.8.89" || !reflect.DeepEqual(b.Targets, ptxasFixtureTargets) {
		t.Errorf("NVCC %q, Targets %v", b.NVCC, b.Targets)
	}
	if !reflect.DeepEqual(b.Resources, ptxasFixtureWant()) {
		t.Errorf("Resources = %+v", b.Resources)
	}
	args, err := os.ReadFile(filepath.Join(rec, "args"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(nvccArgs("p.cu", "out.fatbin", ptxasFixtureTargets, 3), "\n") + "\n"; string(args) != want {
		t.Errorf("nvcc ran with\n%s\nwant\n%s", args, want)
	}
	gotSrc, err := os.ReadFile(filepath.Join(rec, "p.cu"))
	if err != nil || string(gotSrc) != string(src.Text) {
		t.Errorf("nvcc did not see the rendered source in its working directory (%v)", err)
	}
	pwd, err := os.ReadFile(filepath.Join(rec, "pwd"))
	if err != nil {
		t.Fatal(err)
	}
	if scratch := strings.TrimSpace(string(pwd)); scratch == "" {
		t.Error("nvcc recorded no working directory")
	} else if _, err := os.Stat(scratch); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("compile left its scratch directory %s behind (%v)", scratch, err)
	}
}

func TestCompileSpills(t *testing.T) {
	tc, _ := nvccSuccessFake(t, ptxasSpillLog(t))
	src := nvccTestSource(t)
	spill := Resources{Kernel: "gibbs_sweep_const", Arch: "sm_80", Registers: 255, StackBytes: 168, SpillStores: 164, SpillLoads: 172}

	_, err := tc.compile(context.Background(), src, ptxasFixtureTargets, 1, false)
	var se *SpillError
	if !errors.As(err, &se) {
		t.Fatalf("compile = %v, want *SpillError", err)
	}
	if !reflect.DeepEqual(se.Spills, []Resources{spill}) {
		t.Errorf("Spills = %+v, want only %+v", se.Spills, spill)
	}
	for _, want := range []string{"--allow-spills", "gibbs_sweep_const on sm_80: 255 registers, 164 bytes spill stores, 172 bytes spill loads"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}

	b, err := tc.compile(context.Background(), src, ptxasFixtureTargets, 1, true)
	if err != nil {
		t.Fatalf("compile with allowSpills: %v", err)
	}
	if !reflect.DeepEqual(b.Resources[7], spill) || string(b.Fatbin) != "FATBIN\x00\x01" {
		t.Errorf("with allowSpills: Resources[7] = %+v, fatbin %q", b.Resources[7], b.Fatbin)
	}
}

// TestPTXArch: the per-model kernel's PTX targets the oldest architecture
// of the build, so that it JIT-compiles wherever the fatbin runs.
func TestPTXArch(t *testing.T) {
	for _, c := range []struct {
		targets []string
		want    string
	}{
		{[]string{"sm_75", "sm_80", "sm_90", "compute_90"}, "compute_75"},
		{[]string{"sm_90"}, "compute_90"},
		{[]string{"compute_86", "sm_89"}, "compute_86"},
	} {
		if got := ptxArch(c.targets); got != c.want {
			t.Errorf("ptxArch(%v) = %s, want %s", c.targets, got, c.want)
		}
	}
	args := strings.Join(ptxArgs("m.cu", "out.ptx", "compute_80"), " ")
	if args != "-ptx -O3 --fmad=false -std=c++17 -arch=compute_80 -o out.ptx m.cu" {
		t.Errorf("ptxArgs = %q", args)
	}
}
