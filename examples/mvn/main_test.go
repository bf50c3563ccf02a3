package main

import (
	"bufio"
	"bytes"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/gibbsgen/gibbsgen/gen"
	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/chart"
	"github.com/gibbsgen/gibbsgen/mixing"
	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

// ar1Model is the model the README runs the example with, a fixture of the
// repository's top-level testdata.
var ar1Model = filepath.Join("..", "..", "testdata", "ar1-8.mtx")

// TestExampleOnCPU runs the example as the README shows, on the CPU twin,
// with progress on as on a terminal, and checks each mean and variance
// against the exact value within 5 of its own Monte Carlo standard errors
// (fixed seed: the run is deterministic).
func TestExampleOnCPU(t *testing.T) {
	var out, errs bytes.Buffer
	code := runProgress([]string{"-model", ar1Model, "-cpu", "-chains", "64", "-traced", "32",
		"-burnin", "300", "-samples", "400", "-thin", "3"}, &out, &errs, true)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	// Progress during burn-in and during sampling (1200 sweeps, reported
	// every 120), not only at the end.
	for _, p := range []string{"burn-in: 30/300 sweeps", "burn-in: 300/300 sweeps", "sampling: 120/1200 sweeps", "sampling: 1200/1200 sweeps\n"} {
		if !strings.Contains(errs.String(), p) {
			t.Errorf("no %q on stderr: %q", p, errs.String())
		}
	}
	checkReport(t, &out)
}

// TestExampleOnGPU runs the example on GPU 0, as a user without -cpu does,
// and on the twin with the same flags: with automatic burn-in, traces and
// the device's moments, the two reports must agree digit for digit after
// the line that says where each ran. It skips without a CUDA driver or
// device.
func TestExampleOnGPU(t *testing.T) {
	args := []string{"-model", ar1Model, "-chains", "4096", "-traced", "64", "-samples", "400", "-thin", "3"}
	var gpu, gpuErrs bytes.Buffer
	if code := run(args, &gpu, &gpuErrs); code != 0 {
		t.Fatalf("exit %d: %s", code, gpuErrs.String())
	}
	if strings.Contains(gpuErrs.String(), "no GPU") {
		t.Skipf("no GPU: %s", gpuErrs.String())
	}
	var cpu, cpuErrs bytes.Buffer
	if code := run(append(args, "-cpu"), &cpu, &cpuErrs); code != 0 {
		t.Fatalf("-cpu: exit %d: %s", code, cpuErrs.String())
	}
	g, c := strings.SplitN(gpu.String(), "\n", 2), strings.SplitN(cpu.String(), "\n", 2)
	if !strings.HasPrefix(g[0], "GPU ") || !strings.HasPrefix(c[0], "the CPU twin") {
		t.Fatalf("where: %q and %q", g[0], c[0])
	}
	if len(g) != 2 || len(c) != 2 || g[1] != c[1] {
		t.Errorf("the GPU's report differs from the twin's:\n%s\n---\n%s", gpu.String(), cpu.String())
	}
	t.Logf("%s", gpu.String())
	checkReport(t, &gpu)
}

// checkReport checks each mean and variance of mvn's report against the
// exact value within 5 of its own Monte Carlo standard errors, and each
// coordinate's ESS and R̂; the rows are coordinates 1 to dim, in order,
// as -plot-coords, the charts and the errors number them.
func checkReport(t *testing.T, out io.Reader) {
	t.Helper()
	sc := bufio.NewScanner(out)
	rows := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 9 {
			continue
		}
		coord, err := strconv.Atoi(f[0])
		if err != nil {
			continue
		}
		if coord != rows+1 {
			t.Errorf("row %d is labelled coordinate %d; want %d (1-based)", rows+1, coord, rows+1)
		}
		v := make([]float64, 9)
		for k := 1; k < 9; k++ {
			v[k], _ = strconv.ParseFloat(f[k], 64)
		}
		mean, seMean, exMean, variance, seVar, exVar, ess, rhat := v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
		if math.Abs(mean-exMean) > 5*seMean || math.Abs(variance-exVar) > 5*seVar {
			t.Errorf("coordinate %s: mean %v ± %v (exact %v), variance %v ± %v (exact %v)", f[0], mean, seMean, exMean, variance, seVar, exVar)
		}
		if ess < 100 || rhat > 1.05 {
			t.Errorf("coordinate %s: ESS %v, R̂ %v", f[0], ess, rhat)
		}
		rows++
	}
	if rows != dim {
		t.Fatalf("%d coordinate rows in the output, want %d", rows, dim)
	}
}

// TestAutoBurninOnCPU runs the example with its default burn-in, auto:
// BurninAuto's Chebyshev iterations from the cold start, as many as the
// closed form asks, reported as they run; then the same checks of the
// moments.
func TestAutoBurninOnCPU(t *testing.T) {
	var out, errs bytes.Buffer
	code := runProgress([]string{"-model", ar1Model, "-cpu", "-chains", "64", "-traced", "32",
		"-samples", "400", "-thin", "3"}, &out, &errs, true)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	r := gibbs8.NewReference()
	q, mu := readAR1(t), make([]float64, dim)
	if err := r.SetModel(q, mu); err != nil {
		t.Fatal(err)
	}
	k, err := r.BurninIterations(gibbsrt.DefaultBurninTolerance)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fmt.Sprintf("burn-in: %d/%d Chebyshev iterations\n", k, k), fmt.Sprintf("%d Chebyshev burn-in iterations;", k)} {
		if !strings.Contains(errs.String()+out.String(), p) {
			t.Errorf("no %q in the output: stderr %q, stdout %q", p, errs.String(), out.String())
		}
	}
	checkReport(t, &out)
}

// TestProgressOnlyToATerminal: with stderr a buffer or a file (a log), a
// run writes no progress: no \r and no progress lines, and stderr is
// empty; the same run with progress on writes them.
func TestProgressOnlyToATerminal(t *testing.T) {
	args := []string{"-model", ar1Model, "-cpu", "-chains", "8", "-traced", "4",
		"-burnin", "20", "-samples", "40", "-thin", "2"}
	var out, errs bytes.Buffer
	if code := run(args, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if errs.Len() != 0 {
		t.Errorf("stderr a buffer: %q; want nothing", errs.String())
	}
	log, err := os.Create(filepath.Join(t.TempDir(), "mvn.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	if isTerminal(log) {
		t.Errorf("isTerminal(%s) = true", log.Name())
	}
	out.Reset()
	if code := run(args, &out, log); code != 0 {
		t.Fatalf("exit %d with stderr a file", code)
	}
	if b, err := os.ReadFile(log.Name()); err != nil || len(b) != 0 {
		t.Errorf("stderr a file: %q (%v); want nothing", b, err)
	}
	if code := runProgress(args, &out, &errs, true); code != 0 {
		t.Fatalf("exit %d with progress: %s", code, errs.String())
	}
	if want := "\rburn-in: 20/20 sweeps\n"; !strings.Contains(errs.String(), want) || !strings.HasSuffix(errs.String(), "\rsampling: 80/80 sweeps\n") {
		t.Errorf("with progress, stderr %q; want %q and the last sampling line", errs.String(), want)
	}
}

// TestIsTerminal: a character device is a terminal (/dev/null is one
// too, where progress is harmless); a buffer is not.
func TestIsTerminal(t *testing.T) {
	if isTerminal(&bytes.Buffer{}) {
		t.Error("isTerminal(a buffer) = true")
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	if !isTerminal(null) {
		t.Errorf("isTerminal(%s) = false; it is a character device", os.DevNull)
	}
}

func TestReadMatrixMarket(t *testing.T) {
	q, err := readMatrixMarket(strings.NewReader("%%MatrixMarket matrix coordinate real symmetric\n% c\n2 2 2\n1 1 2\n2 1 -1\n"), maxDim)
	if err != nil || q[0][0] != 2 || q[0][1] != -1 || q[1][0] != -1 || q[1][1] != 0 {
		t.Fatalf("got %v, %v", q, err)
	}
	for name, in := range map[string]string{
		"array format":     "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n",
		"not square":       "%%MatrixMarket matrix coordinate real general\n2 3 0\n",
		"index too large":  "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
		"too few entries":  "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n",
		"too many entries": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n",
		"bad number":       "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n",
		"empty":            "",
		"NaN entry":        "%%MatrixMarket matrix coordinate real general\n2 2 1\n2 2 NaN\n",
		"infinite entry":   "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -Inf\n",
		"negative count":   "%%MatrixMarket matrix coordinate real general\n2 2 -1\n",
		"count above n²":   "%%MatrixMarket matrix coordinate real general\n2 2 5\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n1 1 1\n",
		"above the limit":  "%%MatrixMarket matrix coordinate real general\n1025 1025 0\n",
	} {
		if _, err := readMatrixMarket(strings.NewReader(in), maxDim); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestReadMatrixMarketLimit: a size line above the limit is refused before
// the matrix is allocated (30000×30000 used to die out of memory), with
// the size and the limit; the limit itself is accepted.
func TestReadMatrixMarketLimit(t *testing.T) {
	header := "%%MatrixMarket matrix coordinate real symmetric\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readMatrixMarket(strings.NewReader(header+"2000 2000 1\n1 1 1\n"), maxDim)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a 2000×2000 matrix was accepted")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("refusing a 2000×2000 matrix allocated %d bytes", n)
	}
	_, err = readMatrixMarket(strings.NewReader(header+"% big\n30000 30000 1\n1 1 1\n"), maxDim)
	if want := "matrix market line 3: a 30000×30000 matrix; the largest a gibbsgen package samples is 1024×1024"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	if q, err := readMatrixMarket(strings.NewReader(header+"1024 1024 1\n1024 1024 5\n"), maxDim); err != nil || len(q) != 1024 || q[1023][1023] != 5 {
		t.Errorf("1024×1024: %v", err)
	}
}

// TestMaxDim: the reader's limit is gibbsgen's.
func TestMaxDim(t *testing.T) {
	if maxDim != gen.MaxDim {
		t.Errorf("maxDim = %d, gen.MaxDim = %d", maxDim, gen.MaxDim)
	}
}

// mtx is an 8×8 Matrix Market file: the identity (its diagonal but
// entries on lines of skip) and then extra lines.
func mtx(t *testing.T, kind string, skip int, extra ...string) string {
	t.Helper()
	var lines []string
	for i := 1; i <= dim; i++ {
		if i != skip {
			lines = append(lines, strconv.Itoa(i)+" "+strconv.Itoa(i)+" 1")
		}
	}
	lines = append(lines, extra...)
	text := "%%MatrixMarket matrix coordinate real " + kind + "\n8 8 " + strconv.Itoa(len(lines)) + "\n" + strings.Join(lines, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "q.mtx")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestModelErrorsNameFileEntries: errors about Q's entries give the
// file's 1-based (row, col) and line (they used to give 0-based Q[i][j]),
// and exit 1.
func TestModelErrorsNameFileEntries(t *testing.T) {
	for _, c := range []struct {
		name, path, want string
	}{
		{"NaN", mtx(t, "general", 0, "3 3 NaN"), ": matrix market line 11: entry (3, 3) is NaN; entries must be finite\n"},
		{"infinite", mtx(t, "symmetric", 0, "5 2 +Inf"), ": matrix market line 11: entry (5, 2) is +Inf; entries must be finite\n"},
		{"zero diagonal", mtx(t, "symmetric", 3), ": entry (3, 3) is 0; the diagonal must be positive (entries the file does not list are 0)\n"},
		{"negative diagonal", mtx(t, "general", 0, "8 8 -2"), ": entry (8, 8) is -2; the diagonal must be positive (entries the file does not list are 0)\n"},
		{"not symmetric", mtx(t, "general", 0, "1 2 -0.5", "2 1 -0.25"), ": the precision matrix Q is not symmetric: entry (1, 2) is -0.5 but (2, 1) is -0.25, a difference of 0.25 > 1e-06 (1e-06·√(Q(1,1)·Q(2,2)))\n"},
		{"not positive definite", mtx(t, "symmetric", 0, "2 1 2"), ": Q is not positive definite: Cholesky factorization failed (smallest eigenvalue -1)\n"},
	} {
		var out, errs bytes.Buffer
		code := run([]string{"-model", c.path, "-cpu"}, &out, &errs)
		if want := "mvn: " + c.path + c.want; code != 1 || errs.String() != want {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q", c.name, code, errs.String(), want)
		}
	}
}

// TestUsageExits2: invalid flags exit 2 with one line naming the flag and
// the rule; a model file that cannot be read is a failure (exit 1).
func TestUsageExits2(t *testing.T) {
	model := ar1Model
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "mvn: -model is required: a Matrix Market file of the 8×8 precision matrix\n"},
		{[]string{"-model", model, "-chains", "0"}, "mvn: -chains 0: must be at least 1\n"},
		{[]string{"-model", model, "-chains", "10", "-traced", "11"}, "mvn: -traced 11: must be from 2 to -chains (10)\n"},
		{[]string{"-model", model, "-burnin", "-1"}, "mvn: -burnin -1: must be auto or at least 0\n"},
		{[]string{"-model", model, "-samples", "7"}, "mvn: -samples 7: must be at least 8\n"},
		{[]string{"-model", model, "-thin", "0"}, "mvn: -thin 0: must be at least 1\n"},
		{[]string{"-model", model, "-mu", "1,2"}, "mvn: -mu \"1,2\" has 2 values; it must have 8\n"},
		{[]string{"-model", model, "-mu", "0,0,x,0,0,0,0,0"}, "mvn: -mu value 3 of 8, \"x\": must be a finite number\n"},
		{[]string{"-model", model, "-mu", "0,0,0,0,0,0,0,NaN"}, "mvn: -mu value 8 of 8, \"NaN\": must be a finite number\n"},
		{[]string{"-model", model, "extra"}, "mvn: unexpected argument \"extra\": mvn takes flags only (see -h)\n"},
	} {
		var out, errs bytes.Buffer
		if code := run(c.args, &out, &errs); code != 2 || errs.String() != c.want || out.Len() != 0 {
			t.Errorf("mvn %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out.String(), errs.String(), c.want)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-model", filepath.Join(t.TempDir(), "none.mtx")}, &out, &errs); code != 1 || !strings.Contains(errs.String(), "no such file") {
		t.Errorf("missing model file: exit %d, stderr %q; want exit 1", code, errs.String())
	}
}

// TestPlotOnCPU: -plot writes the two charts, valid PNGs of the documented
// sizes (at chart.DPI), and names them on stderr; a tiny run on the twin.
func TestPlotOnCPU(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "charts")
	var out, errs bytes.Buffer
	code := run([]string{"-model", ar1Model, "-cpu", "-chains", "8", "-traced", "4",
		"-burnin", "20", "-samples", "40", "-thin", "2", "-plot", dir, "-plot-coords", "2,7"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("%d files in %s, want 2", len(entries), dir)
	}
	for name, size := range map[string][2]int{
		"trace.png":           {8 * chart.DPI, 2 * 288}, // 2.4 inches a coordinate
		"autocorrelation.png": {7 * chart.DPI, 4 * chart.DPI},
	} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Error(err)
			continue
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Errorf("%s is %dx%d, want %dx%d", name, b.Dx(), b.Dy(), size[0], size[1])
		}
		if !strings.Contains(errs.String(), "wrote "+filepath.Join(dir, name)+"\n") {
			t.Errorf("stderr does not name %s: %q", name, errs.String())
		}
	}
}

// TestPlotUsage: bad -plot-coords and a -plot path that cannot be a
// directory exit 2 before sampling, naming the value and the rule.
func TestPlotUsage(t *testing.T) {
	model := ar1Model
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-plot", dir, "-plot-coords", "0,2"}, "mvn: -plot-coords \"0,2\": \"0\" is not a coordinate from 1 to 8\n"},
		{[]string{"-plot", dir, "-plot-coords", "9"}, "mvn: -plot-coords \"9\": \"9\" is not a coordinate from 1 to 8\n"},
		{[]string{"-plot", dir, "-plot-coords", "3,x"}, "mvn: -plot-coords \"3,x\": \"x\" is not a coordinate from 1 to 8\n"},
		{[]string{"-plot", dir, "-plot-coords", "3,3"}, "mvn: -plot-coords \"3,3\": coordinate 3 is named twice\n"},
		{[]string{"-plot", filepath.Join(file, "sub")}, "mvn: -plot: chart directory " + filepath.Join(file, "sub") + ": mkdir " + file + ": not a directory\n"},
	} {
		var out, errs bytes.Buffer
		args := append([]string{"-model", model, "-cpu"}, c.args...)
		if code := run(args, &out, &errs); code != 2 || errs.String() != c.want || out.Len() != 0 {
			t.Errorf("mvn %q: exit %d, stdout %q, stderr %q; want exit 2 and %q", args, code, out.String(), errs.String(), c.want)
		}
	}
}

// TestClosedACF: the closed-form autocorrelation that autocorrelation.png
// draws sums to package mixing's closed-form IAT of each coordinate,
// 1 + 2·Σ_{k≥1} ρ_k, and at lag 0 is 1.
func TestClosedACF(t *testing.T) {
	q := readAR1(t)
	sigma, err := exactCovariance(q)
	if err != nil {
		t.Fatal(err)
	}
	coords := []int{0, 3, 7}
	rho, err := closedACF(q, sigma, coords, 1, 4000)
	if err != nil {
		t.Fatal(err)
	}
	qs := mat.NewSymDense(dim, nil)
	for i := 0; i < dim; i++ {
		for j := i; j < dim; j++ {
			qs.SetSym(i, j, q[i][j])
		}
	}
	g, err := mixing.Operator(qs, 1, mixing.Forward)
	if err != nil {
		t.Fatal(err)
	}
	iat, err := mixing.IATCoordinates(g, sigma)
	if err != nil {
		t.Fatal(err)
	}
	for n, i := range coords {
		sum := -1.0
		for _, r := range rho[n] {
			sum += 2 * r
		}
		if rho[n][0] != 1 || math.Abs(sum/iat[i]-1) > 1e-9 {
			t.Errorf("x%d: ρ0 = %v, 1 + 2·Σρ = %v, closed-form IAT %v", i+1, rho[n][0], sum, iat[i])
		}
	}
	// Every other lag: ρ at thin = 2 is ρ at every second lag of thin = 1.
	rho2, err := closedACF(q, sigma, coords, 2, 10)
	if err != nil {
		t.Fatal(err)
	}
	for k, r := range rho2[1] {
		if math.Abs(r-rho[1][2*k]) > 1e-12 {
			t.Errorf("thin 2, lag %d: %v, thin 1 lag %d: %v", k, r, 2*k, rho[1][2*k])
		}
	}
}

// readAR1 reads ar1Model.
func readAR1(t *testing.T) [][]float64 {
	t.Helper()
	f, err := os.Open(ar1Model)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	q, err := readMatrixMarket(f, maxDim)
	if err != nil {
		t.Fatal(err)
	}
	return q
}
