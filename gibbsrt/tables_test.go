package gibbsrt

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestReferenceTable: each module table holds its source in its row's
// layout (the tiled kernel's weight of position j in position k's mean at
// Tile.TileIndex), the matrix form's tables are MatrixTables's, and a
// table before SetModel, or one no row describes, is an error naming it.
func TestReferenceTable(t *testing.T) {
	const dim = 37 // 4 lanes of 12 slots: a padded tile row
	r := NewReference[float64](dim)
	if _, err := r.Table(kernels.SymbolWeight); err == nil || !strings.Contains(err.Error(), "before SetModel") {
		t.Errorf("Table before SetModel: %v", err)
	}
	q, mu := spdModel(dim, 100, rand.New(rand.NewPCG(3, 7)))
	if err := r.SetScheme(Scheme{Kind: Symmetric, Omega: 1.3}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetModel(rowsOf(q), mu); err != nil {
		t.Fatal(err)
	}
	co := r.Coefficients()
	tile, err := r.Table(kernels.SymbolWeightTile)
	if err != nil {
		t.Fatal(err)
	}
	sh := kernels.TileShape(dim, kernels.Float64)
	if len(tile) != kernels.Frames*dim*sh.Row {
		t.Fatalf("tile table has %d elements, want %d", len(tile), kernels.Frames*dim*sh.Row)
	}
	nonzero := 0
	for f := range kernels.Frames {
		w, _, _ := co.Frame(f)
		for j := range dim {
			for k := range dim {
				if got, want := tile[sh.TileIndex(dim, f, j, k)], w[j*co.Stride+k]; got != want {
					t.Fatalf("tile table, frame %d: weight of %d in %d's mean is %v, want %v", f, j, k, got, want)
				}
				if w[j*co.Stride+k] != 0 {
					nonzero++
				}
			}
		}
	}
	for _, v := range tile {
		if v != 0 {
			nonzero--
		}
	}
	if nonzero != 0 {
		t.Errorf("tile table: %d nonzero weights more than the model's", -nonzero)
	}
	mt, err := r.MatrixTables()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]float64{
		kernels.SymbolWeight: co.Weight, kernels.SymbolWeightG: co.Weight, kernels.SymbolOffset: co.Offset,
		kernels.SymbolScale: co.Scale, kernels.SymbolKeep: {co.Keep},
		kernels.SymbolMatM: mt.M, kernels.SymbolMatN: mt.N, kernels.SymbolMatC: mt.C,
	} {
		got, err := r.Table(name)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("table %s: %d elements, %v; want the source's %d", name, len(got), err, len(want))
		}
	}
	// The length the manifest gives each table is the runtime's (the
	// matrix tables' rows are padded by the dtype's shape: 40 here, 37 in
	// float32).
	for _, sym := range kernels.Symbols() {
		if got, err := r.Table(sym.Name); err != nil || len(got) != sym.Length(dim, kernels.Float64) {
			t.Errorf("table %s: %d elements, %v; the manifest says %d", sym.Name, len(got), err, sym.Length(dim, kernels.Float64))
		}
	}
	if _, err := r.Table("gibbs_nothing"); err == nil || !strings.Contains(err.Error(), `"gibbs_nothing"`) {
		t.Errorf("Table of an unknown name: %v", err)
	}
}
