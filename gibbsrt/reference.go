package gibbsrt

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gibbsgen/gibbsgen/gibbsrt/stream"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The update order
//
// A pass updates the positions p = 0, …, dim−1 of a frame in turn (frame
// 0: position p is coordinate p; frame 1: coordinate dim−1−p), with the
// frame's tables (Coefficients):
//
//	acc  = Offset[p]
//	acc  = fma(Weight[q][p], x_q, acc)   for q = p+1, …, dim−1, 0, …, p−1
//	x_p  = fma(Scale[p], z_p, acc)                          plain Gibbs (ω = 1)
//	x_p  = fma(Scale[p], g·z_p, fma(Keep, x_p, acc))        otherwise
//
// with every fma and product rounded once to T; g multiplies the normals
// in Chebyshev iterations and is 1 otherwise (the second form is the first
// at Keep = 0, g = 1, bit for bit). A forward sweep is a pass in frame 0, a
// backward sweep one in frame 1, a symmetric sweep one of each. The cyclic
// order of q, starting after p, is the order in which a kernel that pushes
// each new x_q into the other positions' running sums accumulates them; a
// kernel that pulls the sum for x_p uses the same order, so every
// strategy, and this CPU twin, produce bit-identical states.

// ErrClosed is returned by any use of a sampler after Close.
var ErrClosed = errors.New("gibbsrt: sampler is closed")

// checkSweepArgs validates the arguments shared by every sweep call.
func checkSweepArgs(dim, lenX, sweeps int, st Stream) (chains int, err error) {
	if dim < 1 {
		return 0, fmt.Errorf("gibbsrt: dim = %d; it must be at least 1", dim)
	}
	if lenX < 0 {
		return 0, fmt.Errorf("gibbsrt: state length %d; it must be >= 0", lenX)
	}
	if sweeps < 0 {
		return 0, fmt.Errorf("gibbsrt: sweeps = %d; the sweep count must be >= 0", sweeps)
	}
	if lenX%dim != 0 {
		return 0, fmt.Errorf("gibbsrt: state has %d elements, not a multiple of dim %d (want chains×%d)", lenX, dim, dim)
	}
	chains = lenX / dim
	return chains, st.check(chains, sweeps)
}

// Reference is the pure-Go twin of the CUDA kernels: the same random stream,
// the same update order and the same rounding to T, so its results equal
// the GPU's bit for bit. It is safe for concurrent use once the model is set,
// provided callers pass disjoint state slices; a large call sweeps its
// chains on every CPU.
//
// The normals are the stream's float32 values (Normals4) converted to T,
// which is exact; a float64 stream drawn from more bits would be a new
// stream version.
//
// Make it with NewReference; its sweeps are plain Gibbs sweeps (Plain)
// until SetScheme says otherwise.
type Reference[T Float] struct {
	dim       int
	scheme    Scheme
	schemeSet bool // else Plain
	p         *plan[T]
	lin       *twinLinear[T]    // SetLinear's, or nil
	prec      *twinPrecision[T] // SetPrecision's, or nil
	closed    atomic.Bool
}

// NewReference returns a reference sampler of dimension dim with no model
// set. A dim below 1 is refused by SetModel.
func NewReference[T Float](dim int) *Reference[T] { return &Reference[T]{dim: dim} }

// Dim returns the dimension it was made for.
func (r *Reference[T]) Dim() int { return r.dim }

// Close makes every later call that returns an error return ErrClosed,
// as Sampler.Close does; the twin holds nothing else to release. It is
// idempotent.
func (r *Reference[T]) Close() error {
	r.closed.Store(true)
	return nil
}

// ready is the prologue of the calls that need a model: open, model set.
// what names the call in the error.
func (r *Reference[T]) ready(what string) error {
	if r.closed.Load() {
		return ErrClosed
	}
	if r.p == nil {
		return errors.New("gibbsrt: " + what + " called before SetModel")
	}
	return nil
}

// Scheme returns the scheme its sweeps follow.
func (r *Reference[T]) Scheme() Scheme {
	if !r.schemeSet {
		return Plain
	}
	return r.scheme
}

// SetModel validates Q and mu (see NewCoefficients) and installs them,
// choosing ω if the scheme asks for it.
func (r *Reference[T]) SetModel(Q [][]float64, mu []float64) error {
	if r.closed.Load() {
		return ErrClosed
	}
	if r.dim < 1 { // a zero Reference, say
		return modelErr(-1, -1, "the twin's dim = %d; it must be at least 1 (make it with NewReference(dim))", r.dim)
	}
	p, err := newPlan[T](r.dim, Q, mu, r.Scheme())
	if err != nil {
		return err
	}
	if r.lin != nil { // its shifts for the new model, or no change
		l := *r.lin
		if _, err := l.shifts(p); err != nil {
			return err
		}
		r.lin = &l
	}
	r.p = p
	return nil
}

// SetScheme sets how later sweeps update the chains; with a model set, it
// recomputes the tables (and chooses ω) as SetModel would.
func (r *Reference[T]) SetScheme(sc Scheme) error {
	if r.closed.Load() {
		return ErrClosed
	}
	if err := sc.check(); err != nil {
		return err
	}
	if r.p != nil {
		p, err := r.p.rescheme(sc)
		if err != nil {
			return err
		}
		r.p = p
	}
	r.scheme, r.schemeSet = sc, true
	return nil
}

// Mixing returns what the scheme predicts on the model (see Mixing).
func (r *Reference[T]) Mixing() (Mixing, error) {
	if err := r.ready("Mixing"); err != nil {
		return Mixing{}, err
	}
	return r.p.mixing()
}

// Coefficients returns the installed tables, or nil.
func (r *Reference[T]) Coefficients() *Coefficients[T] {
	if r.p == nil {
		return nil
	}
	return r.p.co
}

// MatrixTables returns the matrix form's tables of the installed model at
// the scheme's ω (computed on first use), or nil before SetModel.
func (r *Reference[T]) MatrixTables() (*MatrixTables[T], error) {
	if r.p == nil {
		return nil, nil
	}
	return r.p.matrix()
}

// Sweep runs sweeps sweeps of the scheme over the row-major [chains][dim]
// state x.
func (r *Reference[T]) Sweep(x []T, sweeps int, st Stream) error {
	_, err := r.sweep(x, sweeps, st, nil, nil, chebyshevRun[T]{})
	return err
}

// SweepTrace is Sweep that also records states as tr says into out (see
// Trace for the layout), and returns the number of records. out must hold
// them all.
func (r *Reference[T]) SweepTrace(x []T, sweeps int, st Stream, tr Trace, out []T) (int, error) {
	return r.sweep(x, sweeps, st, &tr, out, chebyshevRun[T]{})
}

// SweepChebyshev runs iterations iterations of Chebyshev-accelerated
// symmetric sweeps at the scheme's ω (docs/GUIDE.md, "Chebyshev
// acceleration") on
// x, with prev the previous iterates, both [chains][dim] and updated in
// place. first is the index of the first iteration since the acceleration
// began: at 0, prev must equal x. Iteration k of the call draws the normals
// of a symmetric sweep at stream sweep st.Sweep + k.
func (r *Reference[T]) SweepChebyshev(x, prev []T, first, iterations int, st Stream) error {
	if err := r.ready("SweepChebyshev"); err != nil {
		return err
	}
	if err := checkChebyshevArgs(first, iterations); err != nil {
		return err
	}
	if _, err := checkSweepArgs(r.p.dim, len(x), iterations, st); err != nil {
		return err
	}
	ch, err := r.p.chebyshevRun(prev, len(x), first, iterations)
	if err != nil {
		return err
	}
	_, err = r.sweep(x, iterations, st, nil, nil, ch)
	return err
}

func (r *Reference[T]) sweep(x []T, sweeps int, st Stream, tr *Trace, out []T, ch chebyshevRun[T]) (int, error) {
	return r.sweepShifted(x, sweeps, st, tr, out, ch, true)
}

// sweepShifted is sweep; with a linear term, shiftState says whether it
// takes the shifts off the state (and prev) and puts them back, or the
// caller has (SweepMoments, which sweeps from record to record as the GPU
// sweeps in one launch). Records are shifted either way.
func (r *Reference[T]) sweepShifted(x []T, sweeps int, st Stream, tr *Trace, out []T, ch chebyshevRun[T], shiftState bool) (int, error) {
	if err := r.ready("Sweep"); err != nil {
		return 0, err
	}
	co := r.p.co
	chains, err := checkSweepArgs(co.Dim, len(x), sweeps, st)
	if err != nil {
		return 0, err
	}
	if r.prec != nil {
		switch {
		case tr != nil:
			return 0, errPrecisionScheme("a trace (SweepTrace, SweepDeviceTrace, SweepMoments)")
		case ch.table != nil:
			return 0, errPrecisionScheme("SweepChebyshev")
		case chains == 0 || sweeps == 0:
			return 0, nil
		}
		return 0, r.sweepFamily(x, chains, sweeps, st)
	}
	d := co.Dim
	var sh traceShape
	records := 0
	if tr != nil {
		if sh, err = tr.shape(d, chains); err != nil {
			return 0, err
		}
		records = Records(sh.thin, st.Sweep, sweeps)
		if err := sh.checkOut(len(out), records); err != nil {
			return 0, err
		}
	}
	kind := r.p.scheme.Kind
	if ch.table != nil {
		kind = Symmetric
	}
	ext := r.p.ext() || ch.table != nil
	var mt *MatrixTables[T] // the matrix form's tables, or nil
	if r.p.form() == FormMatrix {
		if mt, err = r.p.matrix(); err != nil {
			return 0, err
		}
	}
	var rows []T // the sequential form's weights, by row
	if mt == nil {
		rows = r.p.byRow()
	}
	var lin []T // the linear term's shifts, or nil
	if chains > 0 && sweeps > 0 {
		if lin, err = r.linearFor(chains); err != nil {
			return 0, err
		}
	}
	frames := kind.Frames() // each pass's frame
	run := func(lo, hi int) {
		pos := make([]T, d)       // the chain in the current frame's order
		z := make([]T, Stride(d)) // a pass's normals, by position
		y := make([]T, d)         // a Chebyshev iteration's start
		next := make([]T, d)      // the matrix form's new state
		for c := lo; c < hi; c++ {
			xc := x[c*d : (c+1)*d]
			var dc, prevc, shifted []T // the chain's shift, its previous iterate, a shifted record
			if lin != nil {
				dc, shifted = lin[c*d:(c+1)*d], make([]T, d)
			}
			if lin != nil && shiftState {
				shiftChain(xc, dc, true)
				if ch.table != nil {
					prevc = ch.prev[c*d : (c+1)*d]
					shiftChain(prevc, dc, true)
				}
			}
			cur := frames[0]
			toFrame(pos, xc, cur)
			rec := 0
			for k := 0; k < sweeps; k++ {
				s := st.Sweep + uint64(k)
				if ch.table != nil {
					copy(y, pos) // in frame 0: iterations start and end there
				}
				for h, f := range frames {
					if f != cur {
						reverse(pos)
						cur = f
					}
					g := T(1)
					if ch.table != nil {
						g = ch.table[kernels.ChebyshevStride*k+h]
					}
					passNormals(z, st.Seed, st.Chain+uint64(c), s, d, f)
					if mt != nil {
						mt.pass(pos, z, next, f, g)
					} else {
						co.pass(rows, pos, z, f, g, ext)
					}
				}
				if ch.table != nil {
					if cur == 1 {
						reverse(pos)
						cur = 0
					}
					chebyshevCombine(pos, y, ch.prev[c*d:(c+1)*d], ch.table[kernels.ChebyshevStride*k:])
				}
				if tr != nil && (s+1)%uint64(sh.thin) == 0 {
					if sh.traced(c) {
						toFrame(xc, pos, cur)
						if dc != nil {
							copy(shifted, xc)
							shiftChain(shifted, dc, false)
							record(sh, out, rec, c, shifted)
						} else {
							record(sh, out, rec, c, xc)
						}
					}
					rec++
				}
			}
			toFrame(xc, pos, cur)
			if dc != nil && shiftState {
				shiftChain(xc, dc, false)
				if prevc != nil {
					shiftChain(prevc, dc, false)
				}
			}
		}
	}
	parallelChains(chains, sweeps*d*d, run)
	return records, nil
}

// DrawExact replaces each chain of x ([chains][dim]) by an exact draw
// from N(mu, Q⁻¹): x = mu + N·z in the matrix form's arithmetic
// (MatrixTables, frame 2), z the normals of a forward sweep at stream
// sweep st.Sweep. Chains started from exact draws need no burn-in; sweep
// them from st.Sweep+1 on, since sweep st.Sweep's normals made the draw.
// With a precision per chain (SetPrecision) each chain is drawn from its
// own N(Q_c⁻¹·b_c, Q_c⁻¹) through a Cholesky factor of Q_c, up to
// kernels.FamilyExactMaxDim (familyexact.go); a chain whose Q_c has none
// is left unchanged and named in the error, the others drawn.
func (r *Reference[T]) DrawExact(x []T, st Stream) error {
	if err := r.ready("DrawExact"); err != nil {
		return err
	}
	d := r.p.dim
	if r.prec != nil && d > kernels.FamilyExactMaxDim(dtypeOf[T]()) {
		return errFamilyExactDim(d, dtypeOf[T]())
	}
	chains, err := checkSweepArgs(d, len(x), 1, st)
	if err != nil {
		return err
	}
	if r.prec != nil {
		return r.drawFamily(x, chains, st)
	}
	mt, err := r.p.matrix()
	if err != nil {
		return err
	}
	var lin []T
	if chains > 0 {
		if lin, err = r.linearFor(chains); err != nil {
			return err
		}
	}
	parallelChains(chains, d*d, func(lo, hi int) {
		z, next := make([]T, Stride(d)), make([]T, d)
		for c := lo; c < hi; c++ {
			passNormals(z, st.Seed, st.Chain+uint64(c), st.Sweep, d, 0)
			mt.pass(x[c*d:(c+1)*d], z, next, 2, 1)
			if lin != nil {
				shiftChain(x[c*d:(c+1)*d], lin[c*d:(c+1)*d], false)
			}
		}
	})
	return nil
}

// parallelChains runs run over chains 0..chains-1 in ranges on every CPU
// when the work (chains × cost each) is large enough to pay for it; each
// chain is independent, and each range's scratch its own, so the results
// do not depend on the split.
func parallelChains(chains, cost int, run func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), chains)
	if workers < 2 || chains*cost < 1<<22 {
		run(0, chains)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			run(lo, hi)
		}(w*chains/workers, (w+1)*chains/workers)
	}
	wg.Wait()
}

// toFrame copies src to dst, reversed if f is 1: a state between the
// coordinate order and frame f's, either way.
func toFrame[T Float](dst, src []T, f int) {
	if f == 0 {
		copy(dst, src)
		return
	}
	for i, v := range src {
		dst[len(src)-1-i] = v
	}
}

func reverse[T Float](x []T) {
	for i, j := 0, len(x)-1; i < j; i, j = i+1, j-1 {
		x[i], x[j] = x[j], x[i]
	}
}

// passNormals fills z[0:d] with the normals of the positions of a pass in
// frame f: position p draws component p%4 of group p/4, or of group
// p/4|kernels.BackwardGroups in frame 1.
func passNormals[T Float](z []T, seed, chain, sweep uint64, d, f int) {
	for g := 0; g*4 < d; g++ {
		n := stream.Normals4(seed, chain, sweep, g|f*kernels.BackwardGroups)
		for m, v := range n {
			z[4*g+m] = T(v)
		}
	}
}

// chebyshevCombine forms the new Chebyshev iterate in place of s (the swept
// state) from y (the iteration's start) and prev (the one before), and
// moves y into prev: s ← fma(c[2], s, fma(c[3], y, c[4]·prev)).
func chebyshevCombine[T Float](s, y, prev, c []T) {
	for i := range s {
		s[i] = fma(c[2], s[i], fma(c[3], y[i], mul(c[4], prev[i])))
		prev[i] = y[i]
	}
}

// SweepNoise runs plain sweeps with caller-supplied normals instead of the
// Philox stream. noise is laid out [sweeps][dim][chains]: the normal for
// chain c, sweep k, coordinate i is noise[(k*dim+i)*chains+c].
func (r *Reference[T]) SweepNoise(x, noise []T, sweeps int) error {
	if err := r.ready("SweepNoise"); err != nil {
		return err
	}
	if r.prec != nil {
		return errPrecisionScheme("SweepNoise")
	}
	co := r.p.co
	chains, err := checkNoiseArgs(co.Dim, len(x), len(noise), sweeps)
	if err != nil {
		return err
	}
	d := co.Dim
	if r.p.ext() || r.p.form() == FormMatrix {
		return fmt.Errorf("gibbsrt: SweepNoise runs plain Gibbs sweeps in the sequential form; the scheme is %v", r.p.scheme)
	}
	var lin []T
	if chains > 0 && sweeps > 0 {
		if lin, err = r.linearFor(chains); err != nil {
			return err
		}
	}
	z, rows := make([]T, d), r.p.byRow()
	shiftChain(x, lin, true) // no-ops without a term
	for c := 0; c < chains; c++ {
		xc := x[c*d : (c+1)*d]
		for k := 0; k < sweeps; k++ {
			for i := range z {
				z[i] = noise[(k*d+i)*chains+c]
			}
			co.pass(rows, xc, z, 0, 1, false)
		}
	}
	shiftChain(x, lin, false)
	return nil
}

// byRow returns Weight with each frame transposed: entry
// f*Dim*Stride + i*Stride + j is the weight of position j in position i's
// mean. The twin reads a position's weights in a row; in Weight's layout,
// the kernels', they lie Stride apart, which at large dims made the twin
// wait on memory for most of its time. The twin computes it once per
// model and scheme (plan.byRow).
func (co *Coefficients[T]) byRow() []T {
	d, st := co.Dim, co.Stride
	rows := make([]T, len(co.Weight))
	for f := 0; f < len(co.Weight)/(d*st); f++ {
		w, r := co.Weight[f*d*st:], rows[f*d*st:]
		for j := 0; j < d; j++ {
			for i := 0; i < d; i++ {
				r[i*st+j] = w[j*st+i]
			}
		}
	}
	return rows
}

// pass is one pass over the positions of frame f in the documented order
// (see "The update order"): x and z are indexed by position; ext selects
// the over-relaxed form with normal factor g; rows is co.byRow().
func (co *Coefficients[T]) pass(rows, x, z []T, f int, g T, ext bool) {
	d, st := co.Dim, co.Stride
	off, sc := co.Offset[f*d:], co.Scale[f*d:]
	for i := 0; i < d; i++ {
		w := rows[(f*d+i)*st:][:d]
		acc := fmaDot(off[i], w[i+1:], x[i+1:d])
		acc = fmaDot(acc, w[:i], x[:i])
		if ext {
			x[i] = fma(sc[i], mul(g, z[i]), fma(co.Keep, x[i], acc))
		} else {
			x[i] = fma(sc[i], z[i], acc)
		}
	}
}
