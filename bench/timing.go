package main

// How launches and calls are timed: CUDA events around each launch for the
// tables, the host wall clock for the per-call test. Both report medians,
// which a stray slow launch does not move.

import (
	"slices"
	"time"
)

// Stats summarizes one measurement's launch times, in milliseconds.
type Stats struct {
	MedianMs float64 `json:"median_ms"`
	MinMs    float64 `json:"min_ms"`
	MaxMs    float64 `json:"max_ms"`
	N        int     `json:"n"`
}

func summarize(ms []float64) Stats {
	s := slices.Clone(ms)
	slices.Sort(s)
	return Stats{MedianMs: median(s), MinMs: s[0], MaxMs: s[len(s)-1], N: len(s)}
}

// median of sorted s.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// timeLaunches calls launch warmup times, then repeats times with an event
// recorded on the null stream before and after each, and returns the
// summary of the elapsed times. launch may queue work through the bench's
// context or a sampler's: both are the device's primary context, so the
// events bracket either. Errors from the kernels surface at the final
// synchronization.
func (b *bench) timeLaunches(launch func() error) (Stats, error) {
	for range b.opt.warmup {
		if err := launch(); err != nil {
			return Stats{}, err
		}
	}
	if err := b.ctx.Synchronize(); err != nil {
		return Stats{}, err
	}
	ms := make([]float64, 0, b.opt.repeats)
	for range b.opt.repeats {
		if err := b.ctx.Record(b.ev0); err != nil {
			return Stats{}, err
		}
		if err := launch(); err != nil {
			return Stats{}, err
		}
		if err := b.ctx.Record(b.ev1); err != nil {
			return Stats{}, err
		}
		t, err := b.ctx.ElapsedMillis(b.ev0, b.ev1)
		if err != nil {
			return Stats{}, err
		}
		ms = append(ms, float64(t))
	}
	if err := b.ctx.Synchronize(); err != nil {
		return Stats{}, err
	}
	return summarize(ms), nil
}

// timeCalls returns call's wall time per call issued n times back to back
// with one sync at the end, and the median wall time of n calls each
// followed by sync. sync is the caller's own wait (Sampler.Synchronize for
// a sampler), so that its cost is part of what is measured.
func (b *bench) timeCalls(n int, call, sync func() error) (async, synced float64, err error) {
	for range max(b.opt.warmup, 10) {
		if err := call(); err != nil {
			return 0, 0, err
		}
	}
	if err := sync(); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	for range n {
		if err := call(); err != nil {
			return 0, 0, err
		}
	}
	if err := sync(); err != nil {
		return 0, 0, err
	}
	async = time.Since(t0).Seconds() / float64(n)

	per := make([]float64, n)
	for i := range per {
		t := time.Now()
		if err := call(); err != nil {
			return 0, 0, err
		}
		if err := sync(); err != nil {
			return 0, 0, err
		}
		per[i] = time.Since(t).Seconds()
	}
	slices.Sort(per)
	return async, median(per), nil
}
