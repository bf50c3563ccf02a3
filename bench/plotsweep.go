package main

// The timing charts of -plot: µs per sweep against the batch B, a line per
// kernel (the generic baseline, Auto, each strategy), a panel per dim, a
// chart per dtype and sweeps per launch; from the dims' rows and the
// -packages rows alike.

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gibbsgen/gibbsgen/internal/chart"
)

// sweepPoint is one timed configuration.
type sweepPoint struct {
	dim, batch, sweeps int
	dtype, kernel      string
	us                 float64
}

// sweepPoints collects the timed sweeps of rep: the compiled-in dims'
// rows (float32) and the -packages rows but their exact draws.
func sweepPoints(rep *Report) []sweepPoint {
	var pts []sweepPoint
	for _, r := range rep.Rows {
		pts = append(pts, sweepPoint{r.Dim, r.Batch, r.SweepsPerLaunch, "float32", r.Kernel, r.SecPerSweep * 1e6})
	}
	for _, r := range rep.Packages {
		if r.Kernel == "exact" {
			continue // µs per exact draw, not per sweep
		}
		pts = append(pts, sweepPoint{r.Dim, r.Batch, r.SweepsPerLaunch, r.DType, r.Kernel, r.SecPerSweep * 1e6})
	}
	return pts
}

// sweepCharts is one chart per dtype and sweeps per launch, named
// sweep-DTYPE-SWEEPS.png.
func sweepCharts(rep *Report, caption string) ([]chart.File, error) {
	pts := sweepPoints(rep)
	type key struct {
		dtype  string
		sweeps int
	}
	var keys []key
	for _, p := range pts {
		if k := (key{p.dtype, p.sweeps}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.dtype, b.dtype), cmp.Compare(a.sweeps, b.sweeps))
	})
	var files []chart.File
	for _, k := range keys {
		var sel []sweepPoint
		for _, p := range pts {
			if p.dtype == k.dtype && p.sweeps == k.sweeps {
				sel = append(sel, p)
			}
		}
		name := fmt.Sprintf("sweep-%s-%d.png", k.dtype, k.sweeps)
		f, err := sweepChart(name, sel, fmt.Sprintf("%s, %d sweeps a launch", k.dtype, k.sweeps), caption)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// sweepChart draws points of one dtype and sweeps per launch.
func sweepChart(name string, pts []sweepPoint, what, caption string) (chart.File, error) {
	var dims []int
	var kernels []string // first-seen order, so each keeps its colour in every panel
	for _, p := range pts {
		if !slices.Contains(dims, p.dim) {
			dims = append(dims, p.dim)
		}
		if !slices.Contains(kernels, p.kernel) {
			kernels = append(kernels, p.kernel)
		}
	}
	slices.Sort(dims)
	var panels []*plot.Plot
	for i, d := range dims {
		title := fmt.Sprintf("D = %d, %s", d, what)
		if i == 0 {
			title = caption + "\n" + title
		}
		p := newPanel(title, "chains B", "µs per sweep")
		var batches []int
		for ki, kn := range kernels {
			var xy plotter.XYs
			for _, q := range pts {
				if q.dim == d && q.kernel == kn && positive(q.us) {
					xy = append(xy, plotter.XY{X: float64(q.batch), Y: q.us})
					if !slices.Contains(batches, q.batch) {
						batches = append(batches, q.batch)
					}
				}
			}
			if len(xy) == 0 {
				continue
			}
			slices.SortFunc(xy, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
			l, s, err := plotter.NewLinePoints(xy)
			if err != nil {
				return chart.File{}, errorf(name, err)
			}
			// plotutil has 7 colors and 8 kernels are drawn: the glyph
			// tells a kernel from the one whose color it shares.
			l.Color, s.Color = colorOf(ki), colorOf(ki)
			s.Shape = plotutil.Shape(ki)
			if kn == "auto" {
				l.Dashes = dashed
				s.Shape = draw.RingGlyph{}
				s.Radius *= 2
			}
			p.Add(l, s)
			p.Legend.Add(kn, l, s)
		}
		if len(batches) == 0 {
			continue
		}
		slices.Sort(batches)
		p.X.Tick.Marker = batchTicks(batches)
		// A margin on each side of the batches, so a single batch or the
		// end points do not sit on the frame.
		p.X.Min, p.X.Max = float64(batches[0])/2, float64(batches[len(batches)-1])*2
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return chart.File{}, fmt.Errorf("chart %s: no positive timings to draw", name)
	}
	return render(name, grid(panels, 3))
}

// batchTicks labels the batches measured: 4096 as 4K, 1048576 as 1M.
func batchTicks(batches []int) plot.ConstantTicks {
	var ts plot.ConstantTicks
	for _, b := range batches {
		ts = append(ts, plot.Tick{Value: float64(b), Label: countLabel(b)})
	}
	return ts
}

// countLabel writes n with a K or M suffix where it divides exactly.
func countLabel(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}
