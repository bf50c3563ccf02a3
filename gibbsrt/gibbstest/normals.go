package gibbstest

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
)

// The normals' own tests: the device transform equals stream.Normal bit for
// bit (every word with GIBBSGEN_NORMALS=full), and the stream's normals pass
// the quality checks of CheckNormals.

// fullNormals reports whether the long checks run: all 2³² words through
// the device transform, and CheckNormals on 2³⁰ device normals.
func fullNormals() bool { return os.Getenv("GIBBSGEN_NORMALS") == "full" }

// transformer[T] is the device side of the transform check.
type transformer[T gibbsrt.Float] interface {
	Transform(first uint32, out []T) error
}

// CheckTransform compares the device transform with stream.Normal on n
// words from first (mod 2³²), in chunks, comparing bits on every core.
func CheckTransform[T gibbsrt.Float](t TB, d transformer[T], first uint32, n uint64) {
	t.Helper()
	const chunk = 1 << 28
	buf := make([]T, min(n, chunk))
	for done := uint64(0); done < n; done += uint64(len(buf)) {
		part := buf[:min(uint64(len(buf)), n-done)]
		start := first + uint32(done)
		if err := d.Transform(start, part); err != nil {
			t.Fatal(err)
		}
		if w, ok := firstMismatch(start, part); !ok {
			got := part[w-start]
			t.Errorf("device transform of word %#08x = %#08x (%v), stream.Normal = %#08x (%v)",
				w, bitsOf(got), got, bitsOf(T(stream.Normal(w))), stream.Normal(w))
			return
		}
	}
}

// firstMismatch returns the first word from start whose device normal in
// got differs from stream.Normal, and false; or true if none does.
func firstMismatch[T gibbsrt.Float](start uint32, got []T) (uint32, bool) {
	procs := runtime.GOMAXPROCS(0)
	bad := make([]int, procs)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bad[p] = -1
			lo, hi := p*len(got)/procs, (p+1)*len(got)/procs
			for i := lo; i < hi; i++ {
				if bitsOf(got[i]) != bitsOf(T(stream.Normal(start+uint32(i)))) {
					bad[p] = i
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, i := range bad {
		if i >= 0 {
			return start + uint32(i), false
		}
	}
	return 0, true
}

// normalStats are the sums CheckNormals tests, over z laid out
// [sweeps][dim][chains] (gibbs_normals' layout).
type normalStats struct {
	n                  float64
	s1, s2, s3, s4     float64
	tails              [5]float64 // |z| > 2, 3, 4, 5, 6
	bins               []float64
	lagCoord, nCoord   float64 // Σ z[s][i][c]·z[s][i+1][c]
	lagSweep, nSweep   float64 // Σ z[s][i][c]·z[s+1][i][c]
	lagChain, nChainPr float64 // Σ z[s][i][c]·z[s][i][c+1]
}

// chiBins is the number of equal-probability bins of the chi-square test.
const chiBins = 4096

func (a *normalStats) add(b *normalStats) {
	a.n += b.n
	a.s1, a.s2, a.s3, a.s4 = a.s1+b.s1, a.s2+b.s2, a.s3+b.s3, a.s4+b.s4
	for k := range a.tails {
		a.tails[k] += b.tails[k]
	}
	for k := range a.bins {
		a.bins[k] += b.bins[k]
	}
	a.lagCoord, a.nCoord = a.lagCoord+b.lagCoord, a.nCoord+b.nCoord
	a.lagSweep, a.nSweep = a.lagSweep+b.lagSweep, a.nSweep+b.nSweep
	a.lagChain, a.nChainPr = a.lagChain+b.lagChain, a.nChainPr+b.nChainPr
}

// sweepStats accumulates sweep s of z (and its pairs with sweep s+1).
func sweepStats[T gibbsrt.Float](z []T, dim, chains, sweeps, s int, st *normalStats) {
	at := func(s, i, c int) float64 { return float64(z[(s*dim+i)*chains+c]) }
	for i := 0; i < dim; i++ {
		for c := 0; c < chains; c++ {
			v := at(s, i, c)
			v2 := v * v
			st.n++
			st.s1 += v
			st.s2 += v2
			st.s3 += v2 * v
			st.s4 += v2 * v2
			for k := range st.tails {
				if math.Abs(v) > float64(k+2) {
					st.tails[k]++
				}
			}
			b := int(chiBins * 0.5 * math.Erfc(-v/math.Sqrt2))
			st.bins[min(b, chiBins-1)]++
			if i+1 < dim {
				st.lagCoord += v * at(s, i+1, c)
				st.nCoord++
			}
			if s+1 < sweeps {
				st.lagSweep += v * at(s+1, i, c)
				st.nSweep++
			}
			if c+1 < chains {
				st.lagChain += v * at(s, i, c+1)
				st.nChainPr++
			}
		}
	}
}

// CheckNormals checks normals z, laid out [sweeps][dim][chains], against
// the standard normal, each statistic within 5 of its standard deviations
// under the null (fixed inputs, so a pass is a pass):
//   - the first four moments (standard errors √(1/n), √(2/n), √(15/n), √(96/n));
//   - the frequency of |z| > 2, 3, 4, 5 and 6 (binomial), where at least
//     one is expected;
//   - a chi-square over 4096 equal-probability bins (4095 degrees of
//     freedom, standard deviation √(2·4095));
//   - the lag-one products across coordinate, sweep and chain (mean 0,
//     standard error 1/√pairs for independent unit normals).
func CheckNormals[T gibbsrt.Float](t TB, z []T, dim, chains, sweeps int) {
	t.Helper()
	if len(z) != dim*chains*sweeps {
		t.Fatal(fmt.Sprintf("%d normals are not %d sweeps × %d coordinates × %d chains", len(z), sweeps, dim, chains))
	}
	parts := make([]normalStats, sweeps)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for s := range parts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			parts[s].bins = make([]float64, chiBins)
			sweepStats(z, dim, chains, sweeps, s, &parts[s])
		}()
	}
	wg.Wait()
	st := normalStats{bins: make([]float64, chiBins)}
	for s := range parts {
		st.add(&parts[s])
	}
	n := st.n
	within := func(what string, got, want, sd float64) {
		t.Helper()
		if math.Abs(got-want) > 5*sd {
			t.Errorf("%s of %.0f normals = %.6g, want %.6g ± %.3g (5 SD)", what, n, got, want, 5*sd)
		}
	}
	within("mean", st.s1/n, 0, math.Sqrt(1/n))
	within("E[z²]", st.s2/n, 1, math.Sqrt(2/n))
	within("E[z³]", st.s3/n, 0, math.Sqrt(15/n))
	within("E[z⁴]", st.s4/n, 3, math.Sqrt(96/n))
	for k, count := range st.tails {
		p := 2 * distuv.UnitNormal.Survival(float64(k+2))
		if n*p < 1 {
			continue // too few normals to expect one
		}
		within(fmt.Sprintf("count of |z| > %d", k+2), count, n*p, math.Sqrt(n*p*(1-p)))
	}
	e := n / chiBins
	chi := 0.0
	for _, o := range st.bins {
		chi += (o - e) * (o - e) / e
	}
	within(fmt.Sprintf("chi-square over %d equal-probability bins", chiBins), chi, chiBins-1, math.Sqrt(2*(chiBins-1)))
	if st.nCoord > 0 {
		within("lag-1 product across coordinates", st.lagCoord/st.nCoord, 0, 1/math.Sqrt(st.nCoord))
	}
	if st.nSweep > 0 {
		within("lag-1 product across sweeps", st.lagSweep/st.nSweep, 0, 1/math.Sqrt(st.nSweep))
	}
	if st.nChainPr > 0 {
		within("lag-1 product across chains", st.lagChain/st.nChainPr, 0, 1/math.Sqrt(st.nChainPr))
	}
}
