// Package chart renders gonum/plot plots to PNG files for gibbsbench and
// the examples: a grid of plots as one PNG in memory (a pure step, so that
// callers can test their charts without touching the disk), and the write
// of named PNGs into a directory (the I/O edge).
package chart

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// File is one rendered chart: a file name (no directory) and its PNG.
type File struct {
	Name string
	PNG  []byte
}

// DPI of every chart: sharp on a high-density screen, small on disk.
const DPI = 120

// Grid renders plots (rows of columns; a nil entry leaves its tile empty)
// as one PNG of w×h, the tiles' axes aligned. gonum/plot panics on data a
// log axis cannot show; that comes back as an error naming name.
func Grid(name string, plots [][]*plot.Plot, w, h vg.Length) (f File, err error) {
	if len(plots) == 0 || len(plots[0]) == 0 {
		return File{}, fmt.Errorf("chart %s: no plots", name)
	}
	defer func() {
		if r := recover(); r != nil {
			f, err = File{}, fmt.Errorf("chart %s: %v", name, r)
		}
	}()
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))
	dc := draw.New(img)
	t := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, t, dc)
	for i, row := range plots {
		for j, p := range row {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return File{}, fmt.Errorf("chart %s: %w", name, err)
	}
	return File{Name: name, PNG: buf.Bytes()}, nil
}

// Write writes files into dir, creating dir if it is missing. The error
// names the directory or the file that could not be written.
func Write(dir string, files []File) error {
	if err := Dir(dir); err != nil {
		return err
	}
	for _, f := range files {
		if f.Name == "" || strings.ContainsAny(f.Name, `/\`) {
			return fmt.Errorf("chart file name %q: must be a plain file name", f.Name)
		}
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, f.PNG, 0o644); err != nil {
			return fmt.Errorf("writing chart %s: %w", p, err)
		}
	}
	return nil
}

// Dir makes sure that dir is a directory charts can be written to,
// creating it if it is missing, so that a long run can refuse a bad
// directory before it starts.
func Dir(dir string) error {
	if dir == "" {
		return errors.New("chart directory: empty name")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("chart directory %s: %w", dir, err)
	}
	probe, err := os.CreateTemp(dir, ".chart-probe-*")
	if err != nil {
		return fmt.Errorf("chart directory %s: not writable: %w", dir, err)
	}
	name := probe.Name()
	probe.Close()
	return os.Remove(name)
}
