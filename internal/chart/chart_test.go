package chart

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

func logPlot(t *testing.T, ys ...float64) *plot.Plot {
	t.Helper()
	p := plot.New()
	p.Y.Scale = plot.LogScale{}
	var xy plotter.XYs
	for i, y := range ys {
		xy = append(xy, plotter.XY{X: float64(i), Y: y})
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	return p
}

func TestGrid(t *testing.T) {
	f, err := Grid("a.png", [][]*plot.Plot{{logPlot(t, 1, 10), nil}}, 4*vg.Inch, 2*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(f.PNG))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 4*DPI || b.Dy() != 2*DPI || f.Name != "a.png" {
		t.Errorf("%s: %v", f.Name, b)
	}
}

// gonum/plot panics on a log axis with a zero; Grid says so instead.
func TestGridRefusesWhatALogAxisCannotShow(t *testing.T) {
	_, err := Grid("zero.png", [][]*plot.Plot{{logPlot(t, 1, 0)}}, vg.Inch, vg.Inch)
	if err == nil || !strings.Contains(err.Error(), "chart zero.png: ") || !strings.Contains(err.Error(), "log scale") {
		t.Errorf("got %v", err)
	}
	if _, err := Grid("none.png", nil, vg.Inch, vg.Inch); err == nil || err.Error() != "chart none.png: no plots" {
		t.Errorf("got %v", err)
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "new", "dir")
	if err := Write(sub, []File{{"a.png", []byte("x")}}); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(filepath.Join(sub, "a.png")); err != nil || string(data) != "x" {
		t.Errorf("%q, %v", data, err)
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 1 {
		t.Errorf("%d entries, want the chart alone (no probe left)", len(entries))
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir   string
		files []File
		want  string
	}{
		{file, nil, "chart directory " + file + ": "},
		{"", nil, "chart directory: empty name"},
		{sub, []File{{"../b.png", nil}}, `chart file name "../b.png": must be a plain file name`},
	} {
		if err := Write(c.dir, c.files); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Write(%q): %v, want %q", c.dir, err, c.want)
		}
	}
}
