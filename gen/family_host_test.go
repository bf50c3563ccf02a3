package gen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// TestFamilyOnHost runs gibbs_family through the host emulation with a
// precision and a linear term per chain, and compares the state with the
// twin's Sweep after SetPrecision and SetLinear, bit for bit: with every
// part set, with the scales alone and with the diagonal alone. A second
// launch gives one chain scales that make a diagonal entry negative and
// another a NaN in its state: the flags must name them, the first chain
// must be left as it was and every other chain must be the twin's.
func TestFamilyOnHost(t *testing.T) {
	// Dims 5, 12 and 13 keep the conditionals, float32 dim 40 and float64
	// dim 20 compute them every sweep (kernels.FamilyShape); float32 dims
	// 5, 13 and 16 and float64 dim 12 have exact draws too, 16 and 12
	// their largest (kernels.FamilyExactMaxDim).
	for _, c := range []struct {
		dim int
		dt  kernels.DType
	}{{5, kernels.Float32}, {13, kernels.Float32}, {16, kernels.Float32}, {12, kernels.Float64}, {40, kernels.Float32}, {20, kernels.Float64}} {
		t.Run(fmt.Sprintf("dim=%d/%s", c.dim, c.dt), func(t *testing.T) {
			t.Parallel()
			if keep := kernels.FamilyShapeOf(c.dim, c.dt).Keep; keep != (c.dim*c.dt.Size() <= kernels.FamilyKeepBytes) {
				t.Fatalf("FamilyShapeOf(%d, %s).Keep = %v", c.dim, c.dt, keep)
			}
			s := Spec{Dim: c.dim, DType: c.dt, Package: "emu", Dir: "emu"}
			m := buildEmu(t, s)
			exact := c.dim <= kernels.FamilyExactMaxDim(c.dt)
			if c.dt == kernels.Float64 {
				familyOnHost[float64](t, m, s)
				if exact {
					familyExactOnHost[float64](t, m, s)
				}
			} else {
				familyOnHost[float32](t, m, s)
				if exact {
					familyExactOnHost[float32](t, m, s)
				}
			}
		})
	}
}

func familyOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec) {
	dim := s.Dim
	rng := rand.New(rand.NewPCG(uint64(dim), 31))
	model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
	chains, sweeps, badChain, nanChain := 300, 3, 123, 7
	full, h := gibbstest.Precisions[T](model, chains, rng)
	variants := []struct {
		name string
		p    *gibbsrt.Precision[T]
		h    []T
	}{
		{"members, scales, diagonal and h", full, h},
		{"scales", &gibbsrt.Precision[T]{Members: full.Members, Scales: full.Scales}, nil},
		{"diagonal", &gibbsrt.Precision[T]{Diag: full.Diag}, h},
	}
	st := gibbsrt.Stream{Seed: 0x5eed, Sweep: 1<<40 + 3, Chain: 1<<33 + 5}
	x0 := gibbstest.RandomState[T](rng, chains*dim, 4)
	k := kernels.Named("gibbs_family")
	g := k.Launch(dim, s.dtype())
	d := &emuDevice{m: m}
	refs := make([]*gibbsrt.Reference[T], len(variants))
	upload := func(v []T) any {
		if v == nil {
			return nil
		}
		return d.Upload(v)
	}
	launch := func(ref *gibbsrt.Reference[T], p *gibbsrt.Precision[T], h, x []T) (emuBuf, emuBuf) {
		tm, tmd, tb, err := ref.PrecisionTables()
		if err != nil {
			t.Fatal(err)
		}
		xb, bad := d.Upload(x), d.Upload([]uint32{math.MaxUint32, math.MaxUint32})
		d.Launch(k.Name, g.Blocks(chains), g.Threads, xb, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain,
			d.Upload(tm), d.Upload(tmd), d.Upload(tb), uint32(1+len(p.Members)), upload(p.Scales), upload(p.Diag), upload(h), bad)
		d.Read(xb)
		d.Read(bad)
		return xb, bad
	}
	for i, v := range variants {
		ref := gibbsrt.NewReference[T](dim)
		if err := ref.SetModel(model.Rows(), model.Mu); err != nil {
			t.Fatal(err)
		}
		if err := ref.SetPrecision(v.p); err != nil {
			t.Fatal(err)
		}
		if err := ref.SetLinear(v.h); err != nil {
			t.Fatal(err)
		}
		refs[i] = ref
		launch(ref, v.p, v.h, x0)
	}
	// The bad launch: chain badChain's scale of the model's Q negative
	// enough to make its diagonal negative, chain nanChain's state NaN.
	bad := &gibbsrt.Precision[T]{Members: full.Members, Scales: slices.Clone(full.Scales), Diag: full.Diag}
	bad.Scales[3*badChain] = -1e6
	xBad := slices.Clone(x0)
	xBad[nanChain*dim+dim/2] = T(math.NaN())
	launch(refs[0], bad, h, xBad)
	got := d.Run(t)
	for i, v := range variants {
		want := slices.Clone(x0)
		if err := refs[i].Sweep(want, sweeps, st); err != nil {
			t.Fatal(err)
		}
		requireSameBits(t, "gibbs_family with "+v.name, decode[T](got[2*i]), want, dim)
		if f := decode[float32](got[2*i+1]); math.Float32bits(f[0]) != math.MaxUint32 || math.Float32bits(f[1]) != math.MaxUint32 {
			t.Errorf("gibbs_family with %s: flags %d, %d; want none (2³²−1)", v.name, math.Float32bits(f[0]), math.Float32bits(f[1]))
		}
		if i == 0 {
			n := len(variants)
			gotBad, flags := decode[T](got[2*n]), decode[float32](got[2*n+1])
			if b := math.Float32bits(flags[0]); b != uint32(badChain) {
				t.Errorf("gibbs_family's diagonal flag is %d, want chain %d", b, badChain)
			}
			if b := math.Float32bits(flags[1]); b != uint32(nanChain) {
				t.Errorf("gibbs_family's state flag is %d, want chain %d", b, nanChain)
			}
			for c := range chains {
				w := want
				switch c {
				case nanChain:
					continue
				case badChain:
					w = x0
				}
				requireSameBits(t, fmt.Sprintf("gibbs_family with bad chains: chain %d", c), gotBad[c*dim:(c+1)*dim], w[c*dim:(c+1)*dim], dim)
			}
		}
	}
}

// familyExactOnHost runs gibbs_family_exact through the host emulation
// with every part of a precision and a linear term per chain, then with
// the scales alone, and compares each with the twin's DrawExact bit for
// bit. A third launch gives one chain scales that make its Q_c indefinite
// with a positive diagonal (only the factor finds it): the flag must name
// it, the chain must be left as it was and every other chain must be the
// twin's. (The flag of a draw that overflows is gibbs_family's code; no
// finite precision and linear term that SetPrecision and SetLinear accept
// overflows a draw in both dtypes alike.)
func familyExactOnHost[T gibbsrt.Float](t *testing.T, m *emuModule, s Spec) {
	dim := s.Dim
	rng := rand.New(rand.NewPCG(uint64(dim), 32))
	model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
	chains, badChain := 300, 123
	full, h := gibbstest.Precisions[T](model, chains, rng)
	st := gibbsrt.Stream{Seed: 0x5eed, Sweep: 1<<40 + 3, Chain: 1<<33 + 5}
	x0 := gibbstest.RandomState[T](rng, chains*dim, 4)
	k := kernels.Named("gibbs_family_exact")
	g := k.Launch(dim, s.dtype())
	d := &emuDevice{m: m}
	upload := func(v []T) any {
		if v == nil {
			return nil
		}
		return d.Upload(v)
	}
	type run struct {
		name string
		p    *gibbsrt.Precision[T]
		h    []T
		ref  *gibbsrt.Reference[T]
	}
	runs := []*run{
		{name: "members, scales, diagonal and h", p: full, h: h},
		{name: "scales", p: &gibbsrt.Precision[T]{Members: full.Members, Scales: full.Scales}},
	}
	for _, r := range runs {
		r.ref = gibbsrt.NewReference[T](dim)
		if err := r.ref.SetModel(model.Rows(), model.Mu); err != nil {
			t.Fatal(err)
		}
		if err := r.ref.SetPrecision(r.p); err != nil {
			t.Fatal(err)
		}
		if err := r.ref.SetLinear(r.h); err != nil {
			t.Fatal(err)
		}
	}
	launch := func(ref *gibbsrt.Reference[T], p *gibbsrt.Precision[T], h []T) {
		tm, tmd, tb, err := ref.PrecisionTables()
		if err != nil {
			t.Fatal(err)
		}
		xb, bad := d.Upload(x0), d.Upload([]uint32{math.MaxUint32, math.MaxUint32})
		d.Launch(k.Name, g.Blocks(chains), g.Threads, xb, uint64(chains), st.Seed, st.Sweep, st.Chain,
			d.Upload(tm), d.Upload(tmd), d.Upload(tb), uint32(1+len(p.Members)), upload(p.Scales), upload(p.Diag), upload(h), bad)
		d.Read(xb)
		d.Read(bad)
	}
	for _, r := range runs {
		launch(r.ref, r.p, r.h)
	}
	// The bad launch: chain badChain's Q_c indefinite.
	badRef := gibbsrt.NewReference[T](dim)
	if err := badRef.SetModel(model.Rows(), model.Mu); err != nil {
		t.Fatal(err)
	}
	bad := gibbstest.Indefinite(model, full, chains, badChain)
	if err := badRef.SetPrecision(bad); err != nil {
		t.Fatal(err)
	}
	if err := badRef.SetLinear(h); err != nil {
		t.Fatal(err)
	}
	launch(badRef, bad, h)
	got := d.Run(t)
	for i, r := range append(runs, &run{name: "bad chains", ref: badRef}) {
		want := slices.Clone(x0)
		err := r.ref.DrawExact(want, st)
		flags := decode[float32](got[2*i+1])
		if i < len(runs) {
			if err != nil {
				t.Fatal(err)
			}
			if math.Float32bits(flags[0]) != math.MaxUint32 || math.Float32bits(flags[1]) != math.MaxUint32 {
				t.Errorf("gibbs_family_exact with %s: flags %d, %d; want none (2³²−1)", r.name, math.Float32bits(flags[0]), math.Float32bits(flags[1]))
			}
		} else {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("chain %d's precision Q_c is not positive definite", badChain)) {
				t.Errorf("the twin's DrawExact with an indefinite Q_c: %v", err)
			}
			if b := math.Float32bits(flags[0]); b != uint32(badChain) {
				t.Errorf("gibbs_family_exact's factor flag is %d, want chain %d", b, badChain)
			}
			if b := math.Float32bits(flags[1]); b != math.MaxUint32 {
				t.Errorf("gibbs_family_exact's draw flag is %d, want none (2³²−1)", b)
			}
		}
		requireSameBits(t, "gibbs_family_exact with "+r.name, decode[T](got[2*i]), want, dim)
	}
}
