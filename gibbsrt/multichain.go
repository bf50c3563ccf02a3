package gibbsrt

import (
	"errors"
	"fmt"
)

// Multi's terms per chain and exact draws: each device holds its shard's
// rows of a linear term and of a precision per chain, so that a call
// equals one sampler's bit for bit. Multi keeps the chain counts they were
// set for, to refuse a call over another count with the whole run's
// counts (a device alone would see only its shard's), and renumbers a
// device's error about one of its chains to the run's chain.

// chainError is an error about one chain of a call. Multi advances chain
// by its shard's first chain, in place: each is made fresh for its call.
// ran says that the call's kernels ran to the end and flagged the chain:
// the other chains hold their results, which a call on host slices must
// still copy back (Sampler.onHost).
type chainError struct {
	chain int
	text  func(chain int) string
	ran   bool
}

// ranError reports whether err is about a chain flagged by kernels that
// ran to the end (chainError.ran).
func ranError(err error) bool {
	var ce *chainError
	return errors.As(err, &ce) && ce.ran
}

func (e *chainError) Error() string { return e.text(e.chain) }

// renumber advances the chain of a chainError err by first. A wrapper's
// text is fixed when it is made, so a chainError inside one is named
// beside it instead.
func renumber(err error, first int) error {
	var ce *chainError
	if first == 0 || !errors.As(err, &ce) {
		return err
	}
	if err == error(ce) {
		ce.chain += first
		return err
	}
	return fmt.Errorf("%w (the shard's chain %d is the run's chain %d)", err, ce.chain, ce.chain+first)
}

// shardRows returns shard i of n of v's chains, rows of width per.
func shardRows[T any](v []T, chains, per, i, n int) ([]T, error) {
	first, count, err := Shard(chains, i, n)
	if err != nil || v == nil {
		return nil, err
	}
	return v[first*per : (first+count)*per], nil
}

// shardPrecision returns shard i of n of p's chains (chains of them, K
// scales each): its members, its rows of Scales and Diag; nil for an
// empty shard.
func shardPrecision[T Float](p *Precision[T], dim, chains, i, n int) (*Precision[T], error) {
	_, count, err := Shard(chains, i, n)
	if err != nil || count == 0 {
		return nil, err
	}
	k := 1 + len(p.Members)
	part := &Precision[T]{Members: p.Members}
	if part.Scales, err = shardRows(p.Scales, chains, k, i, n); err != nil {
		return nil, err
	}
	if part.Diag, err = shardRows(p.Diag, chains, dim, i, n); err != nil {
		return nil, err
	}
	return part, nil
}

// SetLinear sets a linear term per chain on every device, shard i of h's
// chains ([chains][dim]) on device i (see Sampler.SetLinear); nil clears
// it. Later calls must have that many chains. On an error the term is
// cleared on every device.
func (mg *Multi[T]) SetLinear(h []T) error {
	return mg.locked(func() error {
		chains := 0
		if len(h) > 0 {
			var err error
			if chains, err = checkLinear(mg.Dim(), h); err != nil {
				return err
			}
		}
		return mg.setTerm(&mg.lin, chains, func(i int, s *Sampler[T]) error {
			part, err := shardRows(h, chains, mg.Dim(), i, len(mg.samplers))
			if err != nil {
				return err
			}
			return s.SetLinear(part)
		}, func(s *Sampler[T]) error { return s.SetLinear(nil) })
	})
}

// SetLinearDevice is SetLinear with h on the devices, as a MultiState of
// this Multi splits it (see Sampler.SetLinearDevice).
func (mg *Multi[T]) SetLinearDevice(h *MultiState[T]) error {
	return mg.locked(func() error {
		if err := mg.own(h); err != nil {
			return err
		}
		return mg.setTerm(&mg.lin, h.chains, func(i int, s *Sampler[T]) error {
			if h.parts[i] == nil {
				return s.SetLinear(nil)
			}
			return s.SetLinearDevice(h.parts[i])
		}, func(s *Sampler[T]) error { return s.SetLinear(nil) })
	})
}

// SetPrecision sets a precision per chain on every device: its members on
// each, shard i of its chains' scales and diagonals on device i (see
// Sampler.SetPrecision); nil clears it. Later calls must have that many
// chains. An error names the run's chain; on an error the precision is
// cleared on every device.
func (mg *Multi[T]) SetPrecision(p *Precision[T]) error {
	return mg.locked(func() error {
		chains := 0
		if p != nil {
			var err error
			if chains, err = checkPrecision(mg.Dim(), p); err != nil {
				return err
			}
		}
		return mg.setTerm(&mg.prec, chains, func(i int, s *Sampler[T]) error {
			if p == nil {
				return s.SetPrecision(nil)
			}
			part, err := shardPrecision(p, mg.Dim(), chains, i, len(mg.samplers))
			if err != nil {
				return err
			}
			return s.SetPrecision(part) // nil for an empty shard: none
		}, func(s *Sampler[T]) error { return s.SetPrecision(nil) })
	})
}

// setTerm runs set on every device, each with its shard's first chain to
// renumber errors, and records the chain count in *count (0: none). If a
// device fails, drop runs on every device and *count is 0, so that no
// device is left with a term of another call.
func (mg *Multi[T]) setTerm(count *int, chains int, set func(i int, s *Sampler[T]) error, drop func(*Sampler[T]) error) error {
	n := len(mg.samplers)
	err := mg.each(func(i int, s *Sampler[T]) error {
		first, _, err := Shard(chains, i, n)
		if err != nil {
			return err
		}
		return renumber(set(i, s), first)
	})
	if err != nil {
		*count = 0
		return errors.Join(err, mg.each(func(_ int, s *Sampler[T]) error { return drop(s) }))
	}
	*count = chains
	return nil
}

// checkTerms refuses a call over chains chains where a term per chain was
// set for another count, with the run's counts.
func (mg *Multi[T]) checkTerms(chains int) error {
	switch {
	case chains == 0:
		return nil
	case mg.lin != 0 && mg.lin != chains:
		return errLinearChains(mg.lin, chains)
	case mg.prec != 0 && mg.prec != chains:
		return errPrecisionChains(mg.prec, chains)
	}
	return nil
}

// own checks that x is a state of this Multi.
func (mg *Multi[T]) own(x *MultiState[T]) error {
	switch {
	case x == nil:
		return errors.New("gibbsrt: nil multi-device state")
	case x.mg != mg:
		return errors.New("gibbsrt: multi-device state belongs to another Multi")
	}
	return nil
}

// DrawExact draws every chain of the host state x ([chains][dim]) exactly
// (see Sampler.DrawExact), device i drawing shard i of the chains.
func (mg *Multi[T]) DrawExact(x []T, st Stream) error {
	return mg.onShards(x, 1, st, func(s *Sampler[T], part []T, st Stream) error {
		return s.DrawExact(part, st)
	})
}

// DrawExactDevice is DrawExact on device state: queued on every device at
// once.
func (mg *Multi[T]) DrawExactDevice(x *MultiState[T], st Stream) error {
	return mg.onParts(x, st, func(s *Sampler[T], part *DeviceState[T], st Stream) error {
		return s.DrawExactDevice(part, st)
	})
}
