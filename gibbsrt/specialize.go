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

// Specialization describes the current model's specialized kernel. Its
// plain entry point is compiled first, and State turns Ready with it; the
// traced one (for SweepTrace and traced Runs) follows, and Auto uses the
// kernel for traced launches once TracedState is Ready.
type Specialization struct {
	State       SpecializationState
	Err         error // for Failed
	TracedState SpecializationState
	TracedErr   error
	Cached      bool          // SetModel found the model compiled already
	Dropped     int           // fmas by zero weights deleted from the PTX
	Kept        int           // fmas by nonzero weights
	Registers   int           // per thread, of the plain kernel
	JIT         time.Duration // the driver's compile time of the plain kernel
	Total       time.Duration // SetModel to the plain kernel's readiness: writing the PTX, compiling, loading
	InfoLog     string        // the driver's JIT log
	ModelHash   [32]byte
	Generation  int // counts SetModel calls, to tell models apart
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
	plain, traced entryBuild
	dropped, kept int    // written before plain.done is closed
	used          uint64 // the sampler's use clock at its last SetModel
}

func (sp *specialization) finished() bool { return sp.plain.finished() && sp.traced.finished() }

// build returns the compile of entry point name.
func (sp *specialization) build(k *kernels.Kernel, name string) *entryBuild {
	if name == k.Traced {
		return &sp.traced
	}
	return &sp.plain
}

// modelHash identifies a model by the bits of its kernel tables.
func modelHash(co *Coefficients[float32]) [32]byte {
	h := sha256.New()
	var b [4]byte
	for _, tab := range [][]float32{co.Weight, co.Offset, co.Scale} {
		for _, v := range tab {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			h.Write(b[:])
		}
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

var markerRE = regexp.MustCompile(`GG([WOS])_([0-9]+)`)

// specializePTX writes co into the per-model kernel's PTX: each marker
// becomes its coefficient's float32 bits (0fXXXXXXXX), and each line whose
// marker is a zero weight (+0 or -0) is deleted. That line is one fma that
// adds x·0 to a running sum in place, and dropping it can change only the
// sign of a zero sum, which no state ever sees: x_i = scale_i·z + sum, and
// scale_i·z is never zero. It returns the new PTX and the fmas dropped and
// kept.
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
		kind := line[m[2]]
		idx, err := strconv.Atoi(string(line[m[4]:m[5]]))
		if err != nil {
			return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q: %v", line[m[0]:m[1]], err)
		}
		tab := map[byte][]float32{'W': co.Weight, 'O': co.Offset, 'S': co.Scale}[kind]
		if idx >= len(tab) {
			return nil, 0, 0, fmt.Errorf("gibbsrt: PTX marker %q is past the model's %d entries: the PTX does not match dim %d", line[m[0]:m[1]], len(tab), co.Dim)
		}
		v := tab[idx]
		if kind == 'W' {
			if v == 0 {
				dropped++
				continue
			}
			kept++
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

// specialize makes co's specialized kernel current: from the cache, or by
// starting its compilation. The caller holds s.mu.
func (s *Sampler) specialize(co *Coefficients[float32]) {
	k := s.ptxKernel()
	if k == nil {
		return
	}
	s.generation++
	s.useClock++
	h := modelHash(co)
	if sp := s.specs[h]; sp != nil {
		sp.used = s.useClock
		s.spec, s.specCached = sp, true
		return
	}
	sp := &specialization{hash: h, used: s.useClock}
	sp.plain.done, sp.traced.done = make(chan struct{}), make(chan struct{})
	s.specs[h] = sp
	s.spec, s.specCached = sp, false
	s.evict()
	s.compiling.Add(1)
	go func() {
		defer s.compiling.Done()
		s.compile(sp, k, co)
	}()
}

// compile builds sp, the plain entry point first (Auto can use it as soon
// as it is ready), then the traced one, each as a module of its own. It
// takes no lock of the sampler, and the driver compiles in a context of its
// own (cuda.LoadPTX): the sampler's launches go on meanwhile.
func (s *Sampler) compile(sp *specialization, k *kernels.Kernel, co *Coefficients[float32]) {
	start := time.Now()
	ptx, dropped, kept, err := specializePTX(s.m.PTX, co)
	sp.dropped, sp.kept = dropped, kept
	for _, name := range []string{k.Name, k.Traced} {
		e := sp.build(k, name)
		if err != nil {
			e.err = err // the plain one's failure stands for both
		} else {
			s.buildEntry(e, ptxEntry(ptx, name), name)
			err = e.err
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
	for _, e := range []*entryBuild{&sp.plain, &sp.traced} {
		if e.mod != nil {
			out = append(out, e.mod)
		}
	}
	return out
}

// specReady reports whether Auto may run the current model's kernel, plain
// or traced. The caller holds s.mu.
func (s *Sampler) specReady(traced bool) bool {
	if s.spec == nil {
		return false
	}
	if traced {
		return s.spec.traced.ready()
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
	out := Specialization{
		State: sp.plain.state(), TracedState: sp.traced.state(),
		Cached: s.specCached, ModelHash: sp.hash, Generation: s.generation,
	}
	if out.State != Compiling {
		out.Err, out.Dropped, out.Kept, out.Registers = sp.plain.err, sp.dropped, sp.kept, sp.plain.regs
		out.JIT, out.Total, out.InfoLog = sp.plain.rep.Wall, sp.plain.took, sp.plain.rep.InfoLog
	}
	if out.TracedState != Compiling {
		out.TracedErr = sp.traced.err
	}
	return out
}

// WaitSpecialization blocks until the current model's specialized kernel
// (its plain entry point) is ready or has failed, and returns
// Specialization.
func (s *Sampler) WaitSpecialization() Specialization {
	s.mu.Lock()
	sp := s.spec
	s.mu.Unlock()
	if sp != nil {
		<-sp.plain.done
	}
	return s.Specialization()
}
