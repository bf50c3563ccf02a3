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
	{8, gibbs8.New},
	{32, gibbs32.New},
	{64, gibbs64.New},
}

// dimEntry is one generated package: its dimension and its New, which
// returns the runtime's sampler (a generated Sampler is an alias of it).
type dimEntry struct {
	dim        int
	newSampler func(device int) (*gibbsrt.Sampler[float32], error)
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
