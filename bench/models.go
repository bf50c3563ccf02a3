package main

// The per-model kernel: sweep time on dense, banded and lattice models
// against the generic strategies, and what compiling it costs, cold (a
// model the sampler has not seen; run with CUDA_CACHE_DISABLE=1 so that
// the driver's own disk cache does not serve it) and cached (a model set
// again).

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// ModelRow is one model, batch and strategy, at modelSweeps per launch.
type ModelRow struct {
	Dim         int     `json:"dim"`
	Model       string  `json:"model"`
	Batch       int     `json:"batch"`
	Strategy    string  `json:"strategy"`
	UsPerSweep  float64 `json:"us_per_sweep"`
	VsBestOther float64 `json:"vs_best_generic"` // best generic strategy's time / this time
}

// JITRow is what compiling one model's kernel cost.
type JITRow struct {
	Dim       int     `json:"dim"`
	Model     string  `json:"model"`
	ColdMs    float64 `json:"cold_ms"`   // SetModel to ready, first time
	DriverMs  float64 `json:"driver_ms"` // the driver's own JIT time within it
	CachedUs  float64 `json:"cached_us"` // SetModel to ready, model seen before
	Registers int     `json:"registers"`
	Kept      int     `json:"fmas_kept"`
	Dropped   int     `json:"fmas_dropped"`
	// One-sweep calls (B = 4096, Auto, synchronized) run while the kernel
	// compiled: how many, and the slowest; then the median of as many
	// after it, for comparison.
	CallsDuring  int     `json:"calls_during_compile"`
	MaxCallUs    float64 `json:"max_call_us_during_compile"`
	MedianCallUs float64 `json:"median_call_us_after"`
}

// modelSweeps is the sweeps per launch of the model table.
const modelSweeps = 100

// benchModels are the models of the table: the seed's dense recipe
// (Q = L·Lᵀ + 2I, L ~ 0.1·N(0,1)), AR(1) and the 2-D lattice.
func benchModels(dim int) []gibbstest.Model {
	rng := rand.New(rand.NewPCG(uint64(dim), 99))
	return []gibbstest.Model{
		gibbstest.SeedRecipe(dim, rng),
		gibbstest.AR1(dim, 0.6, gibbstest.NonzeroMean(dim)),
		gibbstest.Lattice(dim, 0.5, gibbstest.NonzeroMean(dim)),
	}
}

func (b *bench) runModels(e dimEntry) error {
	s, err := e.newSampler(b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	if !slices.Contains(s.Strategies(), gibbsrt.Specialized) {
		b.printf("\nDim %d: the package has no per-model kernel\n", e.dim)
		return nil
	}
	models := benchModels(e.dim)
	b.printf("\nDim %d, per-model kernel: JIT (cold: first SetModel of the model; cached: set again)\n", e.dim)
	b.printf("%4s  %-32s %10s %10s %10s %6s %8s %8s  %s\n", "dim", "model", "cold ms", "driver ms", "cached us", "regs", "kept", "dropped", "1-sweep calls meanwhile: n, slowest us (median after)")
	for _, m := range models {
		row, err := b.timeJIT(s, e.dim, m)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		b.rep.JIT = append(b.rep.JIT, row)
		b.printf("%4d  %-32s %10.1f %10.1f %10.1f %6d %8d %8d  %d, %.1f (%.1f)\n", row.Dim, row.Model, row.ColdMs, row.DriverMs, row.CachedUs, row.Registers, row.Kept, row.Dropped,
			row.CallsDuring, row.MaxCallUs, row.MedianCallUs)
	}
	b.printf("\nDim %d, per-model kernel against the generic strategies, %d sweeps per launch (us per sweep)\n", e.dim, modelSweeps)
	b.printf("%4s  %-32s %8s  %-8s %12s %12s\n", "dim", "model", "B", "strategy", "us/sweep", "x best other")
	for _, m := range models {
		if err := s.SetModel(m.Rows(), m.Mu); err != nil {
			return err
		}
		if sp := s.WaitSpecialization(); sp.State != gibbsrt.Ready {
			return fmt.Errorf("%s: specialized kernel %v: %v", m.Name, sp.State, sp.Err)
		}
		for _, batch := range b.opt.modelBatches {
			if err := b.timeModel(s, e.dim, m, batch); err != nil {
				return fmt.Errorf("%s, B=%d: %w", m.Name, batch, err)
			}
		}
	}
	return nil
}

// timeJIT sets m on s twice: the first time compiles its kernel, the second
// finds it in the cache. s has not seen m before.
func (b *bench) timeJIT(s *gibbsrt.Sampler[float32], dim int, m gibbstest.Model) (JITRow, error) {
	row := JITRow{Dim: dim, Model: m.Name}
	const batch = 4096
	ds, err := s.NewDeviceState(batch)
	if err != nil {
		return row, err
	}
	defer ds.Free()
	if err := ds.Fill(0.5); err != nil {
		return row, err
	}
	call := func() (float64, error) {
		t0 := time.Now()
		if err := s.SweepDevice(ds, 1, gibbsrt.Stream{Seed: benchSeed}); err != nil {
			return 0, err
		}
		err := s.Synchronize()
		return float64(time.Since(t0)) / 1e3, err
	}
	start := time.Now()
	if err := s.SetModel(m.Rows(), m.Mu); err != nil {
		return row, err
	}
	// Sampler calls while the driver compiles: they must not wait for it.
	for s.Specialization().State == gibbsrt.Compiling {
		us, err := call()
		if err != nil {
			return row, err
		}
		row.CallsDuring++
		row.MaxCallUs = max(row.MaxCallUs, us)
	}
	sp := s.WaitSpecialization()
	row.ColdMs = float64(time.Since(start)) / 1e6
	var after []float64
	for range max(row.CallsDuring, 20) {
		us, err := call()
		if err != nil {
			return row, err
		}
		after = append(after, us)
	}
	slices.Sort(after)
	row.MedianCallUs = median(after)
	if sp.State != gibbsrt.Ready || sp.Cached {
		return row, fmt.Errorf("first SetModel: state %v, cached %v: %v", sp.State, sp.Cached, sp.Err)
	}
	row.DriverMs = float64(sp.JIT) / 1e6
	row.Registers, row.Kept, row.Dropped = sp.Registers, sp.Kept, sp.Dropped
	// Another model in between, so that the second SetModel is a switch.
	other := gibbstest.AR1(dim, 0.3, gibbstest.NonzeroMean(dim))
	if err := s.SetModel(other.Rows(), other.Mu); err != nil {
		return row, err
	}
	s.WaitSpecialization()
	start = time.Now()
	if err := s.SetModel(m.Rows(), m.Mu); err != nil {
		return row, err
	}
	sp = s.WaitSpecialization()
	row.CachedUs = float64(time.Since(start)) / 1e3
	if sp.State != gibbsrt.Ready || !sp.Cached {
		return row, fmt.Errorf("second SetModel: state %v, cached %v", sp.State, sp.Cached)
	}
	return row, nil
}

// timeModel times the per-model kernel and the generic thread- and
// warp-per-chain strategies on m at B = batch.
func (b *bench) timeModel(s *gibbsrt.Sampler[float32], dim int, m gibbstest.Model, batch int) error {
	rng := rand.New(rand.NewPCG(uint64(dim)<<32|uint64(batch), 13))
	x0 := randomStart[float32](m, batch, rng)
	ds, err := s.NewDeviceState(batch)
	if err != nil {
		return err
	}
	defer ds.Free()
	var rows []ModelRow
	for _, st := range s.Strategies() {
		if st == gibbsrt.ConstMemory {
			continue // collapses beyond dim 21; the table's Auto rule never picks it at 100 sweeps
		}
		if err := ds.Upload(x0); err != nil {
			return err
		}
		if err := setStrategy(s, st); err != nil {
			return err
		}
		stream := gibbsrt.Stream{Seed: benchSeed}
		stats, err := b.timeLaunches(func() error {
			err := s.SweepDevice(ds, modelSweeps, stream)
			stream.Sweep += modelSweeps
			return err
		})
		if err != nil {
			return fmt.Errorf("%v: %w", st, err)
		}
		rows = append(rows, ModelRow{Dim: dim, Model: m.Name, Batch: batch, Strategy: st.String(), UsPerSweep: stats.MedianMs * 1e3 / modelSweeps})
	}
	best := 0.0
	for _, r := range rows {
		if r.Strategy != gibbsrt.Specialized.String() && (best == 0 || r.UsPerSweep < best) {
			best = r.UsPerSweep
		}
	}
	for _, r := range rows {
		r.VsBestOther = best / r.UsPerSweep
		b.rep.Models = append(b.rep.Models, r)
		b.printf("%4d  %-32s %8d  %-8s %12.3f %11.2fx\n", r.Dim, r.Model, r.Batch, r.Strategy, r.UsPerSweep, r.VsBestOther)
	}
	return setStrategy(s, gibbsrt.Auto)
}
