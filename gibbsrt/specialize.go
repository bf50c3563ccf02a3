package gibbsrt

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"

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
// entry point the scheme's sweeps run is compiled first (the plain one for
// plain Gibbs sweeps, the Ext one otherwise), and State turns Ready with
// it; for plain Gibbs the Ext one (for traces and Chebyshev iterations)
// follows, and Auto uses the kernel for those launches once ExtState is
// Ready. Under over-relaxation the plain entry point is not built: it would
// not apply the ω the tables hold.
type Specialization struct {
	State      SpecializationState
	Err        error // for Failed
	ExtState   SpecializationState
	ExtErr     error
	Cached     bool          // SetModel found the model compiled already
	Dropped    int           // fmas by zero weights deleted from the first entry point's PTX
	Kept       int           // fmas by nonzero weights in it
	Registers  int           // per thread, of the first entry point
	JIT        time.Duration // the driver's compile time of the first entry point
	Total      time.Duration // SetModel to its readiness: writing the PTX, compiling, loading
	InfoLog    string        // the driver's JIT log
	ModelHash  [32]byte
	Generation int // counts SetModel and SetScheme calls, to tell models apart
}

// entryBuild is the compile of one entry point; its fields are written
// once, before done is closed.
type entryBuild struct {
	done chan struct{}
	mod  *cuda.Module
	fn   cuda.Function
	regs int
	rep  cuda.JITReport
	err  error
	took time.Duration // since the compile started
}

func (e *entryBuild) finished() bool {
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
	case !e.finished():
		return Compiling
	case e.err != nil:
		return Failed
	}
	return Ready
}

// specialization is one model's compiled kernel, shared by the cache and
// the sampler.
type specialization struct {
	hash          [32]byte
	plain, ext    entryBuild
	extFirst      bool   // the Ext entry point is built first
	dropped, kept int    // written before the first build's done is closed
	used          uint64 // the sampler's use clock at its last SetModel
}

func (sp *specialization) finished() bool { return sp.plain.finished() && sp.ext.finished() }

// first returns the build made first.
func (sp *specialization) first() *entryBuild {
	if sp.extFirst {
		return &sp.ext
	}
	return &sp.plain
}

// build returns the compile of entry point name.
func (sp *specialization) build(k *kernels.Kernel, name string) *entryBuild {
	if name == k.Ext {
		return &sp.ext
	}
	return &sp.plain
}

// modelHash identifies a model by the bits of its kernel tables.
func modelHash(co *Coefficients[float32]) [32]byte {
	h := sha256.New()
	var b [4]byte
	for _, tab := range [][]float32{co.Weight, co.Offset, co.Scale, {co.Keep}} {
		for _, v := range tab {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			h.Write(b[:])
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

var markerRE = regexp.MustCompile(`GG([WOS])(R?)_([0-9]+)|GGK\b`)

// specializePTX writes co into the per-model kernel's PTX: each marker
// becomes its coefficient's float32 bits (0fXXXXXXXX), and each line whose
// marker is a zero weight (+0 or -0), or keep when it is 0, is deleted.
// That line is one fma that adds x·0 to a running sum in place, and
// dropping it can change only the sign of a zero sum, which no state ever
// sees: x_i = scale_i·z + sum, and scale_i·z is never zero. Markers ending
// in R are frame 1's (the reversed order). It returns the new PTX and the
// weights' fmas dropped and kept.
func specializePTX(ptx []byte, co *Coefficients[float32]) (out []byte, dropped, kept int, err error) {
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
		var v float32
		if m[2] < 0 { // GGK
			if co.Keep == 0 {
				continue
			}
			v = co.Keep
		} else {
			kind := line[m[2]]
			idx, err := strconv.Atoi(string(line[m[6]:m[7]]))
			if err != nil {
				return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q: %v", line[m[0]:m[1]], err)
			}
			tab := map[byte][]float32{'W': co.Weight, 'O': co.Offset, 'S': co.Scale}[kind]
			per := len(tab) / kernels.Frames
			if idx >= per {
				return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q is past the model's %d entries: the PTX does not match dim %d", line[m[0]:m[1]], per, co.Dim)
			}
			if m[5] > m[4] { // frame 1
				idx += per
			}
			v = tab[idx]
			if kind == 'W' {
				if v == 0 {
					dropped++
					continue
				}
				kept++
			}
		}
		out = append(out, line[:m[0]]...)
		out = fmt.Appendf(out, "0f%08X", math.Float32bits(v))
		out = append(out, line[m[1]:]...)
	}
	return out, dropped, kept, nil
}

// ptxKernel returns the module's per-model kernel, or nil.
func (s *Sampler) ptxKernel() *kernels.Kernel {
	for _, k := range s.kernels {
		if k.PTX {
			return k
		}
	}
	return nil
}

// errPlainUnbuilt is the plain entry point's error under over-relaxation.
var errPlainUnbuilt = errors.New("gibbsrt: the plain entry point is not built for an over-relaxed model")

// specialize makes p's specialized kernel current: from the cache, or by
// starting its compilation. The caller holds s.mu.
func (s *Sampler) specialize(p *plan[float32]) {
	k := s.ptxKernel()
	if k == nil {
		return
	}
	co := p.co
	s.generation++
	s.useClock++
	h := modelHash(co)
	if sp := s.specs[h]; sp != nil {
		sp.used = s.useClock
		s.spec, s.specCached = sp, true
		return
	}
	sp := &specialization{hash: h, used: s.useClock, extFirst: p.ext()}
	sp.plain.done, sp.ext.done = make(chan struct{}), make(chan struct{})
	order := []string{k.Name, k.Ext}
	switch {
	case co.Keep != 0: // over-relaxed: Ext only
		order = []string{k.Ext}
		sp.plain.err = errPlainUnbuilt
		close(sp.plain.done)
	case sp.extFirst:
		order = []string{k.Ext, k.Name}
	}
	s.specs[h] = sp
	s.spec, s.specCached = sp, false
	s.evict()
	s.compiling.Add(1)
	go func() {
		defer s.compiling.Done()
		s.compile(sp, k, co, order)
	}()
}

// compile builds sp's entry points in order, each as a module of its own,
// so that Auto can use the first as soon as it is ready. It takes no lock
// of the sampler, and the driver compiles in a context of its own
// (cuda.LoadPTX): the sampler's launches go on meanwhile.
func (s *Sampler) compile(sp *specialization, k *kernels.Kernel, co *Coefficients[float32], order []string) {
	start := time.Now()
	for i, name := range order {
		e := sp.build(k, name)
		ptx, dropped, kept, err := specializePTX(ptxEntry(s.m.PTX, name), co)
		if i == 0 {
			sp.dropped, sp.kept = dropped, kept
		}
		if err != nil {
			e.err = err
		} else {
			s.buildEntry(e, ptx, name)
		}
		e.took = time.Since(start)
		close(e.done)
	}
}

// buildEntry compiles and loads one entry point's PTX, and checks that it
// does not spill.
func (s *Sampler) buildEntry(e *entryBuild, ptx []byte, name string) {
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
func (s *Sampler) evict() {
	for len(s.specs) > maxSpecializations {
		var old *specialization
		for _, sp := range s.specs {
			if sp != s.spec && sp.finished() && (old == nil || sp.used < old.used) {
				old = sp
			}
		}
		if old == nil {
			return
		}
		delete(s.specs, old.hash)
		_ = s.ctx.Do(func(l cuda.Locked) error {
			errs := []error{l.StreamSynchronize(s.stream)}
			for _, m := range old.modules() {
				errs = append(errs, l.Unload(m))
			}
			return errors.Join(errs...)
		})
	}
}

// modules returns sp's loaded modules.
func (sp *specialization) modules() []*cuda.Module {
	var out []*cuda.Module
	for _, e := range []*entryBuild{&sp.plain, &sp.ext} {
		if e.mod != nil {
			out = append(out, e.mod)
		}
	}
	return out
}

// specReady reports whether Auto may run the current model's kernel, its
// plain or its Ext entry point. The caller holds s.mu.
func (s *Sampler) specReady(ext bool) bool {
	if s.spec == nil {
		return false
	}
	if ext {
		return s.spec.ext.ready()
	}
	return s.spec.plain.ready()
}

// specFunction returns the current model's specialized entry point name,
// waiting for its compilation. The caller holds s.mu.
func (s *Sampler) specFunction(k *kernels.Kernel, name string) (cuda.Function, error) {
	if s.spec == nil {
		return 0, errors.New("gibbsrt: no specialized kernel: SetModel first")
	}
	e := s.spec.build(k, name)
	<-e.done
	if e.err != nil {
		return 0, fmt.Errorf("gibbsrt: strategy %v is unavailable for this model: %w", Specialized, e.err)
	}
	return e.fn, nil
}

// Specialization reports the current model's specialized kernel: whether
// it is compiling, ready or failed (and why), and what compiling it cost.
func (s *Sampler) Specialization() Specialization {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.spec
	if sp == nil {
		return Specialization{}
	}
	first := sp.first()
	out := Specialization{
		State: first.state(), ExtState: sp.ext.state(),
		Cached: s.specCached, ModelHash: sp.hash, Generation: s.generation,
	}
	if out.State != Compiling {
		out.Err, out.Dropped, out.Kept, out.Registers = first.err, sp.dropped, sp.kept, first.regs
		out.JIT, out.Total, out.InfoLog = first.rep.Wall, first.took, first.rep.InfoLog
	}
	if out.ExtState != Compiling {
		out.ExtErr = sp.ext.err
	}
	return out
}

// WaitSpecialization blocks until the current model's specialized kernel
// (the entry point built first) is ready or has failed, and returns
// Specialization.
func (s *Sampler) WaitSpecialization() Specialization {
	s.mu.Lock()
	sp := s.spec
	s.mu.Unlock()
	if sp != nil {
		<-sp.first().done
	}
	return s.Specialization()
}
