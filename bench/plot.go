package main

// -plot: the report's charts as PNGs. charts is a pure function of the
// report (the tests draw synthetic reports without a GPU); main writes the
// files, after a run or from a -json file given to -from.

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gibbsgen/gibbsgen/internal/chart"
)

// Each panel's size in a grid.
const (
	panelW = 4.2 * vg.Inch
	panelH = 3.4 * vg.Inch
)

// charts returns the report's charts: µs per sweep against the batch, one
// PNG per dtype and sweeps per launch with a panel per dim, and for each
// model of the mixing section its burn-in curves against the closed form.
// label (-plot-label, e.g. the run's number) joins each chart's caption.
func charts(rep *Report, label string) ([]chart.File, error) {
	caption := captionOf(rep, label)
	files, err := sweepCharts(rep, caption)
	if err != nil {
		return nil, err
	}
	burn, err := burnInCharts(rep, caption)
	if err != nil {
		return nil, err
	}
	files = append(files, burn...)
	if len(files) == 0 {
		return nil, fmt.Errorf("nothing to draw: the report has no timed rows and no burn-in curves")
	}
	return files, nil
}

// captionOf names the run: device, commit, date and the label.
func captionOf(rep *Report, label string) string {
	var parts []string
	for _, s := range []string{rep.Device, commitText(rep.Commit), dateOf(rep.Start), label} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ", ")
}

func commitText(c string) string {
	if c == "" {
		return ""
	}
	return "commit " + c
}

// dateOf is the day of an RFC 3339 time, or the text as given.
func dateOf(start string) string {
	if len(start) >= 10 {
		return start[:10]
	}
	return start
}

// grid lays n panels out in rows of at most cols.
func grid(panels []*plot.Plot, cols int) [][]*plot.Plot {
	cols = min(cols, len(panels))
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += cols {
		row := make([]*plot.Plot, cols)
		copy(row, panels[i:min(len(panels), i+cols)])
		rows = append(rows, row)
	}
	return rows
}

// render draws a grid of panels as the PNG name.
func render(name string, rows [][]*plot.Plot) (chart.File, error) {
	return chart.Grid(name, rows, panelW*vg.Length(len(rows[0])), panelH*vg.Length(len(rows)))
}

// newPanel is a plot with log axes and a legend in the top left corner.
func newPanel(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top, p.Legend.Left = true, true
	p.Legend.XOffs, p.Legend.YOffs = vg.Points(6), -vg.Points(4)
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Add(plotter.NewGrid())
	return p
}

// positive reports whether v can be drawn on a log axis.
func positive(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

// colorOf is series i's colour, the same in every panel of a chart.
func colorOf(i int) color.Color { return plotutil.Color(i) }

// dashed is the line style of reference curves.
var dashed = []vg.Length{vg.Points(4), vg.Points(3)}

// errorf wraps a chart's error with its name.
func errorf(name string, err error) error { return fmt.Errorf("chart %s: %w", name, err) }
