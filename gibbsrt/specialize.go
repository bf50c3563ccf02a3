package gibbsrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Per-model kernels. A package may ship the Specialized strategy as PTX in
// which every coefficient is a marker (kernels table, gibbs_sweep_model).
// SetModel looks the model up in a cache by its hash; on a miss it writes
// the coefficients into the PTX and has the driver compile it in the
// background, while the other strategies run. Auto switches once the
// kernel is ready; the results do not change, since every strategy draws
// the same numbers in the same order.

// maxSpecializations bounds the compiled models a sampler keeps.
const maxSpecializations = 8

// SpecializationState is where a model's specialized kernel stands.
type SpecializationState int

const (
	// NoSpecialization: the package has no per-model kernel, or no model
	// is set.
	NoSpecialization SpecializationState = iota
	// Compiling: the driver is compiling the kernel; Auto runs the others.
	Compiling
	// Ready: Auto runs the specialized kernel where it would run shared memory.
	Ready
	// Failed: the kernel could not be built or would spill; Auto runs the
	// others, and Err says why.
	Failed
)

func (s SpecializationState) String() string {
	switch s {
	case Compiling:
		return "compiling"
	case Ready:
		return "ready"
	case Failed:
		return "failed"
	}
	return "none"
}

// Specialization describes the current model's specialized kernel. The
// entry points the scheme's sweeps run are compiled at SetModel: for plain
// Gibbs sweeps the plain one, State, then the traced one, TracedState; for
// other schemes the Ext one, ExtState. The Ext entry point of a plain
// scheme is compiled on its first use (a Chebyshev iteration, say), while
// Auto runs another strategy. Under over-relaxation the plain and traced
// entry points are not built: they would not apply the ω the tables hold.
type Specialization struct {
	State       SpecializationState // of the entry point built first
	Err         error               // for Failed
	TracedState SpecializationState
	TracedErr   error
	ExtState    SpecializationState // NoSpecialization until asked for
	ExtErr      error
	// ExactState is where the per-model exact-draw kernel
	// (gibbs_exact_model) stands: NoSpecialization until an exact draw
	// asks for it, or where the package has none.
	ExactState SpecializationState
	ExactErr   error
	Cached     bool          // SetModel found the model compiled already
	Dropped    int           // fmas by zero weights deleted from the first entry point's PTX
	Kept       int           // fmas by nonzero weights in it (twice in the Ext entry point's: StagedNormals)
	Registers  int           // per thread, of the first entry point
	JIT        time.Duration // the driver's compile time of the first entry point
	Total      time.Duration // SetModel to its readiness: writing the PTX, compiling, loading
	InfoLog    string        // the driver's JIT log
	ModelHash  [32]byte
	Generation int // counts SetModel and SetScheme calls, to tell models apart

	// StagedNormals: the Ext entry point draws each pass's normals before
	// the pass rather than inside it (stagedNormals says when). Its PTX
	// holds both ways, so it counts each fma twice in Dropped and Kept;
	// the driver compiles one.
	StagedNormals bool

	// PulledSums: the plain sweeps pull each position's sum rather than
	// push each new value into every other sum, the same bits from the
	// PTX's entry point gibbs_sweep_model_pulled, compiled in the plain
	// one's place (kernel_model in templates/kernels.cu.tmpl says why). The
	// runtime pulls only where a test or the bench asks
	// (gibbstest.SetPulledSums): faster in one-sweep launches, slower
	// inside long ones (docs/log/BENCHMARKS-runs.md, run 39).
	PulledSums bool

	// ShiftedState is where the entry point that fuses a linear term's
	// shifts into plain sweeps stands (gibbs_sweep_model_shift): compiled
	// on the first plain sweep with a term that runs it, which only a test
	// or the bench asks for (gibbstest.SetFusedShift), until a GPU run has
	// timed it.
	ShiftedState SpecializationState
	ShiftedErr   error
	// ExactShiftedState is ShiftedState for exact draws: the per-model
	// exact-draw kernel's entry point that adds the shifts
	// (gibbs_exact_model_shift).
	ExactShiftedState SpecializationState
	ExactShiftedErr   error

	// PulledState is where the plain entry point with pulled sums stands
	// as a build of its own (gibbs_sweep_model_pulled, EntryPulled), which
	// plain launches of few sweeps run once it is ready
	// (kernels.PullSums): compiled on the first such launch, where the
	// sampler picks pulled sums by launch, which only a test or the bench
	// asks for (gibbstest.SetPulledByLaunch) until a GPU run has checked
	// the choice.
	PulledState SpecializationState
	PulledErr   error
}

// entryBuild is the compile of one entry point; started is guarded by the
// sampler's lock, the other fields are written once, before done is
// closed.
type entryBuild struct {
	started bool
	done    chan struct{}
	mod     *cuda.Module
	fn      cuda.Function
	chip    bool // Chebyshev launches may keep the iterates in shared memory
	regs    int
	rep     cuda.JITReport
	err     error
	took    time.Duration // since the compile started
}

func (e *entryBuild) finished() bool {
	if !e.started {
		return false
	}
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

func (e *entryBuild) ready() bool { return e.finished() && e.err == nil }

func (e *entryBuild) state() SpecializationState {
	switch {
	case !e.started:
		return NoSpecialization
	case !e.finished():
		return Compiling
	case e.err != nil:
		return Failed
	}
	return Ready
}

// buildExact and buildExactShifted are the slots of specialization.builds
// that hold the per-model exact-draw kernel's entry points, the plain one
// and the Shifted one, and buildPulled the per-model sweep kernel's Pulled
// one; slots 0 to 3 hold its others, by kernels.Entry.
const (
	buildExact = 4 + iota
	buildExactShifted
	buildPulled
)

// buildSlot returns the slot of specialization.builds of k's entry point e.
func buildSlot(k *kernels.Kernel, e kernels.Entry) int {
	switch {
	case k.Role == kernels.Exact && e == kernels.EntryShifted:
		return buildExactShifted
	case k.Role == kernels.Exact:
		return buildExact
	case e == kernels.EntryPulled:
		return buildPulled
	}
	return int(e)
}

// specialization is one model's compiled kernels, shared by the cache and
// the sampler.
type specialization[T Float] struct {
	hash          [32]byte
	co            *Coefficients[T]
	exact         exactValues[T] // the exact-draw kernel's markers' values
	paths         ptxPaths       // the ways its kernel runs: GGZ's, and which plain entry point
	builds        [7]entryBuild  // by buildSlot
	first         int            // the slot of the build made first
	dropped, kept int            // written before the first build's done is closed
	used          uint64         // the sampler's use clock at its last SetModel
}

// exactValues are the values of the per-model exact-draw kernel's markers
// (kernel_exact_model): n[p*dim+i] = N_2[i][p] for i >= p, c[i] = c_2[i],
// the matrix form's frame 2 (MatrixTables); err, where the tables could
// not be made, is that kernel's build error.
type exactValues[T Float] struct {
	n, c []T
	err  error
}

// exactValuesOf returns the exact-draw markers' values of p's model.
func exactValuesOf[T Float](p *plan[T]) exactValues[T] {
	mt, err := p.matrix()
	if err != nil {
		return exactValues[T]{err: err}
	}
	d := p.dim
	ev := exactValues[T]{n: make([]T, d*d), c: make([]T, d)}
	for i := range d {
		ev.c[i] = mt.C[kernels.MatrixVectorAt(mt.Stride, 2, i)]
		for q := 0; q <= i; q++ {
			ev.n[q*d+i] = mt.N[kernels.MatrixAt(d, mt.Stride, 2, i, q)]
		}
	}
	return ev
}

// finished reports whether every build started is done. The caller holds
// the sampler's lock.
func (sp *specialization[T]) finished() bool {
	for i := range sp.builds {
		if b := &sp.builds[i]; b.started && !b.finished() {
			return false
		}
	}
	return true
}

// modelHash identifies a compiled model by the bits of its kernel tables
// and exact-draw values, where its Ext entry point draws the normals and
// whether its plain entry points pull their sums.
func modelHash[T Float](co *Coefficients[T], ex exactValues[T], paths ptxPaths) [32]byte {
	h := sha256.New()
	if f := paths.flags(); f != 0 {
		h.Write([]byte{f})
	}
	var b [8]byte
	// The exact-draw kernel's values follow from Q and mu as the
	// coefficients do, but through another rounding: two models whose
	// coefficients round alike may differ in them.
	for _, tab := range [][]T{co.Weight, co.Offset, co.Scale, {co.Keep}, ex.n, ex.c} {
		for _, v := range tab {
			binary.LittleEndian.PutUint64(b[:], bitsOf(v))
			h.Write(b[:elemSize[T]()])
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

var markerRE = regexp.MustCompile(`GG([WOSNC])(R?)_([0-9]+)|GGK\b|GGZ\b`)

// ptxPaths are the per-model kernel's ways that are chosen per model: its
// Ext entry point's normals drawn before each pass (staged: the marker
// GGZ), and its plain sweeps' sums pulled rather than pushed (pulled: the
// entry point kernels.Kernel.Pulled compiled in place of the plain one).
type ptxPaths struct{ staged, pulled bool }

// flags is the paths as bits: staged 1, pulled 2.
func (p ptxPaths) flags() byte {
	var f byte
	if p.staged {
		f |= 1
	}
	if p.pulled {
		f |= 2
	}
	return f
}

// stagedNormalsMin is the nonzero weights per coordinate (of dim − 1) from
// which the per-model kernel's Ext entry point draws each pass's normals
// before the pass, under symmetric schemes (stagedNormals).
//
// Drawn inside the unrolled pass, every group's draw is written once per
// frame, and a dense model's symmetric sweep, whose loop holds both
// frames, outgrew the instruction cache. Drawn first, with 31 weights a
// coordinate (dense, dim 32) symmetric sweeps were 7–18% faster and
// Chebyshev iterations 10–17%. With fewer, the updates wait on each other
// and the draws inside the pass filled those waits: at 3.5–12.4 a
// coordinate symmetric sweeps were 1.5–7% slower drawn first (Chebyshev
// iterations between 1% slower and 4% faster), and forward sweeps, whose
// loop holds one frame, were 7–12% slower at every density measured
// (docs/log/BENCHMARKS-runs.md, run 25). The threshold lies between 12.4 and 31,
// which were measured; nothing between them was.
const stagedNormalsMin = 16

// stagedNormals reports whether the per-model kernel of co under sweeps of
// kind draws each pass's normals before the pass: for sweeps of more than
// one pass, whose loop holds both frames (symmetric ones, and Chebyshev
// iterations, which use them), of models with at least stagedNormalsMin
// nonzero weights a coordinate.
func stagedNormals[T Float](co *Coefficients[T], kind SweepKind) bool {
	if len(kind.Frames()) < 2 {
		return false
	}
	w, _, _ := co.Frame(0)
	n := 0
	for _, v := range w {
		if v != 0 {
			n++
		}
	}
	return n >= stagedNormalsMin*co.Dim
}

// placeNormals reports whether the kernel specialized from ptx for co
// under sweeps of kind draws each pass's normals before the pass:
// stagedNormals' choice, or forced's where it is set (a test hook), and
// never where the PTX has no GGZ (an ABI 7 package's, which draws inside
// the pass).
func placeNormals[T Float](ptx []byte, co *Coefficients[T], kind SweepKind, forced *bool) bool {
	staged := stagedNormals(co, kind)
	if forced != nil {
		staged = *forced
	}
	return staged && bytes.Contains(ptx, []byte("GGZ"))
}

// pullSums reports whether the plain sweeps of k, specialized from ptx,
// pull their sums in every launch, the Pulled entry point compiled in the
// plain one's place: where forced asks (a test hook) and the PTX has it (a
// package of gibbsgen 0.17 or later). Run 39 (docs/log/BENCHMARKS-runs.md)
// timed pulled sums faster in one-sweep launches and slower inside long
// ones, so the runtime's own choice is by launch (pulledEntry).
func pullSums(ptx []byte, k *kernels.Kernel, forced *bool) bool {
	return forced != nil && *forced && ptxHas(ptx, k.Pulled)
}

// ptxHas reports whether ptx defines the entry point name ("" never): a
// package of an older gibbsgen may lack one the table names.
func ptxHas(ptx []byte, name string) bool {
	return name != "" && bytes.Contains(ptx, []byte(".entry "+name+"("))
}

// specializePTX writes co into the per-model kernel's PTX: each marker
// becomes its coefficient's bits (0fXXXXXXXX for float32, 0dX…X, 16 hex
// digits, for float64), GGZ becomes 1 if staged (the Ext entry point draws
// each pass's normals before it) and 0 if not, and each line whose
// marker is a zero weight (+0 or -0), or keep when it is 0, is deleted.
// That line is one fma that adds x·0 to a running sum in place, and
// dropping it can change only the sign of a zero sum, which no state ever
// sees: x_i = scale_i·z + sum, and scale_i·z is never zero. Markers ending
// in R are frame 1's (the reversed order). The exact-draw kernel's
// markers, GGN_k and GGC_i, become ex's values, and none of their lines
// is deleted. It returns the new PTX and the weights' fmas dropped and
// kept.
func specializePTX[T Float](ptx []byte, co *Coefficients[T], ex exactValues[T], staged bool) (out []byte, dropped, kept int, err error) {
	out = make([]byte, 0, len(ptx))
	for len(ptx) > 0 {
		line := ptx
		if i := bytes.IndexByte(ptx, '\n'); i >= 0 {
			line = ptx[:i+1]
		}
		ptx = ptx[len(line):]
		ms := markerRE.FindAllSubmatchIndex(line, -1)
		if len(ms) == 0 {
			out = append(out, line...)
			continue
		}
		if len(ms) > 1 {
			return nil, 0, 0, fmt.Errorf("gibbsrt: PTX line %q holds %d coefficient markers, want 1", bytes.TrimSpace(line), len(ms))
		}
		m := ms[0]
		var val string // what the marker becomes
		switch {
		case string(line[m[0]:m[1]]) == "GGZ":
			val = "0"
			if staged {
				val = "1"
			}
		case m[2] < 0: // GGK
			if co.Keep == 0 {
				continue
			}
			val = ptxImmediate(co.Keep)
		default:
			kind := line[m[2]]
			idx, err := strconv.Atoi(string(line[m[6]:m[7]]))
			if err != nil {
				return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q: %v", line[m[0]:m[1]], err)
			}
			tab := map[byte][]T{'W': co.Weight, 'O': co.Offset, 'S': co.Scale, 'N': ex.n, 'C': ex.c}[kind]
			per := len(tab)
			if kind != 'N' && kind != 'C' {
				per /= kernels.Frames
			} else if m[5] > m[4] {
				return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q: the exact-draw values have one frame", line[m[0]:m[1]])
			}
			if idx >= per {
				return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q is past the model's %d entries: the PTX does not match dim %d", line[m[0]:m[1]], per, co.Dim)
			}
			if m[5] > m[4] { // frame 1
				idx += per
			}
			v := tab[idx]
			if kind == 'W' {
				if v == 0 {
					dropped++
					continue
				}
				kept++
			}
			val = ptxImmediate(v)
		}
		out = append(out, line[:m[0]]...)
		out = append(out, val...)
		out = append(out, line[m[1]:]...)
	}
	return out, dropped, kept, nil
}

// setPulledSums (a test hook) has the per-model kernels of the models set
// after it pull their plain sweeps' sums (*p.Pulled) or push them, so that
// the GPU suites run both and the bench times both; a nil Pulled restores
// the default (pushed).
func (s *Sampler[T]) setPulledSums(p impl.PulledSums) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pulledForced = p.Pulled
}

// setPulledByLaunch (a test hook) has plain launches of the per-model
// kernel pick pulled or pushed sums by their sweeps (pulledEntry), or
// always push them (the default until a GPU run has checked the choice).
func (s *Sampler[T]) setPulledByLaunch(p impl.PulledByLaunch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pulledByLaunch = p.On
}

// pulledEntry returns the entry point of k that a launch of sweeps sweeps
// through its entry point e runs: EntryPulled where the sampler picks sums
// by launch (pulledByLaunch), e is the plain one of the per-model sweep
// kernel, the launch is short (kernels.PullSums), the PTX has the entry
// point, and its build, started by the first such launch, is ready; e
// otherwise. Both run the same bits, so a run may switch when the build
// becomes ready. The caller holds s.mu.
func (s *Sampler[T]) pulledEntry(k *kernels.Kernel, e kernels.Entry, sweeps int) kernels.Entry {
	sp := s.spec
	if !s.pulledByLaunch || e != kernels.EntryPlain || !k.PTX || k.Role != kernels.Sweep || sp == nil ||
		sp.paths.pulled || !kernels.PullSums(dtypeOf[T](), sweeps) || !ptxHas(s.m.PTX, k.Pulled) {
		return e
	}
	s.startBuilds(sp, k, kernels.EntryPulled)
	if sp.builds[buildPulled].ready() {
		return kernels.EntryPulled
	}
	return e
}

// setFusedShift (a test hook) has later plain sweeps with a linear term
// run the per-model kernel's Shifted entry point where Auto picks that
// kernel (fusedShift), or the shifts' own passes (the default), so that
// the GPU suites run both and the bench times both.
func (s *Sampler[T]) setFusedShift(f impl.FusedShift) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shiftFused = f.Fused
}

// ptxKernel returns the module's per-model sweep kernel, or nil.
func (s *Sampler[T]) ptxKernel() *kernels.Kernel { return s.ptxKernelOf(kernels.Sweep) }

// ptxKernelOf returns the module's per-model kernel of role r, or nil.
func (s *Sampler[T]) ptxKernelOf(r kernels.Role) *kernels.Kernel {
	for _, k := range s.kernels {
		if k.PTX && k.Role == r {
			return k
		}
	}
	return nil
}

// errPlainUnbuilt is the plain and traced entry points' error under
// over-relaxation.
var errPlainUnbuilt = errors.New("gibbsrt: the plain entry points are not built for an over-relaxed model")

// specialize makes p's specialized kernel current: from the cache, or by
// starting the compilation of the entry points its scheme runs. The caller
// holds s.mu.
func (s *Sampler[T]) specialize(p *plan[T]) {
	k := s.ptxKernel()
	if k == nil {
		return
	}
	co := p.co
	s.generation++
	s.useClock++
	paths := ptxPaths{staged: placeNormals(s.m.PTX, co, p.scheme.Kind, s.stagedForced), pulled: pullSums(s.m.PTX, k, s.pulledForced)}
	var ex exactValues[T]
	if s.ptxKernelOf(kernels.Exact) != nil {
		ex = exactValuesOf(p)
	}
	h := modelHash(co, ex, paths)
	if sp := s.specs[h]; sp != nil {
		sp.used = s.useClock
		s.spec, s.specCached = sp, true
		if p.ext() {
			s.startBuilds(sp, k, kernels.EntryExt)
		}
		return
	}
	sp := &specialization[T]{hash: h, co: co, exact: ex, paths: paths, used: s.useClock}
	for i := range sp.builds {
		sp.builds[i].done = make(chan struct{})
	}
	if co.Keep != 0 { // over-relaxed: the plain entry points would be wrong
		unbuildPlain(sp, k)
	}
	s.specs[h] = sp
	s.spec, s.specCached = sp, false
	s.evict()
	if p.ext() {
		sp.first = int(kernels.EntryExt)
		s.startBuilds(sp, k, kernels.EntryExt)
	} else {
		sp.first = int(kernels.EntryPlain)
		s.startBuilds(sp, k, kernels.EntryPlain, kernels.EntryTraced)
	}
}

// unbuildPlain marks the builds of the sweep kernel k's entry points that
// run plain sweeps (plain, traced, Shifted, Pulled) failed with
// errPlainUnbuilt, in their slots (buildSlot: the Pulled one's is not its
// Entry's number, which is the exact-draw kernel's slot).
func unbuildPlain[T Float](sp *specialization[T], k *kernels.Kernel) {
	for _, e := range []kernels.Entry{kernels.EntryPlain, kernels.EntryTraced, kernels.EntryShifted, kernels.EntryPulled} {
		b := &sp.builds[buildSlot(k, e)]
		b.started, b.err = true, errPlainUnbuilt
		close(b.done)
	}
}

// startBuilds starts compiling the entry points es of sp's per-model
// kernel k that have not been started, in order, in the background. The
// caller holds s.mu.
func (s *Sampler[T]) startBuilds(sp *specialization[T], k *kernels.Kernel, es ...kernels.Entry) {
	var todo []kernels.Entry
	for _, e := range es {
		if b := &sp.builds[buildSlot(k, e)]; !b.started {
			b.started = true
			todo = append(todo, e)
		}
	}
	if len(todo) == 0 {
		return
	}
	s.compiling.Add(1)
	go func() {
		defer s.compiling.Done()
		s.compile(sp, k, todo)
	}()
}

// compile builds sp's entry points es in order, each as a module of its
// own, so that Auto can use the first as soon as it is ready. It takes no
// lock of the sampler, and the driver compiles in a context of its own
// (cuda.LoadPTX): the sampler's launches go on meanwhile.
func (s *Sampler[T]) compile(sp *specialization[T], k *kernels.Kernel, es []kernels.Entry) {
	start := time.Now()
	for _, e := range es {
		slot := buildSlot(k, e)
		b := &sp.builds[slot]
		name, _ := k.EntryPoint(e)
		if e == kernels.EntryPlain && k.Role == kernels.Sweep && sp.paths.pulled {
			name = k.Pulled // the same parameters, launched in the plain one's place
		}
		ptx, dropped, kept, err := specializePTX(ptxEntry(s.m.PTX, name), sp.co, sp.exact, sp.paths.staged)
		if slot == sp.first {
			sp.dropped, sp.kept = dropped, kept
		}
		if k.Role == kernels.Exact && sp.exact.err != nil {
			err = sp.exact.err
		}
		if err != nil {
			b.err = err
		} else {
			chip := 0
			if e == kernels.EntryExt {
				chip = k.Launch(s.m.Dim, dtypeOf[T]()).ChebyshevShared
			}
			s.buildEntry(b, ptx, name, chip)
		}
		b.took = time.Since(start)
		close(b.done)
	}
}

// buildEntry compiles and loads one entry point's PTX, and checks that it
// does not spill; with chip > 0, it lets the entry point's Chebyshev
// launches have chip bytes of dynamic shared memory where the device can.
func (s *Sampler[T]) buildEntry(e *entryBuild, ptx []byte, name string, chip int) {
	mod, rep, err := s.ctx.LoadPTX(ptx)
	e.rep = rep
	if err != nil {
		e.err = fmt.Errorf("gibbsrt: the driver could not compile the specialized kernel %s: %w", name, err)
		return
	}
	var r cuda.FuncResources
	fn, err := mod.Function(name)
	if err == nil {
		r, err = s.ctx.Resources(fn)
	}
	if err == nil && r.LocalBytes > 0 {
		err = fmt.Errorf("gibbsrt: the specialized kernel %s would spill (%d registers, %d bytes of local memory per thread)", name, r.Registers, r.LocalBytes)
	}
	if err == nil && chip > 0 {
		e.chip, err = s.ctx.AllowDynamicShared(fn, chip)
	}
	if err != nil {
		e.err = err
		_ = mod.Unload()
		return
	}
	e.mod, e.fn, e.regs = mod, fn, r.Registers
}

// ptxEntry returns ptx without the entry points other than name: the
// module-level declarations, and name's ".visible .entry" block (which nvcc
// ends with a line "}").
func ptxEntry(ptx []byte, name string) []byte {
	out := make([]byte, 0, len(ptx))
	skip := false
	for len(ptx) > 0 {
		line := ptx
		if i := bytes.IndexByte(ptx, '\n'); i >= 0 {
			line = ptx[:i+1]
		}
		ptx = ptx[len(line):]
		if rest, ok := bytes.CutPrefix(line, []byte(".visible .entry ")); ok {
			entry, _, _ := bytes.Cut(rest, []byte("("))
			skip = string(entry) != name
		}
		if !skip {
			out = append(out, line...)
		}
		if skip && bytes.Equal(bytes.TrimRight(line, "\r\n"), []byte("}")) {
			skip = false
		}
	}
	return out
}

// evict drops the least recently set compiled models beyond
// maxSpecializations; ones still compiling stay. A module is unloaded only
// after the sampler's stream has drained, since a launch of it may still
// run. The caller holds s.mu.
func (s *Sampler[T]) evict() {
	for len(s.specs) > maxSpecializations {
		var old *specialization[T]
		for _, sp := range s.specs {
			if sp != s.spec && sp.finished() && (old == nil || sp.used < old.used) {
				old = sp
			}
		}
		if old == nil {
			return
		}
		delete(s.specs, old.hash)
		for i := range old.builds {
			delete(s.resident, old.builds[i].fn) // a later module's function may get its handle
		}
		_ = s.ctx.Do(func(l cuda.Locked) error {
			errs := []error{l.StreamSynchronize(s.stream)}
			for _, m := range old.modules() {
				errs = append(errs, l.Unload(m))
			}
			return errors.Join(errs...)
		})
	}
}

// modules returns sp's loaded modules. The caller holds the sampler's
// lock, and sp is finished.
func (sp *specialization[T]) modules() []*cuda.Module {
	var out []*cuda.Module
	for i := range sp.builds {
		if m := sp.builds[i].mod; m != nil {
			out = append(out, m)
		}
	}
	return out
}

// specReady reports whether Auto may run the current model's kernel's
// entry point e; an Ext entry point not yet built starts compiling. The
// caller holds s.mu.
func (s *Sampler[T]) specReady(e kernels.Entry) bool {
	if s.spec == nil {
		return false
	}
	if k := s.ptxKernel(); k != nil && e == kernels.EntryExt {
		s.startBuilds(s.spec, k, e)
	}
	return s.spec.builds[e].ready()
}

// exactSpecReady reports whether exact draws may run the current model's
// exact-draw kernel k, starting its compile if it has not started. The
// caller holds s.mu.
func (s *Sampler[T]) exactSpecReady(k *kernels.Kernel) bool {
	if s.spec == nil {
		return false
	}
	s.startBuilds(s.spec, k, kernels.EntryPlain)
	return s.spec.builds[buildExact].ready()
}

// specFunction returns the current model's specialized entry point e,
// compiling it if need be and waiting for it, and whether its Chebyshev
// launches may keep the iterates on chip. The caller holds s.mu.
func (s *Sampler[T]) specFunction(k *kernels.Kernel, e kernels.Entry) (cuda.Function, bool, error) {
	if s.spec == nil {
		return 0, false, errors.New("gibbsrt: no specialized kernel: SetModel first")
	}
	s.startBuilds(s.spec, k, e)
	b := &s.spec.builds[buildSlot(k, e)]
	<-b.done
	if b.err != nil && k.Role == kernels.Exact {
		return 0, false, fmt.Errorf("gibbsrt: exact-draw kernel %s is unavailable for this model: %w", k.Name, b.err)
	}
	if b.err != nil {
		return 0, false, fmt.Errorf("gibbsrt: strategy %v is unavailable for this model: %w", Specialized, b.err)
	}
	return b.fn, b.chip, nil
}

// Specialization reports the current model's specialized kernel: whether
// it is compiling, ready or failed (and why), and what compiling it cost.
func (s *Sampler[T]) Specialization() Specialization {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.spec
	if sp == nil {
		return Specialization{}
	}
	first := &sp.builds[sp.first]
	out := Specialization{
		State: first.state(), TracedState: sp.builds[kernels.EntryTraced].state(), ExtState: sp.builds[kernels.EntryExt].state(),
		ExactState: sp.builds[buildExact].state(), ShiftedState: sp.builds[kernels.EntryShifted].state(),
		ExactShiftedState: sp.builds[buildExactShifted].state(), PulledState: sp.builds[buildPulled].state(),
		Cached: s.specCached, ModelHash: sp.hash, Generation: s.generation,
		StagedNormals: sp.paths.staged, PulledSums: sp.paths.pulled,
	}
	if out.State != Compiling {
		out.Err, out.Dropped, out.Kept, out.Registers = first.err, sp.dropped, sp.kept, first.regs
		out.JIT, out.Total, out.InfoLog = first.rep.Wall, first.took, first.rep.InfoLog
	}
	if out.TracedState != Compiling {
		out.TracedErr = sp.builds[kernels.EntryTraced].err
	}
	if out.ExtState != Compiling {
		out.ExtErr = sp.builds[kernels.EntryExt].err
	}
	if out.ExactState != Compiling {
		out.ExactErr = sp.builds[buildExact].err
	}
	if out.ShiftedState != Compiling {
		out.ShiftedErr = sp.builds[kernels.EntryShifted].err
	}
	if out.ExactShiftedState != Compiling {
		out.ExactShiftedErr = sp.builds[buildExactShifted].err
	}
	if out.PulledState != Compiling {
		out.PulledErr = sp.builds[buildPulled].err
	}
	return out
}

// WaitSpecialization blocks until the current model's specialized kernel
// (the entry point built first) is ready or has failed, and returns
// Specialization.
func (s *Sampler[T]) WaitSpecialization() Specialization {
	s.mu.Lock()
	sp := s.spec
	s.mu.Unlock()
	if sp != nil {
		<-sp.builds[sp.first].done
	}
	return s.Specialization()
}
