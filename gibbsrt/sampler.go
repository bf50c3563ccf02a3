package gibbsrt

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"unsafe"
)

// Entry points and symbols of every generated module. The names do not
// depend on the dimension; gibbsgen.json lists them with their parameters.
const (
	KernelConst   = "gibbs_sweep_const"   // thread per chain, weights in constant memory
	KernelShared  = "gibbs_sweep_shared"  // thread per chain, weights staged in shared memory
	KernelWarp    = "gibbs_sweep_warp"    // warp per chain
	KernelNoise   = "gibbs_sweep_noise"   // thread per chain, caller-supplied normals
	KernelPhilox  = "gibbs_philox"        // Philox4x32-10 known-answer entry point
	KernelNormals = "gibbs_normals"       // writes the normals the samplers draw
	SymbolWeight  = "gibbs_weight"        // __constant__ float[dim*stride]
	SymbolWeightG = "gibbs_weight_global" // __device__ float[dim*stride], same contents
	SymbolOffset  = "gibbs_offset"        // __constant__ float[dim]
	SymbolScale   = "gibbs_scale"         // __constant__ float[dim]
)

// Strategy selects how a sweep is run on the GPU. Every strategy draws the
// same random stream in the same arithmetic order, so the choice changes
// speed, never results.
type Strategy int

const (
	// Auto picks by batch size and dimension (see Sampler.Choose).
	Auto Strategy = iota
	// ConstMemory runs one chain per thread and reads the weights from
	// constant memory. It needs them to fit the constant cache's fast level
	// (about 2 KB: dim ≤ 21); beyond that it collapses. Auto picks it only
	// for single-sweep launches (see Sampler.Choose).
	ConstMemory
	// SharedMemory runs one chain per thread with the weights staged into
	// shared memory at block start.
	SharedMemory
	// WarpPerChain runs one chain per warp, for batches too small to fill
	// the GPU with one thread per chain.
	WarpPerChain
)

func (s Strategy) String() string {
	switch s {
	case Auto:
		return "auto"
	case ConstMemory:
		return "const"
	case SharedMemory:
		return "shared"
	case WarpPerChain:
		return "warp"
	}
	return fmt.Sprintf("Strategy(%d)", int(s))
}

func (s Strategy) kernel() string {
	switch s {
	case ConstMemory:
		return KernelConst
	case SharedMemory:
		return KernelShared
	case WarpPerChain:
		return KernelWarp
	}
	return ""
}

// ModuleSpec describes a generated module: its dimension, its device code and
// the launch geometry compiled into it.
type ModuleSpec struct {
	Dim           int
	Fatbin        []byte
	ThreadBlock   int // threads per block of the thread-per-chain kernels
	WarpsPerBlock int // chains per block of the warp-per-chain kernel
}

// warpChainsPerSM is the batch size per multiprocessor below which one warp
// per chain beats one thread per chain: with fewer chains than that, one
// thread per chain cannot occupy the multiprocessor's schedulers.
const warpChainsPerSM = 64

// Sampler runs a generated module's kernels on one device. Its methods are
// safe for concurrent use; calls are serialized.
type Sampler struct {
	mu       sync.Mutex
	m        ModuleSpec
	ctx      *Context
	mod      *CUModule
	fn       map[string]Function
	co       *Coefficients
	strategy Strategy
	closed   bool

	// Scratch device buffers for the host-slice calls, grown on demand.
	scratch     [2]DevicePtr
	scratchSize [2]uint64
}

// NewSampler opens device ordinal, loads m's fatbin and resolves its entry
// points. Without a driver or device it returns an error that says so.
func NewSampler(m ModuleSpec, device int) (*Sampler, error) {
	if m.Dim < 1 || len(m.Fatbin) == 0 || m.ThreadBlock < 1 || m.WarpsPerBlock < 1 {
		return nil, errors.New("gibbsrt: invalid module description")
	}
	ctx, err := OpenDevice(device)
	if err != nil {
		return nil, err
	}
	s := &Sampler{m: m, ctx: ctx, fn: map[string]Function{}}
	if err := s.load(); err != nil {
		ctx.Close()
		return nil, err
	}
	return s, nil
}

func (s *Sampler) load() error {
	mod, err := s.ctx.LoadModule(s.m.Fatbin)
	if err != nil {
		return err
	}
	s.mod = mod
	for _, k := range []string{KernelConst, KernelShared, KernelWarp, KernelNoise, KernelPhilox, KernelNormals} {
		f, err := mod.Function(k)
		if err != nil {
			return err
		}
		s.fn[k] = f
	}
	return nil
}

// Dim returns the module's dimension.
func (s *Sampler) Dim() int { return s.m.Dim }

// Context returns the device context, for allocating and copying device
// buffers that SweepDevice can use.
func (s *Sampler) Context() *Context { return s.ctx }

// SetModel validates Q and mu (see NewCoefficients) and uploads the tables.
func (s *Sampler) SetModel(Q [][]float64, mu []float64) error {
	co, err := NewCoefficients(s.m.Dim, Q, mu)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	err = s.ctx.Do(func() error {
		for _, t := range []struct {
			name string
			data []float32
		}{
			{SymbolWeight, co.Weight}, {SymbolWeightG, co.Weight},
			{SymbolOffset, co.Offset}, {SymbolScale, co.Scale},
		} {
			p, size, err := s.mod.Global(t.name)
			if err != nil {
				return err
			}
			if want := uint64(4 * len(t.data)); size != want {
				return fmt.Errorf("gibbsrt: module symbol %s has %d bytes, want %d: the fatbin does not match dim %d", t.name, size, want, s.m.Dim)
			}
			if err := s.ctx.copyToDevice(p, unsafe.Pointer(&t.data[0]), size); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.co = co
	return nil
}

// SetStrategy overrides the kernel choice; Auto restores the default.
func (s *Sampler) SetStrategy(st Strategy) error {
	if st < Auto || st > WarpPerChain {
		return fmt.Errorf("gibbsrt: unknown strategy %d", int(st))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strategy = st
	return nil
}

// Choose returns the strategy a launch of sweeps sweeps over chains chains
// would use: the override if one is set; otherwise, by the measurements in
// docs/BENCHMARKS.md (H200, run 4), which this rule picks the fastest of at
// every measured shape (dims 8, 32, 64; 4096 and 1M chains; 1 and 100
// sweeps per launch):
//   - constant memory for a single sweep per launch while the weights fit
//     the constant cache's 2 KB fast level (dim ≤ 21, rows padded to 4): it
//     skips staging the weights;
//   - one warp per chain while the batch is below 64 chains per
//     multiprocessor;
//   - shared memory otherwise.
func (s *Sampler) Choose(chains, sweeps int) Strategy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.choose(chains, sweeps)
}

// constCacheBytes is the constant cache's fast level.
const constCacheBytes = 2048

func (s *Sampler) choose(chains, sweeps int) Strategy {
	if s.strategy != Auto {
		return s.strategy
	}
	d := s.m.Dim
	if sweeps == 1 && 4*d*Stride(d) <= constCacheBytes {
		return ConstMemory
	}
	if chains < warpChainsPerSM*s.ctx.MultiprocessorCount() {
		return WarpPerChain
	}
	return SharedMemory
}

// check is the common prologue of every launch: open, model set.
func (s *Sampler) check() error {
	if s.closed {
		return ErrClosed
	}
	if s.co == nil {
		return errors.New("gibbsrt: sweep called before SetModel")
	}
	return nil
}

// Sweep copies the host state x ([chains][dim], row-major) to the device,
// runs sweeps sweeps and copies it back. chains = 0 or sweeps = 0 is a
// no-op.
func (s *Sampler) Sweep(x []float32, sweeps int, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	chains, err := CheckSweepArgs(s.m.Dim, len(x), sweeps, st)
	if err != nil || chains == 0 || sweeps == 0 {
		return err
	}
	return s.ctx.Do(func() error {
		bytes := uint64(len(x)) * 4
		d, err := s.scratchBuffer(0, bytes)
		if err != nil {
			return err
		}
		if err := s.ctx.copyToDevice(d, unsafe.Pointer(&x[0]), bytes); err != nil {
			return err
		}
		if err := s.launchSweeps(d, chains, sweeps, st); err != nil {
			return err
		}
		return s.ctx.copyFromDevice(unsafe.Pointer(&x[0]), d, bytes)
	})
}

// SweepDevice runs sweeps sweeps on device-resident state x holding chains
// chains. It returns after the launches are queued on the null stream; call
// Context().Synchronize to wait for them.
func (s *Sampler) SweepDevice(x DevicePtr, chains, sweeps int, st Stream) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	if chains < 0 {
		return fmt.Errorf("gibbsrt: chains = %d; the chain count must be >= 0", chains)
	}
	if _, err := CheckSweepArgs(s.m.Dim, chains*s.m.Dim, sweeps, st); err != nil || chains == 0 || sweeps == 0 {
		return err
	}
	return s.ctx.Do(func() error { return s.launchSweeps(x, chains, sweeps, st) })
}

// maxSweepsPerLaunch keeps the kernels' 32-bit sweep count in range.
const maxSweepsPerLaunch = math.MaxUint32

func (s *Sampler) launchSweeps(x DevicePtr, chains, sweeps int, st Stream) error {
	strat := s.choose(chains, sweeps)
	grid, block, err := s.geometry(strat, chains)
	if err != nil {
		return err
	}
	for done := 0; done < sweeps; {
		n := min(sweeps-done, maxSweepsPerLaunch)
		if err := s.ctx.launch(s.fn[strat.kernel()], grid, block, 0,
			x, uint64(chains), uint32(n), st.Seed, st.Sweep+uint64(done), st.Chain); err != nil {
			return err
		}
		done += n
	}
	return nil
}

// maxGridX is the CUDA limit on gridDim.x.
const maxGridX = 1<<31 - 1

func (s *Sampler) geometry(strat Strategy, chains int) (grid, block [3]uint32, err error) {
	per := s.m.ThreadBlock
	block = [3]uint32{uint32(per), 1, 1}
	if strat == WarpPerChain {
		per = s.m.WarpsPerBlock
		block = [3]uint32{uint32(32 * per), 1, 1}
	}
	blocks := (chains + per - 1) / per
	if blocks > maxGridX {
		return grid, block, fmt.Errorf("gibbsrt: %d chains need %d blocks with strategy %v, over CUDA's grid limit %d", chains, blocks, strat, maxGridX)
	}
	return [3]uint32{uint32(blocks), 1, 1}, block, nil
}

// SweepNoise is Sweep with caller-supplied normals instead of the Philox
// stream, laid out [sweeps][dim][chains] (see Reference.SweepNoise).
func (s *Sampler) SweepNoise(x, noise []float32, sweeps int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.check(); err != nil {
		return err
	}
	chains, err := CheckSweepArgs(s.m.Dim, len(x), sweeps, Stream{})
	if err != nil {
		return err
	}
	if len(noise) != sweeps*s.m.Dim*chains {
		return fmt.Errorf("gibbsrt: noise has %d elements, want sweeps×dim×chains = %d", len(noise), sweeps*s.m.Dim*chains)
	}
	if chains == 0 || sweeps == 0 {
		return nil
	}
	return s.ctx.Do(func() error {
		xb, nb := uint64(len(x))*4, uint64(len(noise))*4
		dx, err := s.scratchBuffer(0, xb)
		if err != nil {
			return err
		}
		dn, err := s.scratchBuffer(1, nb)
		if err != nil {
			return err
		}
		if err := s.ctx.copyToDevice(dx, unsafe.Pointer(&x[0]), xb); err != nil {
			return err
		}
		if err := s.ctx.copyToDevice(dn, unsafe.Pointer(&noise[0]), nb); err != nil {
			return err
		}
		grid, block, err := s.geometry(SharedMemory, chains)
		if err != nil {
			return err
		}
		if err := s.ctx.launch(s.fn[KernelNoise], grid, block, 0, dx, dn, uint64(chains), uint32(sweeps)); err != nil {
			return err
		}
		return s.ctx.copyFromDevice(unsafe.Pointer(&x[0]), dx, xb)
	})
}

// Normals returns the normals the samplers draw for chains chains and
// sweeps sweeps of stream st, computed on the device, in SweepNoise's
// layout [sweeps][dim][chains].
func (s *Sampler) Normals(chains, sweeps int, st Stream) ([]float32, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if _, err := CheckSweepArgs(s.m.Dim, chains*s.m.Dim, sweeps, st); err != nil {
		return nil, err
	}
	out := make([]float32, chains*sweeps*s.m.Dim)
	if len(out) == 0 {
		return out, nil
	}
	err := s.ctx.Do(func() error {
		b := uint64(len(out)) * 4
		d, err := s.scratchBuffer(1, b)
		if err != nil {
			return err
		}
		grid, block, err := s.geometry(SharedMemory, chains)
		if err != nil {
			return err
		}
		if err := s.ctx.launch(s.fn[KernelNormals], grid, block, 0, d, uint64(chains), uint32(sweeps), st.Seed, st.Sweep, st.Chain); err != nil {
			return err
		}
		return s.ctx.copyFromDevice(unsafe.Pointer(&out[0]), d, b)
	})
	return out, err
}

// Philox evaluates Philox4x32-10 on the device for each (counter, key).
func (s *Sampler) Philox(ctr [][4]uint32, key [][2]uint32) ([][4]uint32, error) {
	if len(ctr) != len(key) {
		return nil, fmt.Errorf("gibbsrt: %d counters but %d keys", len(ctr), len(key))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
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
	err := s.ctx.Do(func() error {
		din, err := s.scratchBuffer(0, uint64(len(in))*4)
		if err != nil {
			return err
		}
		dout, err := s.scratchBuffer(1, uint64(len(out))*4)
		if err != nil {
			return err
		}
		if err := s.ctx.copyToDevice(din, unsafe.Pointer(&in[0]), uint64(len(in))*4); err != nil {
			return err
		}
		blocks := uint32((n + 127) / 128)
		if err := s.ctx.launch(s.fn[KernelPhilox], [3]uint32{blocks, 1, 1}, [3]uint32{128, 1, 1}, 0, din, dout, uint32(n)); err != nil {
			return err
		}
		return s.ctx.copyFromDevice(unsafe.Pointer(&out[0]), dout, uint64(len(out))*4)
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

// scratchBuffer returns scratch buffer k with at least bytes bytes. It must
// run inside ctx.Do.
func (s *Sampler) scratchBuffer(k int, bytes uint64) (DevicePtr, error) {
	if s.scratchSize[k] >= bytes {
		return s.scratch[k], nil
	}
	if s.scratch[k] != 0 {
		if err := s.ctx.free(s.scratch[k]); err != nil {
			return 0, err
		}
		s.scratch[k], s.scratchSize[k] = 0, 0
	}
	p, err := s.ctx.alloc(bytes)
	if err != nil {
		return 0, err
	}
	s.scratch[k], s.scratchSize[k] = p, bytes
	return p, nil
}

// Close frees the device resources. It is idempotent; any later call
// returns ErrClosed.
func (s *Sampler) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	errs = append(errs, s.ctx.Do(func() error {
		var errs []error
		for k := range s.scratch {
			if s.scratch[k] != 0 {
				errs = append(errs, s.ctx.free(s.scratch[k]))
			}
		}
		if s.mod != nil {
			errs = append(errs, s.mod.unload())
		}
		return errors.Join(errs...)
	}))
	errs = append(errs, s.ctx.Close())
	return errors.Join(errs...)
}
