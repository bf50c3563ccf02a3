package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// syntheticReport is a report as a run fills it: two compiled-in dims at
// two batches and two sweeps per launch, a float64 package, and one
// mixing model with geometric burn-in curves.
func syntheticReport() *Report {
	rep := &Report{Device: "Test GPU", Commit: "0123456789ab", Start: "2026-12-02T12:00:00Z"}
	for _, d := range []int{8, 32} {
		for _, sweeps := range []int{1, 100} {
			for _, b := range []int{4096, 1 << 20} {
				for i, k := range []string{"generic", "auto", "shared", "warp", "matrix"} {
					us := float64(d*b) / 1e4 * float64(i+1) / float64(sweeps)
					rep.Rows = append(rep.Rows, Row{Dim: d, Batch: b, SweepsPerLaunch: sweeps, Kernel: k, SecPerSweep: us * 1e-6})
				}
			}
		}
	}
	for _, b := range []int{4096, 1 << 20} {
		rep.Packages = append(rep.Packages, PackageRow{Dim: 128, DType: "float64", Batch: b, SweepsPerLaunch: 100, Kernel: "tile", SecPerSweep: float64(b) * 1e-9},
			// An exact draw is no sweep: it gets no chart of its own.
			PackageRow{Dim: 128, DType: "float64", Batch: b, SweepsPerLaunch: 1, Kernel: "exact", SecPerSweep: float64(b) * 1e-9})
	}
	curve := func(rate, thr float64, cross int) MixingBurnIn {
		b := MixingBurnIn{Threshold: thr, Sweeps: cross, Pred: cross}
		for k := 1; k <= 2*cross; k = max(k+1, k*5/4) {
			b.Measured = append(b.Measured, CurvePoint{k, math.Pow(rate, float64(k)) * 1.01})
		}
		for k := 1; k <= 3*cross; k++ {
			v := math.Pow(rate, float64(k))
			b.Closed = append(b.Closed, BandPoint{Sweeps: k, Exact: v, Lo: v - 0.05, Hi: v + 0.05})
		}
		return b
	}
	for _, s := range []string{"plain", "forward", "symmetric", "chebyshev"} {
		rep.Mixing = append(rep.Mixing, MixingRow{Model: "ar1", Description: "AR(1)", Dim: 64, Scheme: s, Omega: 1, Chains: 1 << 20,
			Mean: curve(0.9, 1e-3, 66), Cov: curve(0.8, 1e-2, 21)})
	}
	// A model from a report written before the curves were kept: no chart.
	rep.Mixing = append(rep.Mixing, MixingRow{Model: "seed", Scheme: "plain", Mean: MixingBurnIn{Sweeps: 3}})
	return rep
}

// wantCharts are syntheticReport's charts and their pixel sizes: panels
// of 4.2 × 3.4 inches at chart.DPI, dims side by side, the burn-in chart's
// schemes side by side over its two errors.
var wantCharts = map[string][2]int{
	"sweep-float32-1.png":   {2 * 504, 408},
	"sweep-float32-100.png": {2 * 504, 408},
	"sweep-float64-100.png": {504, 408},
	"burnin-ar1.png":        {4 * 504, 2 * 408},
}

func checkPNGs(t *testing.T, files map[string][]byte) {
	t.Helper()
	if len(files) != len(wantCharts) {
		t.Errorf("%d charts %v, want %d", len(files), slices.Sorted(maps.Keys(files)), len(wantCharts))
	}
	for name, size := range wantCharts {
		data, ok := files[name]
		if !ok {
			t.Errorf("no chart %s", name)
			continue
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Errorf("%s is %dx%d, want %dx%d", name, b.Dx(), b.Dy(), size[0], size[1])
		}
	}
}

func TestChartsOfSyntheticReport(t *testing.T) {
	files, err := charts(syntheticReport(), "run 0")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, f := range files {
		got[f.Name] = f.PNG
	}
	checkPNGs(t, got)
}

// -from draws the charts of -json reports without a GPU, into a new
// directory: here the synthetic report split over two files, as two calls
// of the bench would write it.
func TestPlotFromJSON(t *testing.T) {
	dir := t.TempDir()
	rep := syntheticReport()
	small, large := *rep, *rep
	small.Packages, small.Mixing = nil, nil
	large.Rows = nil
	js := []string{filepath.Join(dir, "small.json"), filepath.Join(dir, "large.json")}
	for i, r := range []*Report{&small, &large} {
		if err := writeJSON(js[i], r); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "charts", "run")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-from", strings.Join(js, ","), "-plot", out, "-plot-label", "run 0"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = data
	}
	checkPNGs(t, got)
	if n := strings.Count(stdout.String(), "wrote "); n != len(wantCharts) {
		t.Errorf("stdout names %d files, want %d: %q", n, len(wantCharts), stdout.String())
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	js := filepath.Join(dir, "results.json")
	if err := writeJSON(js, syntheticReport()); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := writeJSON(empty, &Report{Device: "Test GPU"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		// A file where the directory should be: refused before any run.
		{[]string{"-from", js, "-plot", filepath.Join(file, "charts")}, exitUsage, []string{"-plot: chart directory " + filepath.Join(file, "charts"), "not a directory"}},
		{[]string{"-plot", file}, exitUsage, []string{"-plot: chart directory " + file}},
		{[]string{"-from", js}, exitUsage, []string{"-from " + js + ": needs -plot DIR"}},
		{[]string{"-from", filepath.Join(dir, "missing.json"), "-plot", dir}, exitError, []string{"-from: open " + filepath.Join(dir, "missing.json")}},
		{[]string{"-from", file, "-plot", dir}, exitError, []string{"-from " + file + ": not a gibbsbench -json report"}},
		{[]string{"-from", empty, "-plot", dir}, exitError, []string{"nothing to draw"}},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d (%s)", c.args, code, c.code, stderr.String())
		}
		for _, w := range c.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, stderr.String(), w)
			}
		}
	}
}

// The report keeps the burn-in curves the charts need, and they agree
// with the crossings beside them: on the Reference, the measured errors
// cross the threshold where measureBurnIn says, and the closed form's
// recorded curve where its crossing is.
func TestBurnInCurvesKept(t *testing.T) {
	m := smallAR1()
	for _, sc := range []mixScheme{mixSchemes[0], mixSchemes[3]} {
		res, p := burnInCase(t, m, sc, sc, 1024, 0.2, 1000)
		for _, c := range []struct {
			what  string
			k     int
			thr   float64
			meas  []CurvePoint
			cross mixing.Crossing
		}{{"mean", res.mean, mixMeanThreshold, res.meanCurve, p.mean}, {"cov", res.cov, 0.2, res.covCurve, p.cov}} {
			first := slices.IndexFunc(c.meas, func(q CurvePoint) bool { return q.Err <= c.thr })
			if first < 1 || c.meas[first-1].Sweeps >= c.k || c.meas[first].Sweeps < c.k {
				t.Errorf("%s, %s: crossing %d, measured curve %v", sc.name, c.what, c.k, c.meas)
			}
			cl := c.cross.Curve
			for i, q := range cl {
				if (i < mixing.CurveEvery && q.Sweeps != i+1) || (i > 0 && q.Sweeps <= cl[i-1].Sweeps) || q.Lo > q.Hi {
					t.Fatalf("%s, %s: closed-form point %d is %+v after %+v", sc.name, c.what, i, q, cl[max(0, i-1)])
				}
			}
			at := slices.IndexFunc(cl, func(q BandPoint) bool { return q.Exact <= c.thr })
			if at < 0 || cl[at].Sweeps < c.cross.Exact || (at > 0 && cl[at-1].Sweeps >= c.cross.Exact) {
				t.Errorf("%s, %s: closed-form crossing %d, curve %v", sc.name, c.what, c.cross.Exact, cl)
			}
		}
	}
}

// A report's curves survive -json and -from.
func TestCurvesInJSON(t *testing.T) {
	rep := syntheticReport()
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Mixing[0].Mean.Measured, rep.Mixing[0].Mean.Measured) || !slices.Equal(back.Mixing[0].Cov.Closed, rep.Mixing[0].Cov.Closed) {
		t.Error("the curves changed through JSON")
	}
}

// Values JSON cannot hold stay out of the curves, so -json still writes.
func TestCurvesKeepOnlyFinite(t *testing.T) {
	pts := measured(nil, 1, 0.5)
	pts = measured(pts, 2, math.NaN())
	pts = measured(pts, 3, math.Inf(1))
	rep := &Report{Mixing: []MixingRow{{Mean: MixingBurnIn{Measured: pts}}}}
	if len(pts) != 1 {
		t.Errorf("kept %v", pts)
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Error(err)
	}
}
