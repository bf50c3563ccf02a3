package gibbsrt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// ptxFixture is the shape of the per-model kernel's PTX: one marker per
// line of inline PTX.
const ptxFixture = `.visible .entry gibbs_sweep_model(
	mov.f32 %f1, GGO_0;
	mov.f32 %f2, GGO_1;
	fma.rn.f32 %f1, %f9, GGW_4, %f1;
	fma.rn.f32 %f2, %f8, GGW_1, %f2;
	fma.rn.f32 %f3, %f7, GGS_1, %f2;
	ret;
}
`

func fixtureModel(t *testing.T, q01 float64) *Coefficients[float32] {
	t.Helper()
	co, err := NewCoefficients[float32](2, [][]float64{{2, q01}, {q01, 4}}, []float64{1, -1})
	if err != nil {
		t.Fatal(err)
	}
	return co
}

// TestSpecializePTX: markers become the coefficients' bits; a zero weight's
// line (+0, or the -0 that -Q/Q_ii gives for Q = 0) goes; nothing else
// changes.
func TestSpecializePTX(t *testing.T) {
	co := fixtureModel(t, 1)
	out, dropped, kept, err := specializePTX([]byte(ptxFixture), co, exactValues[float32]{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer(
		"GGO_0", hexf(co.Offset[0]), "GGO_1", hexf(co.Offset[1]),
		"GGW_4", hexf(co.Weight[4]), "GGW_1", hexf(co.Weight[1]),
		"GGS_1", hexf(co.Scale[1]),
	).Replace(ptxFixture)
	if string(out) != want {
		t.Errorf("specialized PTX:\n%s\nwant:\n%s", out, want)
	}
	if co.Weight[1] != -0.25 || co.Weight[4] != -0.5 || hexf(co.Weight[4]) != "0fBF000000" {
		t.Errorf("weights %v %v (%s): the fixture's model is not what the test assumes", co.Weight[1], co.Weight[4], hexf(co.Weight[1]))
	}
	if dropped != 0 || kept != 2 {
		t.Errorf("dropped, kept = %d, %d; want 0, 2", dropped, kept)
	}

	zero := fixtureModel(t, 0)
	out, dropped, kept, err = specializePTX([]byte(ptxFixture), zero, exactValues[float32]{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want = strings.NewReplacer(
		"\tfma.rn.f32 %f1, %f9, GGW_4, %f1;\n", "", "\tfma.rn.f32 %f2, %f8, GGW_1, %f2;\n", "",
		"GGO_0", hexf(zero.Offset[0]), "GGO_1", hexf(zero.Offset[1]), "GGS_1", hexf(zero.Scale[1]),
	).Replace(ptxFixture)
	if string(out) != want || dropped != 2 || kept != 0 {
		t.Errorf("zero weights: dropped, kept = %d, %d; PTX:\n%s\nwant:\n%s", dropped, kept, out, want)
	}
}

// TestSpecializePTXFramesAndKeep: frame 1's markers (…R_) take the
// reversed tables' entries, GGK takes keep = 1 − ω, and keep's line goes
// when ω = 1.
func TestSpecializePTXFramesAndKeep(t *testing.T) {
	const ext = "\tmov.f32 %f1, GGOR_0;\n\tfma.rn.f32 %f1, %f9, GGWR_4, %f1;\n\tfma.rn.f32 %f1, %f2, GGK, %f1;\n\tfma.rn.f32 %f3, %f7, GGSR_1, %f1;\n"
	co, err := newRelaxedCoefficients[float32](2, [][]float64{{2, 1}, {1, 4}}, []float64{1, -1}, 1.5)
	if err != nil {
		t.Fatal(err)
	}
	// Frame 1: position 0 is coordinate 1, so its offset is coordinate 1's,
	// and GGWR_4 (position 1 into position 0) is coordinate 0's weight in
	// coordinate 1's mean, frame 0's entry 0*4+1.
	if co.Offset[2] != co.Offset[1] || co.Weight[2*4+4] != co.Weight[1] || co.Scale[3] != co.Scale[0] {
		t.Fatalf("frame 1 is not the reversed frame 0: %v, %v", co.Offset, co.Weight)
	}
	out, dropped, kept, err := specializePTX([]byte(ext), co, exactValues[float32]{}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("GGOR_0", hexf(co.Offset[2]), "GGWR_4", hexf(co.Weight[8+4]), "GGK", hexf(co.Keep),
		"GGSR_1", hexf(co.Scale[3])).Replace(ext)
	if string(out) != want || dropped != 0 || kept != 1 || co.Keep != -0.5 {
		t.Errorf("ω = 1.5: dropped, kept = %d, %d; keep %v; PTX:\n%s\nwant:\n%s", dropped, kept, co.Keep, out, want)
	}
	plain := fixtureModel(t, 1)
	out, _, _, err = specializePTX([]byte(ext), plain, exactValues[float32]{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "GGK") || strings.Count(string(out), "\n") != 3 {
		t.Errorf("ω = 1: keep's line stays:\n%s", out)
	}
}

func hexf(v float32) string { return fmt.Sprintf("0f%08X", math.Float32bits(v)) }

func TestSpecializePTXRejects(t *testing.T) {
	co := fixtureModel(t, 1)
	for _, bad := range []string{
		"\tfma.rn.f32 %f1, %f2, GGW_8, %f1;\n",                    // past the 2x4 weight table
		"\tmov.f32 %f1, GGO_2;\n",                                 // past the offsets
		"\tfma.rn.f32 %f1, GGS_0, GGW_1, %f1;\n",                  // two markers
		"\tfma.rn.f32 %f1, %f2, GGW_99999999999999999999, %f1;\n", // not an int
	} {
		if _, _, _, err := specializePTX([]byte(bad), co, exactValues[float32]{}, false); err == nil {
			t.Errorf("specializePTX(%q) succeeded", bad)
		}
	}
}

func TestModelHash(t *testing.T) {
	a, b := fixtureModel(t, 1), fixtureModel(t, 0.5)
	if modelHash(a, exactValues[float32]{}, ptxPaths{}) != modelHash(fixtureModel(t, 1), exactValues[float32]{}, ptxPaths{}) {
		t.Error("the same model hashes differently")
	}
	if modelHash(a, exactValues[float32]{}, ptxPaths{}) == modelHash(b, exactValues[float32]{}, ptxPaths{}) {
		t.Error("different models hash alike")
	}
	// -Q10/Q11 with Q10 = 0 is -0; +0 there is another table (and
	// another PTX), so another hash.
	c, d := fixtureModel(t, 0), fixtureModel(t, 0)
	d.Weight[1] = 0
	if math.Float32bits(c.Weight[1]) != 0x80000000 {
		t.Fatalf("weight %v is not -0", c.Weight[1])
	}
	if modelHash(c, exactValues[float32]{}, ptxPaths{}) == modelHash(d, exactValues[float32]{}, ptxPaths{}) {
		t.Error("tables that differ in a sign bit hash alike")
	}
	// The same tables with the normals drawn elsewhere are another kernel.
	// The same tables with the normals drawn elsewhere, or the sums pulled,
	// are other kernels, and each of the four is its own.
	seen := map[[32]byte]ptxPaths{}
	for _, p := range []ptxPaths{{}, {staged: true}, {pulled: true}, {staged: true, pulled: true}} {
		h := modelHash(a, exactValues[float32]{}, p)
		if q, dup := seen[h]; dup {
			t.Errorf("paths %+v and %+v hash alike", p, q)
		}
		seen[h] = p
	}
}

// TestPullSums: the sums are pulled only where the hook asks and the PTX
// has the kernel's Pulled entry point.
func TestPullSums(t *testing.T) {
	k := kernels.Named("gibbs_sweep_model")
	with := []byte(".visible .entry gibbs_sweep_model(\n}\n.visible .entry " + k.Pulled + "(\n}\n")
	without := []byte(".visible .entry gibbs_sweep_model(\n}\n")
	yes, no := true, false
	for _, c := range []struct {
		ptx    []byte
		forced *bool
		want   bool
	}{{with, nil, false}, {with, &no, false}, {with, &yes, true}, {without, &yes, false}} {
		if got := pullSums(c.ptx, k, c.forced); got != c.want {
			t.Errorf("pullSums(%q, %v) = %v, want %v", c.ptx, c.forced, got, c.want)
		}
	}
	if pullSums(with, kernels.Named("gibbs_exact_model"), &yes) {
		t.Error("pullSums: a kernel without a Pulled entry point pulls")
	}
}

// TestPulledEntry: where the sampler picks sums by launch, a plain launch
// of the per-model sweep kernel runs the Pulled entry point once its build
// is ready and the launch has at most kernels.PulledSweeps sweeps, and the
// plain one otherwise: the hook off, the build compiling or failed, longer
// launches, other entry points and kernels, the entry point compiled in
// the plain one's place already, a PTX without it.
func TestPulledEntry(t *testing.T) {
	k := kernels.Named("gibbs_sweep_model")
	with := []byte(".visible .entry gibbs_sweep_model(\n}\n.visible .entry " + k.Pulled + "(\n}\n")
	newSpec := func() *specialization[float32] {
		sp := &specialization[float32]{}
		for i := range sp.builds {
			sp.builds[i].done = make(chan struct{})
		}
		sp.builds[buildPulled].started = true // compiling: startBuilds starts nothing
		return sp
	}
	s := &Sampler[float32]{m: impl.Module{Dim: 32, PTX: with}, spec: newSpec()}
	check := func(what string, k *kernels.Kernel, e kernels.Entry, sweeps int, want kernels.Entry) {
		t.Helper()
		if got := s.pulledEntry(k, e, sweeps); got != want {
			t.Errorf("%s: pulledEntry(%s, %v, %d) = %v, want %v", what, k.Name, e, sweeps, got, want)
		}
	}
	plain, pulled := kernels.EntryPlain, kernels.EntryPulled
	check("hook off", k, plain, 1, plain)
	s.pulledByLaunch = true
	check("compiling", k, plain, 1, plain)
	close(s.spec.builds[buildPulled].done)
	check("ready, one sweep", k, plain, 1, pulled)
	most := kernels.PulledSweeps(kernels.Float32)
	check("ready, the most sweeps", k, plain, most, pulled)
	check("ready, one sweep more", k, plain, most+1, plain)
	check("traced", k, kernels.EntryTraced, 1, kernels.EntryTraced)
	check("ext", k, kernels.EntryExt, 1, kernels.EntryExt)
	check("shifted", k, kernels.EntryShifted, 1, kernels.EntryShifted)
	check("another kernel", kernels.ForStrategy(kernels.Tiled), plain, 1, plain)
	s.spec.paths.pulled = true
	check("pulled in place", k, plain, 1, plain)
	s.spec.paths.pulled = false
	s.spec.builds[buildPulled].err = errors.New("no")
	check("failed", k, plain, 1, plain)
	s.spec = newSpec()
	s.m.PTX = []byte(".visible .entry gibbs_sweep_model(\n}\n")
	check("no Pulled entry point", k, plain, 1, plain)

	d := &Sampler[float64]{m: impl.Module{Dim: 32, PTX: with}, pulledByLaunch: true, spec: &specialization[float64]{}}
	b := &d.spec.builds[buildPulled]
	b.started, b.done = true, make(chan struct{})
	close(b.done)
	if got := d.pulledEntry(k, plain, 1); got != pulled {
		t.Errorf("float64, one sweep: %v, want %v", got, pulled)
	}
	if got := d.pulledEntry(k, plain, kernels.PulledSweeps(kernels.Float64)+1); got != plain {
		t.Errorf("float64, %d sweeps: %v, want %v", kernels.PulledSweeps(kernels.Float64)+1, got, plain)
	}
}

// TestUnbuildPlain: under over-relaxation the sweep kernel's plain,
// traced, Shifted and Pulled builds fail with errPlainUnbuilt, and the Ext
// entry point's and the exact-draw kernel's builds are left to be made.
func TestUnbuildPlain(t *testing.T) {
	k := kernels.Named("gibbs_sweep_model")
	sp := &specialization[float32]{}
	for i := range sp.builds {
		sp.builds[i].done = make(chan struct{})
	}
	unbuildPlain(sp, k)
	for _, e := range []kernels.Entry{kernels.EntryPlain, kernels.EntryTraced, kernels.EntryShifted, kernels.EntryPulled} {
		if b := &sp.builds[buildSlot(k, e)]; b.state() != Failed || !errors.Is(b.err, errPlainUnbuilt) {
			t.Errorf("%v: %v (%v), want failed: %v", e, b.state(), b.err, errPlainUnbuilt)
		}
	}
	for slot, what := range map[int]string{int(kernels.EntryExt): "ext", buildExact: "exact", buildExactShifted: "exact shifted"} {
		if st := sp.builds[slot].state(); st != NoSpecialization {
			t.Errorf("%s build: %v, want %v", what, st, NoSpecialization)
		}
	}
}

// TestSpecializePTXStaged: GGZ becomes 1 or 0, and nothing else changes.
func TestSpecializePTXStaged(t *testing.T) {
	const src = "\tmov.u32 %r1, GGZ;\n\tsetp.ne.s32 %p1, %r1, 0;\n"
	co := fixtureModel(t, 1)
	for _, staged := range []bool{false, true} {
		out, _, _, err := specializePTX([]byte(src), co, exactValues[float32]{}, staged)
		if err != nil {
			t.Fatal(err)
		}
		flag := "0"
		if staged {
			flag = "1"
		}
		if want := strings.Replace(src, "GGZ", flag, 1); string(out) != want {
			t.Errorf("staged=%v: %q, want %q", staged, out, want)
		}
	}
}

// TestStagedNormals: the normals are drawn before each pass for symmetric
// sweeps from stagedNormalsMin nonzero weights a coordinate on, never for
// forward or backward ones. A circulant band of half-width h has 2h weights
// in every row.
func TestStagedNormals(t *testing.T) {
	const dim = 40
	band := func(h int) *Coefficients[float32] {
		q := make([][]float64, dim)
		for i := range q {
			q[i] = make([]float64, dim)
			q[i][i] = 1
		}
		for i := range q {
			for k := 1; k <= h; k++ {
				q[i][(i+k)%dim], q[(i+k)%dim][i] = -0.01, -0.01
			}
		}
		co, err := NewCoefficients[float32](dim, q, make([]float64, dim))
		if err != nil {
			t.Fatal(err)
		}
		return co
	}
	for _, c := range []struct {
		h    int
		want bool
	}{{1, false}, {stagedNormalsMin/2 - 1, false}, {stagedNormalsMin / 2, true}, {dim/2 - 1, true}} {
		co := band(c.h)
		if got := stagedNormals(co, Symmetric); got != c.want {
			t.Errorf("band ±%d (%d weights a row), symmetric: stagedNormals = %v, want %v", c.h, 2*c.h, got, c.want)
		}
		for _, k := range []SweepKind{Forward, Backward} {
			if stagedNormals(co, k) {
				t.Errorf("band ±%d, %v: stagedNormals = true, want false", c.h, k)
			}
		}
	}
}

// TestPlaceNormals: the rule, a forced choice either way, and an ABI 7
// PTX (no GGZ), which draws inside the pass whatever is asked.
func TestPlaceNormals(t *testing.T) {
	dense := make([][]float64, 20)
	for i := range dense {
		dense[i] = make([]float64, 20)
		for j := range dense[i] {
			dense[i][j] = 0.01
		}
		dense[i][i] = 1
	}
	co, err := NewCoefficients[float32](20, dense, make([]float64, 20))
	if err != nil {
		t.Fatal(err)
	}
	abi8, abi7 := []byte("\tmov.u32 %r1, GGZ;\n"), []byte("\tmov.f32 %f1, GGO_0;\n")
	no, yes := false, true
	for _, c := range []struct {
		ptx    []byte
		kind   SweepKind
		forced *bool
		want   bool
	}{
		{abi8, Symmetric, nil, true}, {abi8, Forward, nil, false},
		{abi8, Symmetric, &no, false}, {abi8, Forward, &yes, true},
		{abi7, Symmetric, nil, false}, {abi7, Forward, &yes, false},
	} {
		if got := placeNormals(c.ptx, co, c.kind, c.forced); got != c.want {
			forced := "nothing"
			if c.forced != nil {
				forced = fmt.Sprint(*c.forced)
			}
			t.Errorf("%q, %v, forced %s: placeNormals = %v, want %v", c.ptx, c.kind, forced, got, c.want)
		}
	}
}

// TestPTXEntry: one entry point's module keeps the declarations and drops
// the other entry points' blocks.
func TestPTXEntry(t *testing.T) {
	const ptx = ".version 7.8\n.global .b8 tab[4];\n\n.visible .entry a(\n\t.param .u64 p\n)\n{\n\tret;\n\n}\n\t// .globl\tb\n.visible .entry b(\n\t.param .u64 q\n)\n{\n\tret;\n\n}\n"
	if got, want := string(ptxEntry([]byte(ptx), "a")), ".version 7.8\n.global .b8 tab[4];\n\n.visible .entry a(\n\t.param .u64 p\n)\n{\n\tret;\n\n}\n\t// .globl\tb\n"; got != want {
		t.Errorf("entry a:\n%q\nwant\n%q", got, want)
	}
	if got, want := string(ptxEntry([]byte(ptx), "b")), ".version 7.8\n.global .b8 tab[4];\n\n\t// .globl\tb\n.visible .entry b(\n\t.param .u64 q\n)\n{\n\tret;\n\n}\n"; got != want {
		t.Errorf("entry b:\n%q\nwant\n%q", got, want)
	}
}

// updateSkippingZeros is Coefficients.update without the fmas of zero
// weights: what the specialized kernel computes.
func updateSkippingZeros(co *Coefficients[float32], x, z []float32) {
	d, st := co.Dim, co.Stride
	for i := 0; i < d; i++ {
		acc := co.Offset[i]
		for _, j := range append(seq(i+1, d), seq(0, i)...) {
			if w := co.Weight[j*st+i]; w != 0 {
				acc = stream.FMA32(w, x[j], acc)
			}
		}
		x[i] = stream.FMA32(co.Scale[i], z[i], acc)
	}
}

func seq(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// TestDroppingZeroWeightsKeepsBits is the argument for deleting the fmas
// of zero weights, checked: with +0 and -0 weights, offsets of -0, states
// holding zeros of both signs and tiny values, the update without those
// fmas gives the same bits as with them, since a dropped fma can only
// change the sign of a zero sum and scale·z is never zero. The same
// argument makes the Ext update at ω = 1 (keep = 0, g = 1) the plain one.
func TestDroppingZeroWeightsKeepsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	negZero := float32(math.Copysign(0, -1))
	for trial := range 2000 {
		d := 1 + trial%9
		co := &Coefficients[float32]{Dim: d, Stride: Stride(d), Weight: make([]float32, d*Stride(d)), Offset: make([]float32, d), Scale: make([]float32, d)}
		pick := func(vals ...float32) float32 { return vals[rng.IntN(len(vals))] }
		for i := range d {
			co.Offset[i] = pick(0, negZero, 0.5, -1e-38, 3)
			co.Scale[i] = pick(1, 0.25, 2)
			for j := range d {
				if i != j {
					co.Weight[j*co.Stride+i] = pick(0, negZero, 0, -0.5, 1e-30, 0.75)
				}
			}
		}
		x := make([]float32, d)
		z := make([]float32, d)
		for i := range x {
			x[i] = pick(0, negZero, 1e-45, -2, 7)
			z[i] = stream.Normal(rng.Uint32())
		}
		y := append([]float32(nil), x...)
		e := append([]float32(nil), x...)
		co.pass(co.byRow(), x, z, 0, 1, false)
		updateSkippingZeros(co, y, z)
		co.pass(co.byRow(), e, z, 0, 1, true) // the Ext form at keep = 0, g = 1
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
				t.Fatalf("trial %d, dim %d: x[%d] = %v with the zero weights' fmas, %v without", trial, d, i, x[i], y[i])
			}
			if math.Float32bits(x[i]) != math.Float32bits(e[i]) {
				t.Fatalf("trial %d, dim %d: x[%d] = %v by the plain update, %v by the Ext one at ω = 1", trial, d, i, x[i], e[i])
			}
		}
	}
}

// TestSpecializePTXExact: the exact-draw kernel's markers take the values
// of exactValues, a zero entry's line included (it is never deleted), and
// GGN and GGC have one frame and no entry past the model's.
func TestSpecializePTXExact(t *testing.T) {
	const src = "\tmov.f32 %f1, GGC_1;\n\tfma.rn.f32 %f1, %f9, GGN_2, %f1;\n\tfma.rn.f32 %f2, %f9, GGN_1, %f2;\n"
	co := fixtureModel(t, 1)
	ex := exactValues[float32]{n: []float32{0.5, -0.25, 0, 0.75}, c: []float32{1, -3}}
	out, dropped, kept, err := specializePTX([]byte(src), co, ex, false)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("GGC_1", hexf(-3), "GGN_2", hexf(0), "GGN_1", hexf(-0.25)).Replace(src)
	if string(out) != want || dropped != 0 || kept != 0 {
		t.Errorf("dropped, kept = %d, %d; PTX:\n%s\nwant:\n%s", dropped, kept, out, want)
	}
	for _, bad := range []string{
		"\tfma.rn.f32 %f1, %f2, GGN_4, %f1;\n",  // past the 2x2 factor
		"\tmov.f32 %f1, GGC_2;\n",               // past the mean
		"\tfma.rn.f32 %f1, %f2, GGNR_0, %f1;\n", // no frame 1
	} {
		if _, _, _, err := specializePTX([]byte(bad), co, ex, false); err == nil {
			t.Errorf("specializePTX(%q) succeeded", bad)
		}
	}
	// Two models whose coefficients round alike but whose exact values
	// differ are two kernels.
	ex2 := exactValues[float32]{n: []float32{0.5, -0.25, 0, 0.7500001}, c: ex.c}
	if modelHash(co, ex, ptxPaths{}) == modelHash(co, ex2, ptxPaths{}) {
		t.Error("exact values that differ hash alike")
	}
}

// TestExactValues: the markers' values are frame 2 of the matrix tables,
// N_2[i][p] at p*dim+i for i >= p (zero above), and c_2 = mu.
func TestExactValues(t *testing.T) {
	q := [][]float64{{4, 1, 0.5}, {1, 3, 0.25}, {0.5, 0.25, 2}}
	mu := []float64{1, -2, 0.5}
	p, err := newPlan[float64](3, q, mu, Plain)
	if err != nil {
		t.Fatal(err)
	}
	ex := exactValuesOf(p)
	if ex.err != nil {
		t.Fatal(ex.err)
	}
	// N_2 N_2ᵀ = Q⁻¹: check (N Nᵀ) Q = I.
	var nn [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				nn[i][j] += ex.n[k*3+i] * ex.n[k*3+j]
			}
		}
	}
	for i := range 3 {
		if ex.c[i] != mu[i] {
			t.Errorf("c[%d] = %v, want mu %v", i, ex.c[i], mu[i])
		}
		for j := range 3 {
			v := 0.0
			for k := range 3 {
				v += nn[i][k] * q[k][j]
			}
			if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(v-want) > 1e-12 {
				t.Errorf("(N Nᵀ Q)[%d][%d] = %v, want %v", i, j, v, want)
			}
			if j > i && ex.n[j*3+i] != 0 {
				t.Errorf("n[%d] (N[%d][%d], above the diagonal) = %v, want 0", j*3+i, i, j, ex.n[j*3+i])
			}
		}
	}
}

// TestExactModelChoice: the runtime's exact-draw kernel is the per-model
// one in float32 only once its build is ready, the chain kernel while
// there is none, it failed, or it is not built yet; float64 keeps the
// tiled kernel; a named kernel runs whatever the choice.
func TestExactModelChoice(t *testing.T) {
	ks := []*kernels.Kernel{kernels.ForStrategy(kernels.Matrix), kernels.Named("gibbs_exact"),
		kernels.Named("gibbs_exact_chain"), kernels.Named("gibbs_exact_model")}
	s := &Sampler[float32]{kernels: ks, m: impl.Module{Dim: 32}, sms: 132}
	want := func(what, name string) {
		t.Helper()
		got := "none"
		if k := s.exactKernel(1 << 20); k != nil {
			got = k.Name
		}
		if got != name {
			t.Errorf("%s: %s, want %s", what, got, name)
		}
	}
	want("no model", "gibbs_exact_chain")
	sp := &specialization[float32]{}
	for i := range sp.builds {
		sp.builds[i].done = make(chan struct{})
	}
	s.spec = sp
	b := &sp.builds[buildExact]
	b.started = true // compiling
	want("compiling", "gibbs_exact_chain")
	close(b.done)
	want("ready", "gibbs_exact_model")
	b.err = errors.New("no")
	want("failed", "gibbs_exact_chain")
	s.exactForced = "gibbs_exact"
	want("named", "gibbs_exact")

	d := &Sampler[float64]{kernels: ks, m: impl.Module{Dim: 32}, sms: 132}
	dp := &specialization[float64]{}
	for i := range dp.builds {
		dp.builds[i].done = make(chan struct{})
	}
	dp.builds[buildExact].started = true
	close(dp.builds[buildExact].done)
	d.spec = dp
	if got := d.exactKernel(1 << 20); got == nil || got.Name != "gibbs_exact" {
		t.Errorf("float64 with the per-model kernel ready: %v, want gibbs_exact", got)
	}
}
