package main

// -plot: trace and autocorrelation charts of a few coordinates, drawn from
// the draws alone (main writes the files).

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/gibbsgen/gibbsgen/internal/chart"
	"github.com/gibbsgen/gibbsgen/mcstat"
)

// The charts' choices: the chains a trace shows (more hide each other),
// and the most lags, in records, of the autocorrelation.
const (
	traceChains = 4
	maxACFLags  = 100
)

// charts draws trace.png and autocorrelation.png of o.plotCoords.
func charts(o options, q [][]float64, mu []float64, exact *mat.SymDense, d draws) ([]chart.File, error) {
	records := len(d.records) / (o.traced * dim)
	// Record r is the state after absolute sweep first + r·thin: the
	// trace records every sweep count that is a multiple of thin.
	from := d.burnin.Burnin + d.burnin.Sweeps // the stream sweeps before the records
	first := (from/o.thin + 1) * o.thin
	caption := fmt.Sprintf("%s: %d chains, %s, every %d sweeps recorded", d.where, o.chains, d.burnt(), o.thin)

	var traces [][]*plot.Plot
	for n, i := range o.plotCoords {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("coordinate %d: the first %d traced chains; exact mean ± 2 sd", i+1, min(traceChains, o.traced))
		if n == 0 {
			p.Title.Text = caption + "\n" + p.Title.Text
		}
		p.X.Label.Text, p.Y.Label.Text = "sweep", fmt.Sprintf("x%d", i+1)
		p.Add(plotter.NewGrid())
		xs := series(d, o.traced, i, func(v float64) float64 { return v })
		for c := 0; c < min(traceChains, o.traced); c++ {
			xy := make(plotter.XYs, records)
			for r, v := range xs[c] {
				xy[r] = plotter.XY{X: float64(first + r*o.thin), Y: v}
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return nil, err
			}
			l.Color, l.Width = plotutil.Color(c), vg.Points(0.7)
			p.Add(l)
		}
		sd := math.Sqrt(exact.At(i, i))
		for _, k := range []float64{-2, 0, 2} {
			f := plotter.NewFunction(func(float64) float64 { return mu[i] + k*sd })
			f.Color, f.Width = color.Black, vg.Points(1)
			if k != 0 {
				f.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(f)
		}
		traces = append(traces, []*plot.Plot{p})
	}
	trace, err := chart.Grid("trace.png", traces, 8*vg.Inch, 2.4*vg.Inch*vg.Length(len(traces)))
	if err != nil {
		return nil, err
	}

	p := plot.New()
	lags := min(maxACFLags, records-1)
	p.Title.Text = fmt.Sprintf("%s\nautocorrelation over the %d traced chains (combined as for ESS), and the closed form of plain sweeps", caption, o.traced)
	p.X.Label.Text, p.Y.Label.Text = "lag (sweeps)", "autocorrelation"
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	closed, err := closedACF(q, exact, o.plotCoords, o.thin, lags)
	if err != nil {
		return nil, err
	}
	for n, i := range o.plotCoords {
		rho, err := mcstat.Autocorrelation(series(d, o.traced, i, func(v float64) float64 { return v }), lags)
		if err != nil {
			return nil, fmt.Errorf("coordinate %d: %w", i+1, err)
		}
		xy := make(plotter.XYs, len(rho))
		for k, r := range rho {
			xy[k] = plotter.XY{X: float64(k * o.thin), Y: r}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(n)
		cf := make(plotter.XYs, len(closed[n]))
		for k, r := range closed[n] {
			cf[k] = plotter.XY{X: float64(k * o.thin), Y: r}
		}
		c, err := plotter.NewLine(cf)
		if err != nil {
			return nil, err
		}
		c.Color, c.Width, c.Dashes = plotutil.Color(n), vg.Points(2), []vg.Length{vg.Points(5), vg.Points(3)}
		p.Add(l, c)
		p.Legend.Add(fmt.Sprintf("x%d measured", i+1), l)
		p.Legend.Add(fmt.Sprintf("x%d closed form", i+1), c)
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Color = color.Gray{Y: 0x60}
	p.Add(zero)
	acf, err := chart.Grid("autocorrelation.png", [][]*plot.Plot{{p}}, 7*vg.Inch, 4*vg.Inch)
	if err != nil {
		return nil, err
	}
	return []chart.File{trace, acf}, nil
}
