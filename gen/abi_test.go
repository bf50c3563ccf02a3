package gen

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// kernelSignatures returns the extern "C" entry points of CUDA source, by
// name, with their parameter lists normalized to "type name, ...".
func kernelSignatures(src []byte) (map[string]string, []string) {
	re := regexp.MustCompile(`extern "C" __global__ void(?: __launch_bounds__\([^)]*\))?\s+(\w+)\(([^)]*)\)`)
	found := map[string]string{}
	var order []string
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		found[m[1]] = normalizeParams(m[2])
		order = append(order, m[1])
	}
	return found, order
}

// definedEntry is an entry point that k's template block defines.
type definedEntry struct {
	name   string
	params []kernels.Param
	hidden bool // k.Pulled or k.Shifted, which the manifest does not list
}

// definedEntries are the entry points k's template block defines, in its
// order: EntryPoints', with Pulled and Shifted after a sweep strategy's
// traced one or another kernel's plain one.
func definedEntries(k *kernels.Kernel) []definedEntry {
	after := kernels.EntryTraced
	if k.Role != kernels.Sweep {
		after = kernels.EntryPlain
	}
	var out []definedEntry
	for _, ep := range k.EntryPoints() {
		name, params := k.EntryPoint(ep)
		out = append(out, definedEntry{name: name, params: params})
		if ep != after {
			continue
		}
		if k.Pulled != "" {
			out = append(out, definedEntry{k.Pulled, k.Params, true})
		}
		if k.Shifted != "" {
			name, params := k.EntryPoint(kernels.EntryShifted)
			out = append(out, definedEntry{name, params, true})
		}
	}
	return out
}

func normalizeParams(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "* ", " *")
}

// TestKernelABI checks the kernel ABI's writings against each other: the
// template's signatures and the manifest's parameters against the kernel
// table, for every kernel, in table order. (gibbsrt's
// TestLaunchArgsMatchTable checks the launch argument lists.)
func TestKernelABI(t *testing.T) {
	s := resolved(t, Spec{Dim: 7, Package: "p", Dir: "x"})
	src, psrc, err := s.render()
	if err != nil || psrc.Text == nil {
		t.Fatalf("render: no PTX source (%v)", err)
	}
	// The fatbin's source, then the PTX's: the table's order.
	found, order := kernelSignatures(append(append([]byte(nil), src.Text...), psrc.Text...))
	manifest := s.manifestKernels()
	var want []string
	m := 0
	for _, k := range s.all {
		for _, e := range definedEntries(k) {
			want = append(want, e.name)
			var parts []string
			for _, p := range e.params {
				parts = append(parts, p.Kind.CType(kernels.Float32)+" "+p.Name)
			}
			table := normalizeParams(strings.Join(parts, ", "))
			if got, ok := found[e.name]; !ok {
				t.Errorf("kernel %s is in the table but not in the source", e.name)
			} else if got != table {
				t.Errorf("kernel %s: source parameters %q, table %q", e.name, got, table)
			}
			if e.hidden {
				continue
			}
			if m >= len(manifest) {
				t.Fatalf("manifest lists %d entry points, the table more", len(manifest))
			}
			var mparts []string
			for _, p := range manifest[m].Params {
				mparts = append(mparts, p.CType+" "+p.Name)
			}
			if mp := normalizeParams(strings.Join(mparts, ", ")); manifest[m].Name != e.name || mp != table {
				t.Errorf("manifest entry %d: %s(%s), table %s(%s)", m, manifest[m].Name, mp, e.name, table)
			}
			m++
		}
	}
	if m != len(manifest) {
		t.Errorf("manifest lists %d entry points, the table %d", len(manifest), m)
	}
	// The sources define the fatbin's kernels, then the PTX's, each in
	// table order.
	var wantOrder []string
	for _, ks := range [][]*kernels.Kernel{s.fatbin.kernels, s.ptx.kernels} {
		for _, k := range ks {
			for _, e := range definedEntries(k) {
				wantOrder = append(wantOrder, e.name)
			}
		}
	}
	if !slices.Equal(order, wantOrder) || len(want) != len(wantOrder) {
		t.Errorf("source defines kernels %v, table %v", order, want)
	}
}

// TestKernelABICatchesDrift shows the signature check can fail: a template
// whose signature drifted from the table is told apart.
func TestKernelABICatchesDrift(t *testing.T) {
	src, err := renderCUDA(Spec{Dim: 7, Package: "p", Dir: "x"})
	if err != nil {
		t.Fatal(err)
	}
	drifted := strings.Replace(string(src.Text), "gibbs_sweep_shared(float* x, unsigned long long chains, unsigned int sweeps", "gibbs_sweep_shared(float* x, unsigned int chains, unsigned int sweeps", 1)
	if drifted == string(src.Text) {
		t.Fatal("the mutation did not apply; update the test")
	}
	found, _ := kernelSignatures([]byte(drifted))
	k := kernels.ForStrategy(kernels.SharedMemory)
	var parts []string
	for _, p := range k.Params {
		parts = append(parts, p.Kind.CType(kernels.Float32)+" "+p.Name)
	}
	if found[k.Name] == normalizeParams(strings.Join(parts, ", ")) {
		t.Error("a drifted signature still matches the table")
	}
}

// TestPackageHoldsChosenStrategies: a spec with some strategies renders,
// describes and lists exactly those sweep kernels (and every other kernel),
// and declares only the tables they read.
func TestPackageHoldsChosenStrategies(t *testing.T) {
	s := resolved(t, Spec{Dim: 7, Package: "p", Dir: "x", Strategies: []kernels.Strategy{kernels.SharedMemory}})
	src, psrc, err := s.render()
	if err != nil {
		t.Fatal(err)
	}
	_, order := kernelSignatures(src.Text)
	want := []string{"gibbs_sweep_shared", "gibbs_sweep_shared_trace", "gibbs_sweep_shared_ext", "gibbs_sweep_noise", "gibbs_philox", "gibbs_transform", "gibbs_moments", "gibbs_linear", "gibbs_shift", "gibbs_family", "gibbs_family_exact", "gibbs_normals"}
	if s.hasPTX() || psrc.Text != nil {
		t.Errorf("render gave a PTX source (%d bytes) for a package without the per-model kernel", len(psrc.Text))
	}
	if !slices.Equal(order, want) {
		t.Errorf("source defines %v, want %v", order, want)
	}
	if strings.Contains(string(src.Text), "gibbs_weight[") || strings.Contains(string(src.Text), "ConstWeights") {
		t.Error("source declares the constant-memory weights that no kernel of it reads")
	}
	var names []string
	for _, k := range s.manifestKernels() {
		names = append(names, k.Name)
	}
	if !slices.Equal(names, want) {
		t.Errorf("manifest lists %v, want %v", names, want)
	}
	for _, sym := range s.manifestSymbols() {
		if sym.Name == kernels.SymbolWeight {
			t.Errorf("manifest lists symbol %s, which no kernel of the package reads", sym.Name)
		}
	}
}

// TestEveryRowHasItsBlock: each row's template block exists and defines
// exactly the row's kernel, so adding a row without its block, or a block
// under the wrong name, fails here.
func TestEveryRowHasItsBlock(t *testing.T) {
	for _, k := range kernels.All() {
		if cudaTemplates.Lookup(k.Block) == nil {
			t.Errorf("kernel %s: template block %q is not defined", k.Name, k.Block)
			continue
		}
		var buf strings.Builder
		if err := cudaTemplates.ExecuteTemplate(&buf, k.Block, newBlockData(cudaData{Dim: 7, DType: kernels.Float32}, k)); err != nil {
			t.Errorf("kernel %s: %v", k.Name, err)
			continue
		}
		var want []string
		for _, e := range definedEntries(k) {
			want = append(want, e.name)
		}
		if _, order := kernelSignatures([]byte(buf.String())); !slices.Equal(order, want) {
			t.Errorf("block %s defines %v, want %v", k.Block, order, want)
		}
	}
}

// TestDeclare: a table's declaration is rendered from its row, and a name
// no row describes is an error naming it.
func TestDeclare(t *testing.T) {
	d := cudaData{Dim: 7, DType: kernels.Float32}
	if got, err := d.Declare(kernels.SymbolMatN); err != nil || got != "__device__ __align__(16) gg_real gibbs_mat_n[3 * GG_DIM * GG_MST];" {
		t.Errorf("Declare(%s) = %q, %v", kernels.SymbolMatN, got, err)
	}
	if got, err := d.Declare(kernels.SymbolKeep); err != nil || got != "__constant__ gg_real gibbs_keep[1];" {
		t.Errorf("Declare(%s) = %q, %v", kernels.SymbolKeep, got, err)
	}
	if _, err := d.Declare("gibbs_nothing"); err == nil || !strings.Contains(err.Error(), `"gibbs_nothing"`) {
		t.Errorf("Declare of an unknown table: %v", err)
	}
}

// TestKernelsWithTheirStrategy: a kernel that reads a strategy's tables
// (kernels.Kernel.With: the exact-draw kernel, the matrix strategy's) is in
// a package exactly when that strategy is.
func TestKernelsWithTheirStrategy(t *testing.T) {
	has := func(s Spec, name string) bool {
		return slices.ContainsFunc(s.kernels(), func(k *kernels.Kernel) bool { return k.Name == name })
	}
	for _, c := range []struct {
		strategies []kernels.Strategy
		want       bool
	}{
		{nil, true},
		{[]kernels.Strategy{kernels.Matrix}, true},
		{[]kernels.Strategy{kernels.SharedMemory, kernels.Matrix}, true},
		{[]kernels.Strategy{kernels.SharedMemory}, false},
	} {
		s := Spec{Dim: 8, Strategies: c.strategies}
		if got := has(s, "gibbs_exact"); got != c.want {
			t.Errorf("strategies %v: gibbs_exact in the package is %v, want %v", c.strategies, got, c.want)
		}
	}
}
