package main

// The dimensions gibbsbench can measure: one generated package each. This
// table is the only place that names them.

import (
	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/out/gibbs32"
	"github.com/gibbsgen/gibbsgen/out/gibbs64"
	"github.com/gibbsgen/gibbsgen/out/gibbs8"
)

var dimTable = []dimEntry{
	{8, open(gibbs8.New)},
	{32, open(gibbs32.New)},
	{64, open(gibbs64.New)},
}

// dimEntry is one generated package: its dimension and a constructor that
// returns its runtime sampler on a device ordinal.
type dimEntry struct {
	dim        int
	newSampler func(device int) (*gibbsrt.Sampler[float32], error)
}

// open adapts a generated package's New to dimEntry.newSampler.
func open[S interface {
	Runtime() *gibbsrt.Sampler[float32]
}](newFn func(int) (S, error)) func(int) (*gibbsrt.Sampler[float32], error) {
	return func(device int) (*gibbsrt.Sampler[float32], error) {
		s, err := newFn(device)
		if err != nil {
			return nil, err
		}
		return s.Runtime(), nil
	}
}

// lookupDim returns the table entry for dim.
func lookupDim(dim int) (dimEntry, bool) {
	for _, e := range dimTable {
		if e.dim == dim {
			return e, true
		}
	}
	return dimEntry{}, false
}
