package gibbsrt

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/gibbsgen/gibbsgen/gibbsrt/internal/impl"
	"github.com/gibbsgen/gibbsgen/internal/cuda"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Sampler runs a generated module's kernels on one device. Its methods are
// safe for concurrent use; calls are serialized.
type Sampler[T Float] struct {
	mu       sync.Mutex
	m        impl.Module
	ctx      *cuda.Context
	mod      *cuda.Module
	kernels  []*kernels.Kernel        // what the module holds, in its order
	fn       map[string]cuda.Function // by kernel name
	have     []Strategy               // the module's strategies
	sms      int                      // the device's multiprocessors, for Auto
	resident map[cuda.Function]int    // blocks per multiprocessor of looping plain entry points (Geometry.PlainLoops)
	scheme   Scheme                   // how sweeps update the chains
	p        *plan[T]                 // the model under the scheme; nil before SetModel
	strategy Strategy
	closed   bool
	states   map[*DeviceState[T]]struct{} // live, freed by Close
	hosts    map[*HostState[T]]struct{}   // live, freed by Close
	traces   map[*DeviceTrace[T]]struct{} // live, freed by Close
	stream   cuda.Stream                  // every launch and copy of the sampler
	staging  cuda.HostMemory              // page-locked copy of host slices, grown on demand

	// Scratch device buffers for the host-slice calls (0, 1), for
	// Chebyshev coefficients (2) and for the state between the matrix
	// form's passes (3: passScratch), grown on demand.
	scratch     [4]cuda.DevicePtr
	scratchSize [4]uint64

	// The plan whose table is on the device, by name, for the tables
	// uploaded on demand (demand).
	demanded map[string]*plan[T]

	// The Ext entry points (by name) whose Chebyshev launches keep the
	// iterates in dynamic shared memory, which the device lets them have
	// (kernels.ChebyshevShared). Test hooks: chebInRows launches them
	// without it, and chebShared is what the last Chebyshev launch had.
	chebChip   map[string]bool
	chebInRows bool
	chebShared int

	// stagedForced (a test hook) overrides stagedNormals' choice for the
	// models set after it; nil keeps the choice.
	stagedForced *bool

	// pulledForced (a test hook) has the per-model kernels of the models
	// set after it pull their plain sweeps' sums (pullSums); nil pushes.
	pulledForced *bool
	// pulledByLaunch (a test hook) has plain launches of the per-model
	// kernel pull their sums where they are short (pulledEntry).
	pulledByLaunch bool
	// matrixPasses (a test hook) has the matrix form's plain sweeps run a
	// launch a pass (passKernel).
	matrixPasses bool
	// shiftFused (a test hook) has plain sweeps and exact draws with a
	// linear term run the per-model kernels' Shifted entry points, which
	// subtract and add the shifts themselves, where those kernels run
	// (fusedShift, launchExact).
	shiftFused bool

	// exactForced (a test hook) names the exact-draw kernel DrawExact
	// runs in place of ChooseExact's; "" keeps the choice.
	exactForced string

	// The linear term per chain (SetLinear), or nil, and the buffers of
	// the one before, which the next SetLinear reuses.
	lin, linSpare *deviceLinear

	// The precision per chain (SetPrecision), or nil.
	prec *devicePrecision[T]

	// The per-model kernel (specialize.go): the current model's, the
	// compiled ones by model hash, and the compilations in flight.
	spec       *specialization[T]
	specCached bool
	specs      map[[32]byte]*specialization[T]
	generation int
	useClock   uint64
	compiling  sync.WaitGroup
}

// newSampler opens device ordinal, loads m's fatbin and resolves the
// kernels it lists (gibbsimpl.NewSampler). Without a driver or device it
// returns an error that wraps ErrNoDriver or ErrNoDevice.
func newSampler[T Float](m impl.Module, device int) (*Sampler[T], error) {
	ks, err := m.Resolve(dtypeOf[T]())
	if err != nil {
		return nil, err
	}
	ctx, err := cuda.OpenDevice(device)
	if err != nil {
		return nil, err
	}
	s := &Sampler[T]{
		m: m, ctx: ctx, kernels: ks, fn: map[string]cuda.Function{}, chebChip: map[string]bool{}, sms: ctx.MultiprocessorCount(),
		resident: map[cuda.Function]int{},
		states:   map[*DeviceState[T]]struct{}{}, hosts: map[*HostState[T]]struct{}{}, traces: map[*DeviceTrace[T]]struct{}{},
		specs: map[[32]byte]*specialization[T]{}, scheme: Plain,
	}
	if err := s.load(); err != nil {
		ctx.Close()
		return nil, err
	}
	return s, nil
}

func (s *Sampler[T]) load() error {
	stream, err := s.ctx.NewStream()
	if err != nil {
		return err
	}
	s.stream = stream
	mod, err := s.ctx.LoadModule(s.m.Fatbin)
	if err != nil {
		return err
	}
	s.mod = mod
	var held []*kernels.Kernel
kernelLoop:
	for _, k := range s.kernels {
		if k.PTX { // compiled per model, from SetModel on
			if k.Role == kernels.Sweep {
				s.have = append(s.have, k.Strategy)
			}
			held = append(held, k)
			continue
		}
		g := k.Launch(s.m.Dim, dtypeOf[T]())
		for _, e := range k.EntryPoints() {
			name, _ := k.EntryPoint(e)
			f, err := mod.Function(name)
			if err != nil {
				return err
			}
			if g.Shared > 0 && k.Role == kernels.Exact {
				// An exact-draw kernel whose shared memory the device
				// cannot give a block is left out: the others draw the
				// same bits.
				ok, err := s.ctx.AllowDynamicShared(f, g.Shared)
				if err != nil {
					return fmt.Errorf("gibbsrt: kernel %s: %w", name, err)
				}
				if !ok {
					continue kernelLoop
				}
			} else if g.Shared > 0 { // with the static tables, past the default 48 KB
				if err := s.ctx.SetMaxDynamicShared(f, g.Shared); err != nil {
					return fmt.Errorf("gibbsrt: kernel %s: %w", name, err)
				}
			}
			if e == kernels.EntryExt && g.ChebyshevShared > 0 {
				if s.chebChip[name], err = s.ctx.AllowDynamicShared(f, g.ChebyshevShared); err != nil {
					return fmt.Errorf("gibbsrt: kernel %s: %w", name, err)
				}
			}
			s.fn[name] = f
		}
		if k.Role == kernels.Sweep {
			s.have = append(s.have, k.Strategy)
		}
		held = append(held, k)
	}
	s.kernels = held
	return nil
}

// module returns the description the sampler was loaded from (a test
// hook). Its byte slices are the sampler's own: read them, do not modify
// them.
func (s *Sampler[T]) module() impl.Module { return s.m }

// Dim returns the module's dimension.
func (s *Sampler[T]) Dim() int { return s.m.Dim }

// Strategies returns the strategies the module holds, in table order.
func (s *Sampler[T]) Strategies() []Strategy { return append([]Strategy(nil), s.have...) }

// Runtime returns s. Generated packages up to gibbsgen 0.11.0 wrapped
// *Sampler[T] in a Sampler of their own, whose Runtime returned it; now
// their Sampler is an alias of this type, and Runtime stays so that code
// written against them builds unchanged.
//
// Deprecated: s is the runtime's sampler; use it directly.
func (s *Sampler[T]) Runtime() *Sampler[T] { return s }

// Device describes the GPU a sampler runs on.
type Device struct {
	Name            string // e.g. "NVIDIA H200"
	Major, Minor    int    // compute capability
	Multiprocessors int
	Ordinal         int
}

// Device returns the sampler's GPU.
func (s *Sampler[T]) Device() Device {
	major, minor := s.ctx.ComputeCapability()
	return Device{Name: s.ctx.DeviceName(), Major: major, Minor: minor, Multiprocessors: s.ctx.MultiprocessorCount(), Ordinal: s.ctx.Ordinal()}
}

// MissingKernelError reports a call that needs a kernel the package was
// generated without: a strategy left out by --strategy, or one the dim and
// dtype do not support (SweepNoise's kernel is a chain per thread: dims up
// to 64 in float32, 32 in float64).
type MissingKernelError struct{ Kernel string }

func (e *MissingKernelError) Error() string {
	return "gibbsrt: this package was generated without kernel " + e.Kernel
}

// entry returns the module's kernel for role (and strategy, for Sweep).
func (s *Sampler[T]) entry(role kernels.Role, st Strategy) (*kernels.Kernel, error) {
	for _, k := range s.kernels {
		if k.Role == role && (role != kernels.Sweep || k.Strategy == st) {
			return k, nil
		}
	}
	for _, k := range kernels.All() {
		if k.Role == role && (role != kernels.Sweep || k.Strategy == st) {
			return nil, &MissingKernelError{Kernel: k.Name}
		}
	}
	return nil, fmt.Errorf("gibbsrt: no kernel for role %d, strategy %v", role, st)
}

// SetModel validates Q and mu (see NewCoefficients), chooses ω if the
// scheme asks for it, and uploads the tables the module's kernels read.
func (s *Sampler[T]) SetModel(Q [][]float64, mu []float64) error {
	s.mu.Lock()
	sc, closed := s.scheme, s.closed
	s.mu.Unlock()
	if closed { // before the model's own errors
		return ErrClosed
	}
	p, err := newPlan[T](s.m.Dim, Q, mu, sc)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.relinear(p); err != nil {
		return err
	}
	return s.install(p)
}

// SetScheme sets how later sweeps update the chains (Plain until set).
// With a model set, it chooses ω if sc asks for it, uploads the new tables
// and, in a package with the per-model kernel, specializes it anew.
func (s *Sampler[T]) SetScheme(sc Scheme) error {
	s.mu.Lock()
	p, closed := s.p, s.closed
	s.mu.Unlock()
	if closed {
		return ErrClosed
	}
	if err := sc.check(); err != nil {
		return err
	}
	if p != nil {
		var err error
		if p, err = p.rescheme(sc); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.scheme = sc
	if p == nil {
		return nil
	}
	return s.install(p)
}

// Scheme returns the scheme set.
func (s *Sampler[T]) Scheme() Scheme {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scheme
}

// Mixing returns what the scheme predicts on the model (see Mixing): the ω
// in use, the rate at which the mean error falls and the autocorrelation
// times. It is computed on the first call after SetModel or SetScheme.
func (s *Sampler[T]) Mixing() (Mixing, error) {
	s.mu.Lock()
	p, closed := s.p, s.closed
	s.mu.Unlock()
	if closed {
		return Mixing{}, ErrClosed
	}
	if p == nil {
		return Mixing{}, errors.New("gibbsrt: Mixing called before SetModel")
	}
	return p.mixing()
}

// install uploads p's tables and makes it current. The caller holds s.mu.
func (s *Sampler[T]) install(p *plan[T]) error {
	if s.closed {
		return ErrClosed
	}
	err := s.ctx.Do(func(l cuda.Locked) error {
		for _, sym := range kernels.SymbolsOf(s.kernels) {
			if sym.OnDemand {
				continue // by the first launch that reads it (demand)
			}
			data, err := p.table(sym)
			if err != nil {
				return err
			}
			if err := s.upload(l, sym.Name, data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.p = p
	s.specialize(p)
	return nil
}

// upload copies data to the module table called name.
func (s *Sampler[T]) upload(l cuda.Locked, name string, data []T) error {
	ptr, size, err := s.mod.Global(name)
	if err != nil {
		return err
	}
	if want := elemSize[T]() * uint64(len(data)); size != want {
		return fmt.Errorf("gibbsrt: module symbol %s has %d bytes, want %d: the fatbin does not match dim %d", name, size, want, s.m.Dim)
	}
	return l.CopyToDevice(ptr, unsafe.Pointer(&data[0]), size)
}

// demand uploads the current plan's on-demand tables that k reads
// (kernels.Symbol.OnDemand) unless they are on the device already. They
// are computed and uploaded on first use, not at SetModel: the matrix
// form's are an O(dim³) solve, 1.1 s at dim 1024 on 2 cores against the
// model's checks' 0.09 s, which a package's other strategies do not need.
// The caller holds s.mu.
func (s *Sampler[T]) demand(l cuda.Locked, k *kernels.Kernel) error {
	for _, sym := range kernels.SymbolsOf([]*kernels.Kernel{k}) {
		if !sym.OnDemand || s.demanded[sym.Name] == s.p {
			continue
		}
		data, err := s.p.table(sym)
		if err != nil {
			return err
		}
		if err := s.upload(l, sym.Name, data); err != nil {
			return err
		}
		if s.demanded == nil {
			s.demanded = map[string]*plan[T]{}
		}
		s.demanded[sym.Name] = s.p
	}
	return nil
}

// SetStrategy overrides the kernel choice; Auto restores the default. A
// strategy the package was generated without is an error.
func (s *Sampler[T]) SetStrategy(st Strategy) error {
	if err := s.open(); err != nil {
		return err
	}
	if st != Auto {
		if kernels.ForStrategy(st) == nil {
			return fmt.Errorf("gibbsrt: unknown strategy %d", int(st))
		}
		if _, err := s.entry(kernels.Sweep, st); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	s.strategy = st
	return nil
}

// open returns ErrClosed once s is closed: the first check of a call that
// validates its arguments before it takes s.mu for the work, so that a
// closed sampler answers ErrClosed whatever the arguments.
func (s *Sampler[T]) open() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Choose returns the strategy a launch of sweeps sweeps over chains chains
// would use: the override if one is set; otherwise the first of the
// package's strategies, in the table's Auto order, whose rule holds (see
// docs/GUIDE.md, "Strategies"). By the measurements in
// docs/log/BENCHMARKS-runs.md (H200, run 4) the rule picks the fastest at every measured shape:
//   - constant memory for a single plain sweep per launch while the
//     weights fit the constant cache's 2 KB fast level (dim ≤ 21, rows
//     padded to 4): it skips staging the weights;
//   - one warp per chain while the batch is below 64 chains per
//     multiprocessor;
//   - the per-model kernel, once compiled, where shared memory would run;
//   - shared memory otherwise.
func (s *Sampler[T]) Choose(chains, sweeps int) Strategy {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := kernels.EntryPlain
	if s.p != nil && s.p.ext() {
		e = kernels.EntryExt
	}
	return s.chooseFor(chains, sweeps, e)
}

// chooseFor is Choose for a launch of entry point e: Auto runs the
// per-model kernel once that entry point of it is compiled (and starts
// compiling one not yet built).
func (s *Sampler[T]) chooseFor(chains, sweeps int, e kernels.Entry) Strategy {
	if s.p != nil && s.p.form() == FormMatrix {
		return Matrix // the only strategy of the matrix form (checkForm)
	}
	if s.strategy != Auto {
		return s.strategy
	}
	// Auto never changes the arithmetic: kernels.Choose skips Matrix.
	have := s.have
	if !s.specReady(e) { // compiling, failed, or no model yet
		have = slices.DeleteFunc(slices.Clone(have), func(st Strategy) bool { return st == Specialized })
	}
	return kernels.Choose(kernels.Shape{Dim: s.m.Dim, Chains: chains, Sweeps: sweeps, Multiprocessors: s.sms, Ext: e == kernels.EntryExt}, have)
}

// check is the common prologue of every launch: open, model set, a
// strategy set with SetStrategy that runs the scheme's form, and the
// device states xs the launch uses live and the sampler's (own).
func (s *Sampler[T]) check(xs ...*DeviceState[T]) error {
	if err := s.checkRun(); err != nil {
		return err
	}
	for _, x := range xs {
		if err := s.own(x); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sampler[T]) checkRun() error {
	if s.closed {
		return ErrClosed
	}
	if s.p == nil {
		return errors.New("gibbsrt: sweep called before SetModel")
	}
	switch matrix := s.p.form() == FormMatrix; {
	case matrix && s.strategy != Auto && s.strategy != Matrix:
		return fmt.Errorf("gibbsrt: strategy %v runs the sequential form; the scheme is %v (set Auto or Matrix)", s.strategy, s.p.scheme)
	case !matrix && s.strategy == Matrix:
		return fmt.Errorf("gibbsrt: strategy matrix runs the matrix form; the scheme is %v (set Scheme.Form = FormMatrix)", s.p.scheme)
	}
	return nil
}

// Sweep runs sweeps sweeps on the host state x ([chains][dim], row-major)
// and returns when x holds the result. chains = 0 or sweeps = 0 is a no-op.
// The kernels read and write page-locked host memory directly: a slice of
// a HostState's X is used in place, any other slice is copied through a
// page-locked staging buffer.
func (s *Sampler[T]) Sweep(x []T, sweeps int, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sweepHost(x, sweeps, st, traceArgs{}, chebArgs{})
}

// sweepHostTraced sweeps the host chains x, recording n records as tr
// says into a device trace made for the call, which it returns for the
// caller to read and free.
func (s *Sampler[T]) sweepHostTraced(x []T, sweeps int, st Stream, tr Trace, chains, n int) (*DeviceTrace[T], error) {
	t, err := s.NewDeviceTrace(tr, chains, n)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	err = s.sweepHost(x, sweeps, st, t.args(), chebArgs{})
	t.records = n
	s.mu.Unlock()
	if err != nil {
		t.Free()
		return nil, err
	}
	return t, nil
}

// SweepTrace is Sweep that also records states as tr says into out (see
// Trace for the layout), and returns the number of records. out must hold
// them all. The records go through a device buffer made for the call; for
// repeated calls, SweepDeviceTrace with a DeviceTrace avoids that.
func (s *Sampler[T]) SweepTrace(x []T, sweeps int, st Stream, tr Trace, out []T) (int, error) {
	if err := s.open(); err != nil {
		return 0, err
	}
	chains, err := checkSweepArgs(s.m.Dim, len(x), sweeps, st)
	if err != nil {
		return 0, err
	}
	sh, err := tr.shape(s.m.Dim, chains)
	if err != nil {
		return 0, err
	}
	n := Records(tr.Thin, st.Sweep, sweeps)
	if err := sh.checkOut(len(out), n); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, s.Sweep(x, sweeps, st)
	}
	t, err := s.sweepHostTraced(x, sweeps, st, tr, chains, n)
	if err != nil {
		return 0, err
	}
	defer t.Free()
	return n, t.Download(out[:sh.size(n)])
}

// sweepHost is Sweep with trace and Chebyshev arguments, with s.mu held.
func (s *Sampler[T]) sweepHost(x []T, sweeps int, st Stream, t traceArgs, ch chebArgs) error {
	if err := s.check(); err != nil {
		return err
	}
	chains, err := checkSweepArgs(s.m.Dim, len(x), sweeps, st)
	if err != nil || chains == 0 || sweeps == 0 {
		return err
	}
	return s.onHost(x, func(l cuda.Locked, p cuda.DevicePtr) error {
		return s.launchSweeps(l, p, chains, sweeps, st, t, ch)
	})
}

// onHost runs launch on the host state x, in place where x is a
// HostState's, else through the page-locked staging buffer, and returns
// when x holds the result. The caller holds s.mu.
func (s *Sampler[T]) onHost(x []T, launch func(l cuda.Locked, p cuda.DevicePtr) error) error {
	bytes := uint64(len(x)) * elemSize[T]()
	return s.ctx.Do(func(l cuda.Locked) error {
		if p, ok := s.mapped(x); ok {
			if err := launch(l, p); err != nil {
				return err
			}
			return l.StreamSynchronize(s.stream)
		}
		buf, err := s.stagingBuffer(l, bytes)
		if err != nil {
			return err
		}
		copy(unsafe.Slice((*T)(buf.Host), len(x)), x)
		// A chain flagged by kernels that ran (ranError) leaves the other
		// chains' results in the buffer: they are copied back with the
		// error, as the twin leaves them.
		flagged := launch(l, buf.Device)
		if flagged != nil && !ranError(flagged) {
			return flagged
		}
		if err := l.StreamSynchronize(s.stream); err != nil {
			return err
		}
		copy(x, unsafe.Slice((*T)(buf.Host), len(x)))
		return flagged
	})
}

// stagingBuffer returns the page-locked staging buffer with at least bytes
// bytes.
func (s *Sampler[T]) stagingBuffer(l cuda.Locked, bytes uint64) (cuda.HostMemory, error) {
	if s.staging.Bytes >= bytes {
		return s.staging, nil
	}
	if s.staging.Bytes > 0 {
		if err := l.FreeHost(s.staging); err != nil {
			return cuda.HostMemory{}, err
		}
		s.staging = cuda.HostMemory{}
	}
	m, err := l.AllocHost(bytes)
	if err != nil {
		return cuda.HostMemory{}, err
	}
	s.staging = m
	return m, nil
}

// DrawExact replaces each chain of the host state x ([chains][dim]) by an
// exact draw from N(mu, Q⁻¹), bit for bit Reference.DrawExact's: x = mu +
// N·z in the matrix form (z the normals of a forward sweep at stream sweep
// st.Sweep). It needs the Matrix strategy in the package
// (*MissingKernelError otherwise). Chains started from exact draws need
// no burn-in; sweep them from st.Sweep+1 on.
func (s *Sampler[T]) DrawExact(x []T, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	draw, chains, err := s.exactCall(len(x), st)
	if err != nil || chains == 0 {
		return err
	}
	return s.onHost(x, draw)
}

// launchExact queues an exact draw of the chains at x, plus the linear
// term's shifts if one is set (nothing is subtracted first: the draw
// reads no state): in the draw's launch where the hook asks for it
// (setFusedShift) and k is a per-model kernel with a Shifted entry point,
// else as a pass of its own. It runs inside ctx.Do, with s.mu held.
func (s *Sampler[T]) launchExact(l cuda.Locked, k *kernels.Kernel, e kernels.Entry, x cuda.DevicePtr, chains int, st Stream) error {
	lin, err := s.linearFor(chains)
	if err != nil {
		return err
	}
	if lin != nil && s.shiftFused && e == kernels.EntryPlain && k.PTX && ptxHas(s.m.PTX, k.Shifted) {
		return s.launch(l, k, kernels.EntryShifted, chains, append(exactArgs(x, chains, st), arg{"d", uint64(lin.d)}))
	}
	if err := s.launch(l, k, e, chains, exactArgs(x, chains, st)); err != nil || lin == nil {
		return err
	}
	return s.shiftStates(l, lin, chains, false, x)
}

// DrawExactDevice is DrawExact on device state: queued, no copies.
func (s *Sampler[T]) DrawExactDevice(x *DeviceState[T], st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := s.own(x); err != nil {
		return err
	}
	draw, chains, err := s.exactCall(x.chains*s.m.Dim, st)
	if err != nil || chains == 0 {
		return err
	}
	return s.ctx.Do(func(l cuda.Locked) error { return draw(l, x.ptr) })
}

// exactCall checks an exact draw of n state elements and returns the
// draw of the chains at a device pointer, inside ctx.Do, and the chains.
// With a precision per chain the draw is gibbs_family_exact's
// (launchFamilyExact); else an exact-draw kernel where the module has one
// (gibbsgen 0.10.0 on; exactKernel), or the Matrix strategy's Ext entry
// point, kind 3, which computes the same bits. The caller holds s.mu.
func (s *Sampler[T]) exactCall(n int, st Stream) (func(l cuda.Locked, x cuda.DevicePtr) error, int, error) {
	if s.closed {
		return nil, 0, ErrClosed
	}
	if s.p == nil {
		return nil, 0, errors.New("gibbsrt: DrawExact called before SetModel")
	}
	if s.prec != nil {
		if s.m.Dim > kernels.FamilyExactMaxDim(dtypeOf[T]()) {
			return nil, 0, errFamilyExactDim(s.m.Dim, dtypeOf[T]())
		}
		k, err := s.entry(kernels.FamilyExact, Auto)
		if err != nil {
			return nil, 0, err
		}
		chains, err := checkSweepArgs(s.m.Dim, n, 1, st)
		return func(l cuda.Locked, x cuda.DevicePtr) error { return s.launchFamilyExact(l, k, x, chains, st) }, chains, err
	}
	k, e, chains, err := s.exactEntry(n, st)
	return func(l cuda.Locked, x cuda.DevicePtr) error { return s.launchExact(l, k, e, x, chains, st) }, chains, err
}

// exactEntry is exactCall's kernel and entry point without a precision
// per chain, and the chains.
func (s *Sampler[T]) exactEntry(n int, st Stream) (*kernels.Kernel, kernels.Entry, int, error) {
	k, err := s.entry(kernels.Sweep, Matrix)
	if err != nil {
		return nil, 0, 0, err
	}
	chains, err := checkSweepArgs(s.m.Dim, n, 1, st)
	if x := s.exactKernel(chains); x != nil {
		return x, kernels.EntryPlain, chains, err
	}
	return k, kernels.EntryExt, chains, err
}

// exactKernel returns the exact-draw kernel for a draw of chains chains:
// the one exactForced names, else ChooseExact's among the module's; nil
// where the module has none (before gibbsgen 0.10.0). Where ChooseExact
// would pick the per-model kernel, its compile starts, and until it is
// ready the choice is among the others. The caller holds s.mu.
func (s *Sampler[T]) exactKernel(chains int) *kernels.Kernel {
	for _, k := range s.kernels {
		if k.Role == kernels.Exact && k.Name == s.exactForced {
			return k
		}
	}
	sh := kernels.Shape{Dim: s.m.Dim, Chains: chains, Sweeps: 1, Multiprocessors: s.sms, DType: dtypeOf[T]()}
	k := kernels.ChooseExact(sh, s.kernels)
	if k == nil || !k.PTX || s.exactSpecReady(k) {
		return k
	}
	return kernels.ChooseExact(sh, slices.DeleteFunc(slices.Clone(s.kernels), func(x *kernels.Kernel) bool { return x == k }))
}

// setExactKernel (a test hook) has later exact draws run the module's
// exact-draw kernel called name, whatever ChooseExact would pick, so that
// the GPU suites and the bench run each; "" restores the choice. It
// returns the kernels the module has, in table order, and an error if
// name is none of them.
func (s *Sampler[T]) setExactKernel(name string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var have []string
	for _, k := range s.kernels {
		if k.Role == kernels.Exact {
			have = append(have, k.Name)
		}
	}
	if name != "" && !slices.Contains(have, name) {
		return have, fmt.Errorf("gibbsrt: the module has no exact-draw kernel %q (it has %q)", name, have)
	}
	s.exactForced = name
	return have, nil
}

// SweepDevice runs sweeps sweeps on the device-resident state x. It returns
// once the launches are queued; Synchronize waits for them, and
// DeviceState.Download waits too.
func (s *Sampler[T]) SweepDevice(x *DeviceState[T], sweeps int, st Stream) error {
	return s.sweepDevice(x, sweeps, st, nil)
}

// sweepDevice is SweepDevice, and with t SweepDeviceTrace.
func (s *Sampler[T]) sweepDevice(x *DeviceState[T], sweeps int, st Stream, t *DeviceTrace[T]) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(x); err != nil {
		return err
	}
	if _, err := checkSweepArgs(s.m.Dim, x.chains*s.m.Dim, sweeps, st); err != nil {
		return err
	}
	var ta traceArgs
	if t != nil {
		if err := t.prepare(s, x.chains, sweeps, st); err != nil {
			return err
		}
		ta = t.args()
	}
	if x.chains == 0 || sweeps == 0 {
		return nil
	}
	return s.ctx.Do(func(l cuda.Locked) error { return s.launchSweeps(l, x.ptr, x.chains, sweeps, st, ta, chebArgs{}) })
}

// Synchronize waits for the sampler's queued work. Errors of a kernel
// (an illegal address, say) surface here.
func (s *Sampler[T]) Synchronize() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return s.ctx.Do(func(l cuda.Locked) error { return l.StreamSynchronize(s.stream) })
}

// maxSweepsPerLaunch keeps the kernels' 32-bit sweep counts in range, with
// room for the sweep index past the last one (the kernels' "no record"
// mark is 2³²-1) and for a symmetric sweep's two passes.
const maxSweepsPerLaunch = 1 << 30

// launchSweeps queues sweeps sweeps over the chains at x: through the plain
// entry point of Auto's (or the set) strategy for plain sweeps, through its
// Ext entry point for other schemes, traces (t) and Chebyshev iterations
// (ch).
func (s *Sampler[T]) launchSweeps(l cuda.Locked, x cuda.DevicePtr, chains, sweeps int, st Stream, t traceArgs, ch chebArgs) error {
	if s.prec != nil {
		return s.launchFamily(l, x, chains, sweeps, st, t, ch)
	}
	records := 0
	if t.out != 0 {
		records = Records(int(t.thin), st.Sweep, sweeps)
	}
	if lin, k, err := s.fusedShift(chains, sweeps, t, ch); err != nil || k != nil {
		if err != nil {
			return err
		}
		return s.launchEntry(l, k, kernels.EntryShifted, x, chains, sweeps, st, t, ch, lin.d)
	}
	return s.shifted(l, x, ch.prev, chains, records, t, func() error {
		return s.launchModel(l, x, chains, sweeps, st, t, ch)
	})
}

// launchModel is launchSweeps on the model's own target, without the
// linear term's shifts.
func (s *Sampler[T]) launchModel(l cuda.Locked, x cuda.DevicePtr, chains, sweeps int, st Stream, t traceArgs, ch chebArgs) error {
	e := kernels.EntryPlain
	switch {
	case ch.table != 0 || s.p.ext():
		e = kernels.EntryExt
	case t.out != 0:
		e = kernels.EntryTraced
	}
	k, err := s.entry(kernels.Sweep, s.chooseFor(chains, sweeps, e))
	if err != nil {
		return err
	}
	if pk := s.passKernel(k, t, ch); pk != nil {
		return s.launchPasses(l, pk, x, chains, sweeps, st)
	}
	return s.launchEntry(l, k, e, x, chains, sweeps, st, t, ch, 0)
}

// launchEntry queues sweeps sweeps over the chains at x through entry
// point e of k, in launches of at most maxSweepsPerLaunch; d is the
// Shifted entry point's shifts.
func (s *Sampler[T]) launchEntry(l cuda.Locked, k *kernels.Kernel, e kernels.Entry, x cuda.DevicePtr, chains, sweeps int, st Stream, t traceArgs, ch chebArgs, d cuda.DevicePtr) error {
	kind := s.p.scheme.Kind
	if ch.table != 0 {
		kind = Symmetric
	}
	for done := 0; done < sweeps; {
		n := min(sweeps-done, maxSweepsPerLaunch)
		part := st
		part.Sweep += uint64(done)
		cp := ch
		if cp.table != 0 { // this launch's iterations' coefficients
			cp.table += cuda.DevicePtr(uint64(done) * kernels.ChebyshevStride * elemSize[T]())
		}
		// Every value a sweep launch has: the entry point takes those its
		// parameter list names.
		pe := s.pulledEntry(k, e, n)
		if err := s.launch(l, k, pe, chains, append(extArgs(x, chains, n, part, kind, cp, t), arg{"d", uint64(d)})); err != nil {
			return err
		}
		if t.out != 0 { // the next launch's records follow this one's
			t.out += cuda.DevicePtr(uint64(Records(int(t.thin), part.Sweep, n)) * t.chains * uint64(t.cols) * elemSize[T]())
		}
		done += n
	}
	return nil
}

// SweepNoise is Sweep with caller-supplied normals instead of the Philox
// stream, laid out [sweeps][dim][chains] (see Reference.SweepNoise). Its
// kernel runs a chain per thread: beyond dim 64 (32 in float64) packages
// lack it, and SweepNoise returns a *MissingKernelError.
func (s *Sampler[T]) SweepNoise(x, noise []T, sweeps int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	if s.prec != nil {
		return errPrecisionScheme("SweepNoise")
	}
	k, err := s.entry(kernels.SweepNoise, Auto)
	if err != nil {
		return err
	}
	if s.p.ext() || s.p.form() == FormMatrix {
		return fmt.Errorf("gibbsrt: SweepNoise runs plain Gibbs sweeps in the sequential form; the scheme is %v", s.p.scheme)
	}
	chains, err := checkNoiseArgs(s.m.Dim, len(x), len(noise), sweeps)
	if err != nil {
		return err
	}
	if chains == 0 || sweeps == 0 {
		return nil
	}
	return s.ctx.Do(func(l cuda.Locked) error {
		dx, dn, err := s.toScratchPair(l, x, noise)
		if err != nil {
			return err
		}
		err = s.shifted(l, dx, 0, chains, 0, traceArgs{}, func() error {
			return s.launch(l, k, kernels.EntryPlain, chains, noiseArgs(dx, dn, chains, sweeps))
		})
		if err != nil {
			return err
		}
		return l.CopyFromDevice(unsafe.Pointer(&x[0]), dx, uint64(len(x))*elemSize[T]())
	})
}

// normals returns the normals the samplers draw for chains chains and
// sweeps sweeps of stream st, computed on the device, in SweepNoise's
// layout [sweeps][dim][chains] (a test hook).
func (s *Sampler[T]) normals(chains, sweeps int, st Stream) ([]T, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	k, err := s.entry(kernels.Normals, Auto)
	if err != nil {
		return nil, err
	}
	n, err := normalsLen[T](s.m.Dim, chains, sweeps, st)
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	if len(out) == 0 {
		return out, nil
	}
	err = s.ctx.Do(func(l cuda.Locked) error {
		b := uint64(len(out)) * elemSize[T]()
		d, err := s.scratchBuffer(l, 1, b)
		if err != nil {
			return err
		}
		if err := s.launch(l, k, kernels.EntryPlain, chains, normalsArgs(d, chains, sweeps, st)); err != nil {
			return err
		}
		return l.CopyFromDevice(unsafe.Pointer(&out[0]), d, b)
	})
	return out, err
}

// philox evaluates Philox4x32-10 on the device for each (counter, key)
// (a test hook).
func (s *Sampler[T]) philox(ctr [][4]uint32, key [][2]uint32) ([][4]uint32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if len(ctr) != len(key) {
		return nil, fmt.Errorf("gibbsrt: %d counters but %d keys; they must pair up", len(ctr), len(key))
	}
	k, err := s.entry(kernels.Philox, Auto)
	if err != nil {
		return nil, err
	}
	n := len(ctr)
	if n == 0 {
		return nil, nil
	}
	in := make([]uint32, 0, 6*n)
	for i := range ctr {
		in = append(in, ctr[i][0], ctr[i][1], ctr[i][2], ctr[i][3], key[i][0], key[i][1])
	}
	out := make([]uint32, 4*n)
	err = s.ctx.Do(func(l cuda.Locked) error {
		din, err := s.scratchBuffer(l, 0, uint64(len(in))*4)
		if err != nil {
			return err
		}
		dout, err := s.scratchBuffer(l, 1, uint64(len(out))*4)
		if err != nil {
			return err
		}
		if err := l.CopyToDevice(din, unsafe.Pointer(&in[0]), uint64(len(in))*4); err != nil {
			return err
		}
		if err := s.launch(l, k, kernels.EntryPlain, n, philoxArgs(din, dout, n)); err != nil {
			return err
		}
		return l.CopyFromDevice(unsafe.Pointer(&out[0]), dout, uint64(len(out))*4)
	})
	if err != nil {
		return nil, err
	}
	res := make([][4]uint32, n)
	for i := range res {
		copy(res[i][:], out[4*i:])
	}
	return res, nil
}

// transform evaluates the stream's normal transform on the device for the
// words first, first+1, ... (mod 2³²), one per element of out: the device
// side of the check against stream.Normal (a test hook).
func (s *Sampler[T]) transform(first uint32, out []T) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if uint64(len(out)) > 1<<31 {
		return fmt.Errorf("gibbsrt: %d words in one Transform call, over 2^31", len(out))
	}
	k, err := s.entry(kernels.Transform, Auto)
	if err != nil || len(out) == 0 {
		return err
	}
	return s.ctx.Do(func(l cuda.Locked) error {
		b := uint64(len(out)) * elemSize[T]()
		d, err := s.scratchBuffer(l, 1, b)
		if err != nil {
			return err
		}
		if err := s.launch(l, k, kernels.EntryPlain, len(out), transformArgs(d, first, len(out))); err != nil {
			return err
		}
		return l.CopyFromDevice(unsafe.Pointer(&out[0]), d, b)
	})
}

// toScratch copies host, which is not empty, into scratch buffer k, grown
// to fit, and returns the buffer.
func (s *Sampler[T]) toScratch(l cuda.Locked, k int, host []T) (cuda.DevicePtr, error) {
	b := uint64(len(host)) * elemSize[T]()
	p, err := s.scratchBuffer(l, k, b)
	if err != nil {
		return 0, err
	}
	return p, l.CopyToDevice(p, unsafe.Pointer(&host[0]), b)
}

// toScratchPair copies a and b, neither empty, into scratch buffers 0
// and 1: a call's state and its second input (previous iterates, noise).
func (s *Sampler[T]) toScratchPair(l cuda.Locked, a, b []T) (cuda.DevicePtr, cuda.DevicePtr, error) {
	pa, err := s.toScratch(l, 0, a)
	if err != nil {
		return 0, 0, err
	}
	pb, err := s.toScratch(l, 1, b)
	return pa, pb, err
}

// scratchBuffer returns scratch buffer k with at least bytes bytes.
func (s *Sampler[T]) scratchBuffer(l cuda.Locked, k int, bytes uint64) (cuda.DevicePtr, error) {
	if s.scratchSize[k] >= bytes {
		return s.scratch[k], nil
	}
	if s.scratch[k] != 0 {
		if err := l.Free(s.scratch[k]); err != nil {
			return 0, err
		}
		s.scratch[k], s.scratchSize[k] = 0, 0
	}
	p, err := l.Alloc(bytes)
	if err != nil {
		return 0, err
	}
	s.scratch[k], s.scratchSize[k] = p, bytes
	return p, nil
}

// Close frees the device resources, every DeviceState, HostState and
// DeviceTrace of the sampler included. It is idempotent; any later call
// of a method that returns an error returns ErrClosed, but for the Free
// methods of its states and traces, which Close has freed: they return nil,
// as a second Close does.
func (s *Sampler[T]) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.compiling.Wait() // the driver is done with the context
	var errs []error
	errs = append(errs, s.ctx.Do(func(l cuda.Locked) error {
		var errs []error
		for k := range s.scratch {
			if s.scratch[k] != 0 {
				errs = append(errs, l.Free(s.scratch[k]))
			}
		}
		errs = append(errs, l.StreamSynchronize(s.stream))
		for d := range s.states {
			errs = append(errs, l.Free(d.ptr))
			d.ptr = 0
		}
		clear(s.states)
		for h := range s.hosts {
			errs = append(errs, l.FreeHost(h.mem))
			h.X, h.mem = nil, cuda.HostMemory{}
		}
		clear(s.hosts)
		for t := range s.traces {
			errs = append(errs, l.Free(t.buf), l.Free(t.idx))
			t.freed = true
		}
		for _, lin := range []*deviceLinear{s.lin, s.linSpare} {
			if lin != nil {
				errs = append(errs, lin.free(l))
			}
		}
		s.lin, s.linSpare = nil, nil
		if s.prec != nil {
			errs = append(errs, s.prec.free(l))
			s.prec = nil
		}
		clear(s.traces)
		if s.staging.Bytes > 0 {
			errs = append(errs, l.FreeHost(s.staging))
		}
		errs = append(errs, l.DestroyStream(s.stream))
		if s.mod != nil {
			errs = append(errs, l.Unload(s.mod))
		}
		for _, sp := range s.specs {
			for _, m := range sp.modules() {
				errs = append(errs, l.Unload(m))
			}
		}
		clear(s.specs)
		return errors.Join(errs...)
	}))
	errs = append(errs, s.ctx.Close())
	return errors.Join(errs...)
}
