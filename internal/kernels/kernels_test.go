package kernels

import (
	"slices"
	"strings"
	"testing"
)

// TestTableRows checks what every row must say: unique names and blocks,
// strategy fields exactly on sweep rows, an Auto rule that always ends in a
// strategy whose rule always holds, and parameters with known kinds.
func TestTableRows(t *testing.T) {
	names, blocks := map[string]bool{}, map[string]bool{}
	var sweeps []*Kernel
	for _, k := range All() {
		if names[k.Name] || blocks[k.Block] {
			t.Errorf("kernel %s: name or block %q repeated", k.Name, k.Block)
		}
		names[k.Name], blocks[k.Block] = true, true
		if strings.HasPrefix(k.Role.String(), "Role(") {
			t.Errorf("kernel %s: role %d has no name for the manifest", k.Name, k.Role)
		}
		if k.MaxDim < 1 || len(k.DTypes) == 0 || len(k.Params) == 0 || k.Geometry.PerBlock < 1 || k.Geometry.Threads < 1 {
			t.Errorf("kernel %s: incomplete row %+v", k.Name, k)
		}
		for _, p := range k.Params {
			if p.Kind < StateP || p.Kind > F64P {
				t.Errorf("kernel %s: parameter %s has kind %d", k.Name, p.Name, p.Kind)
			}
		}
		if k.Role == Sweep {
			sweeps = append(sweeps, k)
			if k.Strategy == Auto || k.StrategyName == "" || k.GoName == "" || k.Prefer == nil || k.AutoDoc == "" {
				t.Errorf("sweep kernel %s lacks strategy fields", k.Name)
			}
			if k.Ext != k.Name+"_ext" || len(k.ExtParams) != len(k.Params)+9 {
				t.Errorf("sweep kernel %s: Ext entry point %q with %d parameters", k.Name, k.Ext, len(k.ExtParams))
			}
			if got, err := ParseStrategy(k.StrategyName); err != nil || got != k.Strategy {
				t.Errorf("ParseStrategy(%q) = %v, %v", k.StrategyName, got, err)
			}
		} else if k.Strategy != Auto || k.StrategyName != "" || k.Prefer != nil {
			t.Errorf("kernel %s (role %d) has strategy fields", k.Name, k.Role)
		}
	}
	slices.SortFunc(sweeps, func(a, b *Kernel) int { return a.AutoRank - b.AutoRank })
	last := sweeps[len(sweeps)-1]
	for _, s := range []Shape{{1, 1, 1, 1, false}, {64, 1 << 30, 1 << 20, 200, true}} {
		if !last.Prefer(s) {
			t.Errorf("Auto's last strategy %s does not hold at %+v: some shapes fall through", last.Name, s)
		}
	}
	if got := Strategies(); !slices.Equal(got, []Strategy{ConstMemory, SharedMemory, WarpPerChain, Specialized}) {
		t.Errorf("Strategies() = %v", got)
	}
	if MaxDim(Float32) != 64 || MaxDim(Float64) != 0 {
		t.Errorf("MaxDim = %d (float32), %d (float64)", MaxDim(Float32), MaxDim(Float64))
	}
}

func TestCheckArgs(t *testing.T) {
	k := Named("gibbs_philox")
	if err := CheckArgs(k.Name, k.Params, []GoKind{GoPointer, GoPointer, GoUint32}); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]GoKind{
		{GoPointer, GoPointer},
		{GoPointer, GoPointer, GoUint64},
		{GoUint64, GoPointer, GoUint32},
		{GoPointer, GoPointer, GoUint32, GoUint32},
	} {
		if err := CheckArgs(k.Name, k.Params, bad); err == nil {
			t.Errorf("CheckArgs(%v) accepted", bad)
		}
	}
}
