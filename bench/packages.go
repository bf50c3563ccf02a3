package main

// Generated packages loaded at run time from their directories (-packages):
// a package's manifest names its dim, dtype, kernels and files, so any dim
// and dtype can be checked and timed without compiling the package into
// the bench (the large dims' packages are big, and not in out/).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbsimpl"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// PackageRow is one timed configuration of a package loaded by directory.
type PackageRow struct {
	Dir               string  `json:"dir"`
	Dim               int     `json:"dim"`
	DType             string  `json:"dtype"`
	Batch             int     `json:"batch"`
	SweepsPerLaunch   int     `json:"sweeps_per_launch"`
	Kernel            string  `json:"kernel"`   // "auto" or a strategy
	Resolved          string  `json:"resolved"` // the strategy Auto chose; else as Kernel
	Launch            Stats   `json:"launch"`
	SecPerSweep       float64 `json:"sec_per_sweep"`
	ChainSweepsPerSec float64 `json:"chain_sweeps_per_sec"`
	FloorSecPerSweep  float64 `json:"floor_sec_per_sweep"`
	FractionOfFloor   float64 `json:"fraction_of_floor"` // floor / time
	Bound             string  `json:"bound"`
}

// manifest is the part of gibbsgen.json the bench reads.
type manifest struct {
	Dim     int    `json:"dim"`
	DType   string `json:"dtype"`
	Package string `json:"package"`
	ABI     int    `json:"abi_version"`
	Kernels []struct {
		Name string `json:"name"`
	} `json:"kernels"`
	FatbinSHA256 string `json:"fatbin_sha256"`
	PTXFile      string `json:"ptx_file"`
}

// loadPackage reads the module of the generated package in dir from its
// manifest, checking the fatbin against the manifest's digest.
func loadPackage(dir string) (gibbsimpl.Module, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "gibbsgen.json"))
	if err != nil {
		return gibbsimpl.Module{}, err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return gibbsimpl.Module{}, fmt.Errorf("%s/gibbsgen.json: %w", dir, err)
	}
	// The runtime launches a module's kernels with its own table's
	// geometry, so a package of another ABI version would run wrong
	// launches; its generated code would not compile against this runtime.
	if m.ABI < gibbsimpl.MinVersion || m.ABI > gibbsimpl.MaxVersion {
		return gibbsimpl.Module{}, fmt.Errorf("%s: abi_version %d; this bench's runtime supports %d to %d (regenerate the package, or use the bench of its gibbsgen)",
			dir, m.ABI, gibbsimpl.MinVersion, gibbsimpl.MaxVersion)
	}
	spec := gibbsimpl.Module{Dim: m.Dim, DType: m.DType}
	for _, k := range m.Kernels {
		// The manifest lists every entry point; a module lists the
		// table's rows, whose other entry points (_trace, _ext) come
		// with them.
		if kernels.Named(k.Name) != nil {
			spec.Kernels = append(spec.Kernels, k.Name)
		}
	}
	if spec.Fatbin, err = os.ReadFile(filepath.Join(dir, m.Package+".fatbin")); err != nil {
		return gibbsimpl.Module{}, err
	}
	if sum := sha256.Sum256(spec.Fatbin); hex.EncodeToString(sum[:]) != m.FatbinSHA256 {
		return gibbsimpl.Module{}, fmt.Errorf("%s: %s.fatbin does not match the manifest's fatbin_sha256", dir, m.Package)
	}
	if m.PTXFile != "" {
		if spec.PTX, err = os.ReadFile(filepath.Join(dir, m.PTXFile)); err != nil {
			return gibbsimpl.Module{}, err
		}
	}
	return spec, nil
}

// packageDims returns the dims of the packages in dirs, for the ceilings.
func packageDims(dirs []string) ([]int, error) {
	var dims []int
	for _, dir := range dirs {
		spec, err := loadPackage(dir)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(dims, spec.Dim) {
			dims = append(dims, spec.Dim)
		}
	}
	return dims, nil
}

// runPackage checks and times the package in dir in its own element type.
func (b *bench) runPackage(dir string) error {
	spec, err := loadPackage(dir)
	if err != nil {
		return err
	}
	switch spec.DType {
	case "float32":
		return runPackageOf[float32](b, dir, spec, b.fmaRate)
	case "float64":
		return runPackageOf[float64](b, dir, spec, b.dfmaRate)
	}
	return fmt.Errorf("%s: dtype %q", dir, spec.DType)
}

func runPackageOf[T gibbsrt.Float](b *bench, dir string, spec gibbsimpl.Module, fmaRate float64) error {
	s, err := gibbsimpl.NewSampler[T](spec, b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	dim := spec.Dim
	model := gibbstest.SeedRecipe(dim, rand.New(rand.NewPCG(uint64(dim), 2024)))
	if err := s.SetModel(model.Rows(), model.Mu); err != nil {
		return err
	}
	if err := checkPackage(b, dir, s, model); err != nil {
		return err
	}
	b.printf("\nPackage %s (dim %d, %s), model %s; time per sweep = median launch time / sweeps per launch\n", dir, dim, spec.DType, model.Name)
	b.printf("%5s %8s %6s  %-13s %12s %14s %12s %7s  %s\n",
		"dim", "B", "sweeps", "kernel", "us/sweep", "chain-sweeps/s", "floor us/sw", "%floor", "bound")
	kernels := s.Strategies()
	if hasSequential(s) {
		kernels = append([]gibbsrt.Strategy{gibbsrt.Auto}, kernels...)
	}
	for _, batch := range b.opt.batches {
		x0 := randomStart[T](model, batch, rand.New(rand.NewPCG(uint64(dim)<<32|uint64(batch), 11)))
		ds, err := s.NewDeviceState(batch)
		if err != nil {
			return fmt.Errorf("batch B=%d: %w", batch, err)
		}
		for _, sweeps := range b.opt.sweeps {
			for _, k := range kernels {
				if err := setStrategy(s, k); err != nil {
					ds.Free()
					return err
				}
				stats, err := timeSweeps(b, s, ds, x0, sweeps)
				if err != nil {
					ds.Free()
					return fmt.Errorf("%s, B=%d, %d sweeps: %w", k, batch, sweeps, err)
				}
				name := k.String()
				if k == gibbsrt.Auto {
					name = "auto(" + s.Choose(batch, sweeps).String() + ")"
				}
				b.addPackageRow(PackageRow{Dir: dir, Dim: dim, DType: spec.DType, Batch: batch, SweepsPerLaunch: sweeps,
					Kernel: k.String(), Resolved: s.Choose(batch, sweeps).String(), Launch: stats}, name, int(sizeOf[T]()), fmaRate)
			}
		}
		if err := pulledRows(b, dir, spec.DType, s, ds, x0, batch, model, fmaRate); err != nil {
			ds.Free()
			return err
		}
		if err := passRows(b, dir, spec.DType, s, ds, x0, batch, model, fmaRate); err != nil {
			ds.Free()
			return err
		}
		if slices.Contains(s.Strategies(), gibbsrt.Matrix) {
			if err := exactDraws(b, dir, spec.DType, s, ds, batch); err != nil {
				ds.Free()
				return err
			}
		}
		if err := linearRows(b, dir, spec.DType, s, ds, x0, batch); err != nil {
			ds.Free()
			return err
		}
		if err := precisionRows(b, dir, spec.DType, s, ds, x0, batch); err != nil {
			ds.Free()
			return err
		}
		ds.Free()
	}
	return setStrategy(s, gibbsrt.Auto)
}

// pulledRows times the per-model kernel with its sums pulled (the Pulled
// entry point in place of the plain one, which the runtime compiles only
// where asked: gibbstest.SetPulledSums) at each sweeps of the bench, as
// rows "model:pulled", after checking it against the twin bit for bit. It
// does nothing where the package has no per-model kernel, and leaves s as
// it was: pushed sums, Auto.
func pulledRows[T gibbsrt.Float](b *bench, dir, dtype string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T,
	batch int, model gibbstest.Model, fmaRate float64) error {
	if !slices.Contains(s.Strategies(), gibbsrt.Specialized) {
		return nil
	}
	setModel := func(pulled *bool) error {
		gibbstest.SetPulledSums(s, pulled)
		if err := s.SetModel(model.Rows(), model.Mu); err != nil {
			return err
		}
		if sp := s.WaitSpecialization(); sp.State != gibbsrt.Ready || (pulled != nil) != sp.PulledSums {
			return fmt.Errorf("model:pulled: specialization %v (%v), pulled %v", sp.State, sp.Err, sp.PulledSums)
		}
		return nil
	}
	yes := true
	if err := setModel(&yes); err != nil {
		return err
	}
	if err := checkPackage(b, dir+" (sums pulled)", s, model, gibbsrt.Specialized); err != nil {
		return err
	}
	if err := setStrategy(s, gibbsrt.Specialized); err != nil {
		return err
	}
	specialized := func(int) gibbsrt.Strategy { return gibbsrt.Specialized }
	if err := sweepRows(b, dir, dtype, s, ds, x0, batch, fmaRate, "model:pulled", specialized); err != nil {
		return err
	}
	if err := setModel(nil); err != nil {
		return err
	}
	if err := setStrategy(s, gibbsrt.Auto); err != nil {
		return err
	}
	return pulledByLaunchRows(b, dir, dtype, s, ds, x0, batch, fmaRate)
}

// pulledByLaunchRows times Auto with the per-model kernel's sums pulled in
// launches of few sweeps (kernels.PullSums; the runtime picks so only where
// asked until a GPU run has checked it: gibbstest.SetPulledByLaunch), as
// rows "auto+pulled", once a one-sweep launch has had the Pulled entry
// point built, at batches where Auto runs the per-model kernel. The GPU
// suite Specialized checks its bits. It leaves s
// pushing its sums in every launch.
func pulledByLaunchRows[T gibbsrt.Float](b *bench, dir, dtype string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T,
	batch int, fmaRate float64) error {
	if s.Choose(batch, 1) != gibbsrt.Specialized {
		return nil // Auto runs another kernel at this batch
	}
	gibbstest.SetPulledByLaunch(s, true)
	defer gibbstest.SetPulledByLaunch(s, false)
	if err := s.SweepDevice(ds, 1, gibbsrt.Stream{Seed: benchSeed}); err != nil {
		return err
	}
	sp := s.Specialization()
	for ; sp.PulledState == gibbsrt.Compiling; sp = s.Specialization() {
		time.Sleep(10 * time.Millisecond)
	}
	if sp.PulledState != gibbsrt.Ready {
		return fmt.Errorf("auto+pulled: the Pulled entry point's build %v (%v)", sp.PulledState, sp.PulledErr)
	}
	return sweepRows(b, dir, dtype, s, ds, x0, batch, fmaRate, "auto+pulled",
		func(sweeps int) gibbsrt.Strategy { return s.Choose(batch, sweeps) })
}

// passRows times the matrix form a launch a pass (the pass kernel, which
// the runtime launches only where asked: gibbstest.SetMatrixPasses) at
// each sweeps of the bench, as rows "matrix:pass", after checking it
// against the twin bit for bit. It does nothing where the package has no
// pass kernel (below dim 65), and leaves s as it was: the matrix
// strategy's kernel, Auto.
func passRows[T gibbsrt.Float](b *bench, dir, dtype string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T,
	batch int, model gibbstest.Model, fmaRate float64) error {
	if !gibbstest.SetMatrixPasses(s, true) {
		return nil
	}
	defer gibbstest.SetMatrixPasses(s, false)
	if err := checkPackage(b, dir+" (a launch a pass)", s, model, gibbsrt.Matrix); err != nil {
		return err
	}
	if err := setStrategy(s, gibbsrt.Matrix); err != nil {
		return err
	}
	matrix := func(int) gibbsrt.Strategy { return gibbsrt.Matrix }
	if err := sweepRows(b, dir, dtype, s, ds, x0, batch, fmaRate, "matrix:pass", matrix); err != nil {
		return err
	}
	return setStrategy(s, gibbsrt.Auto)
}

// sweepRows times s as it is set at each sweeps of the bench, as rows
// called name whose kernel resolved gives.
func sweepRows[T gibbsrt.Float](b *bench, dir, dtype string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T,
	batch int, fmaRate float64, name string, resolved func(sweeps int) gibbsrt.Strategy) error {
	for _, sweeps := range b.opt.sweeps {
		stats, err := timeSweeps(b, s, ds, x0, sweeps)
		if err != nil {
			return fmt.Errorf("%s, B=%d, %d sweeps: %w", name, batch, sweeps, err)
		}
		b.addPackageRow(PackageRow{Dir: dir, Dim: s.Dim(), DType: dtype, Batch: batch, SweepsPerLaunch: sweeps,
			Kernel: name, Resolved: resolved(sweeps).String(), Launch: stats}, name, int(sizeOf[T]()), fmaRate)
	}
	return nil
}

// addPackageRow completes r from its launch statistics and the floor of
// elements of elemSize bytes at fmaRate, records it and prints it as name.
func (b *bench) addPackageRow(r PackageRow, name string, elemSize int, fmaRate float64) {
	r.SecPerSweep = r.Launch.MedianMs * 1e-3 / float64(r.SweepsPerLaunch)
	r.ChainSweepsPerSec = float64(r.Batch) / r.SecPerSweep
	r.FloorSecPerSweep, r.Bound = b.floorOf(r.Dim, r.Batch, r.SweepsPerLaunch, elemSize, fmaRate)
	r.FractionOfFloor = r.FloorSecPerSweep / r.SecPerSweep
	b.rep.Packages = append(b.rep.Packages, r)
	b.printf("%5d %8d %6d  %-13s %12.3f %14.3e %12.3f %6.1f%%  %s\n", r.Dim, r.Batch, r.SweepsPerLaunch, name,
		r.SecPerSweep*1e6, r.ChainSweepsPerSec, r.FloorSecPerSweep*1e6, 100*r.FractionOfFloor, r.Bound)
}

// timeSweeps times launches of sweeps sweeps on ds from the state x0, each
// on the stream's next sweeps.
func timeSweeps[T gibbsrt.Float](b *bench, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T, sweeps int) (Stats, error) {
	if err := ds.Upload(x0); err != nil {
		return Stats{}, err
	}
	st := gibbsrt.Stream{Seed: benchSeed}
	return b.timeLaunches(func() error {
		err := s.SweepDevice(ds, sweeps, st)
		st.Sweep += uint64(sweeps)
		return err
	})
}

// hasSequential reports whether s's package has a strategy of the
// sequential form, among which Auto chooses: a package generated with
// --strategy matrix has none, so Auto cannot sweep it.
func hasSequential[T gibbsrt.Float](s *gibbsrt.Sampler[T]) bool {
	return slices.ContainsFunc(s.Strategies(), func(st gibbsrt.Strategy) bool { return formOf(st) == gibbsrt.FormSequential })
}

// exactDraws times exact draws of every chain of ds (the Matrix
// strategy's tables), µs a draw: by each exact-draw kernel of the module
// (Kernel "exact:<name>"), then by the runtime's choice (Kernel "exact",
// printed as "exact-draw", the row's name in earlier runs).
func exactDraws[T gibbsrt.Float](b *bench, dir, dt string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], batch int) error {
	have, err := gibbstest.SetExactKernel(s, "")
	if err != nil {
		return err
	}
	for _, name := range append(have, "") {
		if _, err := gibbstest.SetExactKernel(s, name); err != nil {
			return err
		}
		stats, err := timeExactDraws(b, s, ds)
		if err != nil {
			return fmt.Errorf("exact draws by %q, B=%d: %w", name, batch, err)
		}
		kernel, label := "exact", "exact-draw"
		if name != "" {
			kernel, label = "exact:"+name, name
		}
		r := PackageRow{Dir: dir, Dim: s.Dim(), DType: dt, Batch: batch, SweepsPerLaunch: 1,
			Kernel: kernel, Resolved: "matrix", Launch: stats, SecPerSweep: stats.MedianMs * 1e-3}
		r.ChainSweepsPerSec = float64(batch) / r.SecPerSweep
		b.rep.Packages = append(b.rep.Packages, r)
		b.printf("%5d %8d %6d  %-13s %12.3f %14.3e %12s %7s  %s\n", s.Dim(), batch, 1, label, r.SecPerSweep*1e6, r.ChainSweepsPerSec, "-", "-", "one draw of every chain per launch")
	}
	return nil
}

// linearRows times a linear term per chain (gibbsrt.Sampler.SetLinear):
// SetLinearDevice of a new term, which computes the shifts Q⁻¹·h_c and
// waits for them (Kernel "set-linear", µs a call), and Auto's sweeps with
// the term set at each sweeps per launch (Kernel "auto+linear"), to set
// beside Auto's rows without it (none in a package without a sequential
// strategy). A package generated before gibbsgen 0.14.0 has no linear
// kernels, and no rows.
func linearRows[T gibbsrt.Float](b *bench, dir, dt string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T, batch int) error {
	dim := s.Dim()
	rng := rand.New(rand.NewPCG(uint64(batch), 29))
	h := make([]T, batch*dim)
	for i := range h {
		h[i] = T(rng.NormFloat64())
	}
	hd, err := s.NewDeviceState(batch)
	if err != nil {
		return err
	}
	defer hd.Free()
	if err := hd.Upload(h); err != nil {
		return err
	}
	var mk *gibbsrt.MissingKernelError
	if err := s.SetLinearDevice(hd); errors.As(err, &mk) {
		return nil
	} else if err != nil {
		return err
	}
	defer s.SetLinear(nil)
	if err := setStrategy(s, gibbsrt.Auto); err != nil {
		return err
	}
	row := func(kernel string, sweeps int, stats Stats) {
		resolved := s.Choose(batch, sweeps).String()
		if strings.HasPrefix(kernel, "exact") {
			resolved = "matrix"
		}
		r := PackageRow{Dir: dir, Dim: dim, DType: dt, Batch: batch, SweepsPerLaunch: sweeps, Kernel: kernel,
			Resolved: resolved, Launch: stats, SecPerSweep: stats.MedianMs * 1e-3 / float64(sweeps)}
		r.ChainSweepsPerSec = float64(batch) / r.SecPerSweep
		b.rep.Packages = append(b.rep.Packages, r)
		b.printf("%5d %8d %6d  %-13s %12.3f %14.3e %12s %7s  %s\n", dim, batch, sweeps, kernel, r.SecPerSweep*1e6, r.ChainSweepsPerSec, "-", "-", "a linear term per chain")
	}
	stats, err := b.timeLaunches(func() error { return s.SetLinearDevice(hd) })
	if err != nil {
		return fmt.Errorf("SetLinearDevice, B=%d: %w", batch, err)
	}
	row("set-linear", 1, stats)
	if err := exactLinearRows(b, s, ds, batch, row); err != nil {
		return err
	}
	if !hasSequential(s) {
		return nil
	}
	if err := linearSweepRows(b, s, ds, x0, batch, "auto+linear", row); err != nil {
		return err
	}
	return fusedLinearRows(b, s, ds, x0, batch, row)
}

// linearSweepRows times Auto's sweeps from x0 on ds with the linear term
// set, at each sweeps per launch of the bench, as rows kernel.
func linearSweepRows[T gibbsrt.Float](b *bench, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T, batch int,
	kernel string, row func(string, int, Stats)) error {
	for _, sweeps := range b.opt.sweeps {
		stats, err := timeSweeps(b, s, ds, x0, sweeps)
		if err != nil {
			return fmt.Errorf("%s, B=%d, %d sweeps: %w", kernel, batch, sweeps, err)
		}
		row(kernel, sweeps, stats)
	}
	return nil
}

// fusedLinearRows times Auto's sweeps with the linear term's shifts fused
// into the per-model kernel's launch (its Shifted entry point, which the
// runtime runs only where asked: gibbstest.SetFusedShift), as rows
// "auto+linear:fused", after checking one sweep against the shifts' own
// passes bit for bit. Only where Auto runs that kernel at one sweep a
// launch; s is left as it was.
func fusedLinearRows[T gibbsrt.Float](b *bench, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T, batch int,
	row func(string, int, Stats)) error {
	if s.Choose(batch, 1) != gibbsrt.Specialized {
		return nil
	}
	st := gibbsrt.Stream{Seed: 0x5eed, Sweep: 3}
	want, got := slices.Clone(x0), slices.Clone(x0)
	if err := s.Sweep(want, 1, st); err != nil {
		return err
	}
	gibbstest.SetFusedShift(s, true)
	defer gibbstest.SetFusedShift(s, false)
	if err := s.Sweep(got, 1, st); err != nil {
		return err
	}
	if sp := s.Specialization(); sp.ShiftedState != gibbsrt.Ready {
		return fmt.Errorf("auto+linear:fused, B=%d: the Shifted entry point is %v (%v)", batch, sp.ShiftedState, sp.ShiftedErr)
	}
	if err := sameState(fmt.Sprintf("auto+linear:fused, B=%d", batch), got, want, s.Dim()); err != nil {
		return err
	}
	return linearSweepRows(b, s, ds, x0, batch, "auto+linear:fused", row)
}

// precisionRows times sweeps with a precision per chain (SetPrecision;
// kernel gibbs_family) from x0 on ds, µs a sweep: "family:diag" with a
// scale of the model's Q and a diagonal per chain (the precision of a
// Bayesian regression with unknown noise and prior precisions, τ·I +
// XᵀX/σ²), "family:2" with a second member (a dense AR(1) correlation) and two
// scales per chain; and "set-precision", a SetPrecision of the first from
// host slices, µs a call. A package without the kernel has none.
func precisionRows[T gibbsrt.Float](b *bench, dir, dt string, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], x0 []T, batch int) error {
	dim := s.Dim()
	rng := rand.New(rand.NewPCG(uint64(batch), 33))
	diag := &gibbsrt.Precision[T]{Scales: make([]T, batch), Diag: make([]T, batch*dim)}
	ar := make([][]float64, dim) // an AR(1) correlation: dense and positive definite
	for i := range ar {
		ar[i] = make([]float64, dim)
		for j := range ar[i] {
			ar[i][j] = math.Pow(0.5, math.Abs(float64(i-j)))
		}
	}
	two := &gibbsrt.Precision[T]{Members: [][][]float64{ar}, Scales: make([]T, 2*batch)}
	for c := range batch {
		diag.Scales[c] = T(0.5 + rng.Float64())
		two.Scales[2*c], two.Scales[2*c+1] = T(0.5+rng.Float64()), T(rng.Float64())
		for i := range dim {
			diag.Diag[c*dim+i] = T(rng.Float64())
		}
	}
	var mk *gibbsrt.MissingKernelError
	if err := s.SetPrecision(diag); errors.As(err, &mk) {
		return nil
	} else if err != nil {
		return err
	}
	defer s.SetPrecision(nil)
	row := func(kernel string, sweeps int, stats Stats, note string) {
		r := PackageRow{Dir: dir, Dim: dim, DType: dt, Batch: batch, SweepsPerLaunch: sweeps, Kernel: kernel,
			Resolved: "gibbs_family", Launch: stats, SecPerSweep: stats.MedianMs * 1e-3 / float64(sweeps)}
		r.ChainSweepsPerSec = float64(batch) / r.SecPerSweep
		b.rep.Packages = append(b.rep.Packages, r)
		b.printf("%5d %8d %6d  %-13s %12.3f %14.3e %12s %7s  %s\n", dim, batch, sweeps, kernel, r.SecPerSweep*1e6, r.ChainSweepsPerSec, "-", "-", note)
	}
	stats, err := b.timeLaunches(func() error { return s.SetPrecision(diag) })
	if err != nil {
		return fmt.Errorf("SetPrecision, B=%d: %w", batch, err)
	}
	row("set-precision", 1, stats, "a scale and a diagonal per chain, from the host")
	for _, v := range []struct {
		name, note string
		p          *gibbsrt.Precision[T]
	}{{"family:diag", "a precision per chain: s·Q + diag(w)", diag}, {"family:2", "a precision per chain: s0·Q + s1·AR(1)", two}} {
		if err := s.SetPrecision(v.p); err != nil {
			return err
		}
		for _, sweeps := range b.opt.sweeps {
			stats, err := timeSweeps(b, s, ds, x0, sweeps)
			if err != nil {
				return fmt.Errorf("sweeps with a precision per chain (%s), B=%d, %d sweeps: %w", v.name, batch, sweeps, err)
			}
			row(v.name, sweeps, stats, v.note)
		}
	}
	// An exact draw of every chain with the first precision (DrawExact:
	// a Cholesky factor of each Q_c), where the package draws one.
	if k, err := kernels.ParseDType(dt); err != nil || dim > kernels.FamilyExactMaxDim(k) {
		return err
	}
	if err := s.SetPrecision(diag); err != nil {
		return err
	}
	st := gibbsrt.Stream{Seed: benchSeed}
	stats, err = b.timeLaunches(func() error {
		err := s.DrawExactDevice(ds, st)
		st.Sweep++
		return err
	})
	switch {
	case errors.As(err, &mk): // a package from before gibbsgen 0.17.0
		return nil
	case err != nil:
		return fmt.Errorf("exact draws with a precision per chain, B=%d: %w", batch, err)
	}
	row("family:exact", 1, stats, "an exact draw per chain with s·Q + diag(w): a Cholesky factor of each Q_c")
	return nil
}

// checkPackage runs every strategy of s (or only those named) on a small
// batch and compares the states with gibbsrt.Reference bit for bit, as
// check does for the compiled-in dims.
func checkPackage[T gibbsrt.Float](b *bench, dir string, s *gibbsrt.Sampler[T], model gibbstest.Model, only ...gibbsrt.Strategy) error {
	dim, chains, sweeps := s.Dim(), b.opt.checkChains, b.opt.checkSweeps
	x0 := randomStart[T](model, chains, rand.New(rand.NewPCG(uint64(dim), 7)))
	want := map[gibbsrt.Form][]T{}
	for _, f := range []gibbsrt.Form{gibbsrt.FormSequential, gibbsrt.FormMatrix} {
		w, err := referenceSweep(dim, model.Rows(), model.Mu, x0, sweeps, f)
		if err != nil {
			return err
		}
		want[f] = w
	}
	ds, err := s.NewDeviceState(chains)
	if err != nil {
		return err
	}
	defer ds.Free()
	got := make([]T, len(x0))
	b.printf("\nCheck, %s: %d chains x %d sweeps from a random start vs gibbsrt.Reference (bit-exact):", dir, chains, sweeps)
	strategies := s.Strategies()
	if len(only) > 0 {
		strategies = only
	}
	for _, st := range strategies {
		if err := ds.Upload(x0); err != nil {
			return err
		}
		if err := setStrategy(s, st); err != nil {
			return err
		}
		if err := s.SweepDevice(ds, sweeps, checkStream); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		if err := ds.Download(got); err != nil {
			return err
		}
		c := compare(dim, st.String(), chains, sweeps, got, want[formOf(st)])
		b.rep.Checks = append(b.rep.Checks, c)
		verdict := "PASS"
		if !c.Pass {
			verdict = fmt.Sprintf("FAIL (%d of %d values differ; first: %s)", c.Mismatches, len(got), c.First)
			b.mismatch = true
		}
		b.printf(" %s %s", st, verdict)
	}
	b.printf("\n")
	return setStrategy(s, gibbsrt.Auto)
}

// sizeOf is the size in bytes of T.
func sizeOf[T gibbsrt.Float]() uintptr {
	var v T
	if _, ok := any(v).(float64); ok {
		return 8
	}
	return 4
}

// sameBits reports whether a and b have the same IEEE-754 bits.
func sameBits[T gibbsrt.Float](a, b T) bool {
	if sizeOf[T]() == 8 {
		return math.Float64bits(float64(a)) == math.Float64bits(float64(b))
	}
	return math.Float32bits(float32(a)) == math.Float32bits(float32(b))
}

// exactLinearRows times exact draws by the per-model exact-draw kernel
// with the linear term set, its shifts added by a pass of their own (rows
// "exact+linear") and in the draw's launch (its Shifted entry point, which
// the runtime runs only where asked: gibbstest.SetFusedShift; rows
// "exact+linear:fused"), after checking one draw of each way against the
// other bit for bit. Nothing where the package lacks the kernel; s is left
// as it was.
func exactLinearRows[T gibbsrt.Float](b *bench, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T], batch int,
	row func(string, int, Stats)) error {
	const model = "gibbs_exact_model"
	if have, err := gibbstest.SetExactKernel(s, ""); err != nil || !slices.Contains(have, model) {
		return err
	}
	if _, err := gibbstest.SetExactKernel(s, model); err != nil {
		return err
	}
	defer gibbstest.SetExactKernel(s, "")
	defer gibbstest.SetFusedShift(s, false)
	var draws [2][]T
	for i, fused := range []bool{false, true} {
		gibbstest.SetFusedShift(s, fused)
		draws[i] = make([]T, batch*s.Dim())
		if err := s.DrawExact(draws[i], gibbsrt.Stream{Seed: benchSeed}); err != nil {
			return fmt.Errorf("exact draws with a linear term (fused %v), B=%d: %w", fused, batch, err)
		}
	}
	if sp := s.Specialization(); sp.ExactShiftedState != gibbsrt.Ready {
		return fmt.Errorf("exact+linear:fused, B=%d: the Shifted entry point is %v (%v)", batch, sp.ExactShiftedState, sp.ExactShiftedErr)
	}
	if err := sameState(fmt.Sprintf("exact+linear:fused, B=%d", batch), draws[1], draws[0], s.Dim()); err != nil {
		return err
	}
	for _, fused := range []bool{false, true} {
		gibbstest.SetFusedShift(s, fused)
		stats, err := timeExactDraws(b, s, ds)
		if err != nil {
			return fmt.Errorf("exact draws with a linear term (fused %v), B=%d: %w", fused, batch, err)
		}
		kernel := "exact+linear"
		if fused {
			kernel += ":fused"
		}
		row(kernel, 1, stats)
	}
	return nil
}

// sameState returns an error naming the first element of got whose bits
// differ from want's, a state of dim coordinates a chain.
func sameState[T gibbsrt.Float](what string, got, want []T, dim int) error {
	for i := range want {
		if !sameBits(got[i], want[i]) {
			return fmt.Errorf("%s: chain %d coordinate %d is %v, the shifts' own passes give %v", what, i/dim, i%dim, got[i], want[i])
		}
	}
	return nil
}

// timeExactDraws times exact draws of every chain of ds, each launch at the
// next sweep of the stream.
func timeExactDraws[T gibbsrt.Float](b *bench, s *gibbsrt.Sampler[T], ds *gibbsrt.DeviceState[T]) (Stats, error) {
	st := gibbsrt.Stream{Seed: benchSeed}
	return b.timeLaunches(func() error {
		err := s.DrawExactDevice(ds, st)
		st.Sweep++
		return err
	})
}
