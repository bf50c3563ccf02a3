package main

// The burn-in charts of -plot: for each model of the mixing section, the
// mean and the covariance error against sweeps, for each scheme: the
// errors measured at the burn-in search's checks beside the closed form
// (B = ∞) and the range expected at B, with the threshold.

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/gibbsgen/gibbsgen/internal/chart"
)

// The burn-in charts' colours: measured, closed form, expected range.
var (
	measuredColor = color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	closedColor   = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	bandColor     = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0x48}
)

// burnInCharts is one chart per model with curves, burnin-MODEL.png.
// Reports written before the curves were kept have none, and get none.
func burnInCharts(rep *Report, caption string) ([]chart.File, error) {
	var models []string
	for _, r := range rep.Mixing {
		if len(r.Mean.Measured)+len(r.Cov.Measured) > 0 && !slices.Contains(models, r.Model) {
			models = append(models, r.Model)
		}
	}
	var files []chart.File
	for _, m := range models {
		var rows []MixingRow
		for _, r := range rep.Mixing {
			if r.Model == m {
				rows = append(rows, r)
			}
		}
		name := "burnin-" + m + ".png"
		title := fmt.Sprintf("%s (D = %d), B = %s chains", rows[0].Description, rows[0].Dim, countLabel(rows[0].Chains))
		panels := [][]*plot.Plot{make([]*plot.Plot, len(rows)), make([]*plot.Plot, len(rows))}
		for j, r := range rows {
			for i, c := range []struct {
				what, y string
				b       MixingBurnIn
			}{{"mean error", "‖mean − µ‖ / ‖start − µ‖", r.Mean}, {"covariance error", "‖cov − Σ‖F / ‖Σ‖F", r.Cov}} {
				t := fmt.Sprintf("%s (ω %.3g): %s", r.Scheme, r.Omega, c.what)
				if i == 0 && j == 0 {
					t = caption + "\n" + title + "\n" + t
				}
				p, err := burnInPanel(t, c.y, c.b, i == 0 && j == 0)
				if err != nil {
					return nil, errorf(name, err)
				}
				panels[i][j] = p
			}
		}
		f, err := render(name, panels)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// burnInPanel draws one error of one scheme.
func burnInPanel(title, yLabel string, b MixingBurnIn, legend bool) (*plot.Plot, error) {
	p := newPanel(title, "sweeps", yLabel)
	p.Legend.Top, p.Legend.YOffs = false, vg.Points(4) // the curves fall from the top left
	var meas, exact plotter.XYs
	lowest := b.Threshold
	for _, c := range b.Measured {
		if c.Sweeps > 0 && positive(c.Err) {
			meas = append(meas, plotter.XY{X: float64(c.Sweeps), Y: c.Err})
			lowest = math.Min(lowest, c.Err)
		}
	}
	// The range's lower edge may reach zero, which a log axis cannot show:
	// it is drawn at a tenth of the panel's bottom, below the frame.
	bottom := lowest / 4
	var hi, lo plotter.XYs
	for _, c := range b.Closed {
		if c.Sweeps <= 0 {
			continue
		}
		x := float64(c.Sweeps)
		if positive(c.Exact) {
			exact = append(exact, plotter.XY{X: x, Y: c.Exact})
		}
		if positive(c.Hi) {
			hi = append(hi, plotter.XY{X: x, Y: c.Hi})
			lo = append(lo, plotter.XY{X: x, Y: math.Max(c.Lo, bottom/10)})
		}
	}
	if len(hi) > 1 {
		ring := append(slices.Clone(hi), reversed(lo)...)
		band, err := plotter.NewPolygon(ring)
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = bandColor, 0
		p.Add(band)
		if legend {
			p.Legend.Add("expected range at B (±4 sd)", band)
		}
	}
	if len(exact) > 1 {
		l, err := plotter.NewLine(exact)
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = closedColor, vg.Points(1.5)
		p.Add(l)
		if legend {
			p.Legend.Add("closed form, B = ∞", l)
		}
	}
	if len(meas) > 0 {
		s, err := plotter.NewScatter(meas)
		if err != nil {
			return nil, err
		}
		s.Color, s.Shape = measuredColor, draw.CircleGlyph{}
		p.Add(s)
		if legend {
			p.Legend.Add("measured", s)
		}
	}
	if len(meas)+len(exact) == 0 {
		return nil, fmt.Errorf("%q: nothing positive to draw", title)
	}
	thr := plotter.NewFunction(func(float64) float64 { return b.Threshold })
	thr.Color, thr.Dashes = color.Gray{Y: 0x60}, dashed
	p.Add(thr)
	if legend {
		p.Legend.Add(fmt.Sprintf("threshold %g", b.Threshold), thr)
	}
	p.Y.Min = bottom
	p.X.Min = 1
	return p, nil
}

func reversed(xy plotter.XYs) plotter.XYs {
	out := slices.Clone(xy)
	slices.Reverse(out)
	return out
}
