package gibbstest

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// gpuRunBurnin checks Run with automatic burn-in on the GPU against the
// twin's Run, bit for bit, with each sequential strategy of the package:
// on device state (Sampler.Run) and on host state (RunHost), each chunked
// unlike the twin, on AR(1) ρ = 0.95 under a symmetric scheme from
// mu + 10 sd; the counts and the progress reports agree too; and a Run
// that switches to forward sweeps at TuneSampling's ω after the burn-in
// (RunOptions.Sampling).
func gpuRunBurnin[T gibbsrt.Float](t *testing.T, h Harness[T], g *gibbsrt.Sampler[T]) {
	d := h.Dim
	const rho = 0.95
	m := AR1(d, rho, NonzeroMean(d))
	sc := gibbsrt.Scheme{Kind: gibbsrt.Symmetric}
	ref := gibbsrt.NewReference[T](d)
	if err := ref.SetScheme(sc); err != nil {
		t.Fatal(err)
	}
	if err := ref.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	if err := g.SetScheme(sc); err != nil {
		t.Fatal(err)
	}
	if err := g.SetModel(m.Rows(), m.Mu); err != nil {
		t.Fatal(err)
	}
	chains := cpuChains(300, d, 50)
	x0 := make([]T, chains*d)
	for i := range x0 {
		x0[i] = T(m.Mu[i%d] + 10*math.Sqrt(AR1Covariance(0, 0, rho)))
	}
	const sweeps = 13
	st := gibbsrt.Stream{Seed: 0x5eed5eed, Sweep: 1<<36 + 1, Chain: 1<<32 + 7}
	ctx := context.Background()
	want := slices.Clone(x0)
	wres, err := ref.Run(ctx, want, sweeps, st, gibbsrt.RunOptions[T]{Burnin: gibbsrt.BurninAuto})
	if err != nil || wres.Burnin == 0 || wres.Sweeps != sweeps {
		t.Fatalf("the twin's Run: %+v, %v", wres, err)
	}
	sampling := gibbsrt.Scheme{Kind: gibbsrt.Forward, Tune: gibbsrt.TuneSampling}
	wantSampling := slices.Clone(x0)
	if res, err := ref.Run(ctx, wantSampling, sweeps, st, gibbsrt.RunOptions[T]{Burnin: gibbsrt.BurninAuto, Sampling: &sampling}); err != nil || res != wres {
		t.Fatalf("the twin's Run with Sampling: %+v, %v", res, err)
	}
	for _, s := range strategies(g) {
		t.Run(s.String(), func(t *testing.T) {
			if err := g.SetStrategy(s); err != nil {
				t.Fatal(err)
			}
			ds := uploaded(t, g, x0)
			var last gibbsrt.RunResult
			reports := 0
			res, err := g.Run(ctx, ds, sweeps, st, gibbsrt.RunOptions[T]{Burnin: gibbsrt.BurninAuto, Chunk: 5,
				Progress: func(done, total gibbsrt.RunResult) {
					if total != wres {
						t.Errorf("progress total %+v, want %+v", total, wres)
					}
					last = done
					reports++
				}})
			if err != nil || res != wres {
				t.Fatalf("Run on device state: %+v, %v; the twin's %+v", res, err, wres)
			}
			if wantReports := (wres.Burnin+4)/5 + (sweeps+4)/5; last != wres || reports != wantReports {
				t.Errorf("%d progress reports, the last %+v; want %d, the last %+v", reports, last, wantReports, wres)
			}
			got := make([]T, len(x0))
			if err := ds.Download(got); err != nil {
				t.Fatal(err)
			}
			requireEqual(t, "Run with burn-in on device state vs the twin's Run", got, want, d)

			got = slices.Clone(x0)
			res, err = g.RunHost(ctx, got, sweeps, st, gibbsrt.RunOptions[T]{Burnin: gibbsrt.BurninAuto, Chunk: 3})
			if err != nil || res != wres {
				t.Fatalf("RunHost: %+v, %v; the twin's %+v", res, err, wres)
			}
			requireEqual(t, fmt.Sprintf("RunHost with burn-in (%d iterations) vs the twin's Run", wres.Burnin), got, want, d)

			// One Run that samples under another scheme after the burn-in
			// (RunOptions.Sampling), against the twin's; both keep it.
			got = slices.Clone(x0)
			res, err = g.RunHost(ctx, got, sweeps, st, gibbsrt.RunOptions[T]{Burnin: gibbsrt.BurninAuto, Chunk: 4, Sampling: &sampling})
			if err != nil || res != wres {
				t.Fatalf("RunHost with Sampling: %+v, %v; the twin's %+v", res, err, wres)
			}
			if g.Scheme() != sampling {
				t.Errorf("after RunHost with Sampling the scheme is %v, want %v", g.Scheme(), sampling)
			}
			requireEqual(t, "RunHost with Sampling vs the twin's", got, wantSampling, d)
			if err := g.SetScheme(sc); err != nil {
				t.Fatal(err)
			}
		})
	}
	if err := g.SetStrategy(gibbsrt.Auto); err != nil {
		t.Fatal(err)
	}
}
