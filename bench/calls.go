package main

// The per-call overhead test: one sweep per call from Go, against an empty
// kernel launched through the same driver binding, to show what the
// sampler's API adds to a bare launch.

import (
	"fmt"
	"math/rand/v2"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/gibbsrt/gibbstest"
)

// Calls is the per-call overhead test: one sweep per call from Go.
type Calls struct {
	Dim      int    `json:"dim"`
	Batch    int    `json:"batch"`
	N        int    `json:"n"`
	Strategy string `json:"strategy"` // what Auto chose
	// Back to back, one Synchronize at the end: total wall time / N.
	SweepAsyncSec float64 `json:"sweep_async_sec_per_call"`
	EmptyAsyncSec float64 `json:"empty_async_sec_per_call"`
	// Synchronize after each call: median of the per-call wall times.
	SweepSyncSec float64 `json:"sweep_sync_sec_per_call"`
	EmptySyncSec float64 `json:"empty_sync_sec_per_call"`
	// SweepSyncSec / EmptySyncSec.
	SyncRatio float64 `json:"sync_ratio"`
	// One sweep on host state per call (each call returns with the result
	// in host memory): median wall time per call.
	HostSliceSec  float64 `json:"host_slice_sec_per_call"`  // Sweep on a Go slice (page-locked staging)
	HostStateSec  float64 `json:"host_state_sec_per_call"`  // Sweep on a HostState's X (in place)
	CopyAroundSec float64 `json:"copy_around_sec_per_call"` // DeviceState Upload + SweepDevice + Download (pageable copies)
}

func (b *bench) runCalls() error {
	dim, batch, n := b.opt.callDim, b.opt.callBatch, b.opt.calls
	e, ok := lookupDim(dim)
	if !ok {
		msg := fmt.Sprintf("per-call overhead test: dim %d has no generated package in bench/dims.go; skipped", dim)
		b.rep.Skipped = append(b.rep.Skipped, msg)
		b.printf("\nnote: %s\n", msg)
		return nil
	}
	s, err := e.newSampler(b.opt.device)
	if err != nil {
		return err
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(uint64(dim), 99))
	model := gibbstest.RandomSPD(dim, 100, rng, gibbstest.NonzeroMean(dim))
	if err := s.SetModel(model.Rows(), model.Mu); err != nil {
		return err
	}
	ds, err := s.NewDeviceState(batch)
	if err != nil {
		return err
	}
	defer ds.Free()
	if err := ds.Upload(randomStart[float32](model, batch, rng)); err != nil {
		return err
	}

	// Each side waits with its own API: the sampler's Synchronize, the bench
	// context's for the empty kernel.
	st := gibbsrt.Stream{Seed: benchSeed}
	sweep := func() error {
		err := s.SweepDevice(ds, 1, st)
		st.Sweep++
		return err
	}
	empty := func() error {
		return b.ctx.Launch(b.fn[kernelEmpty], [3]uint32{1, 1, 1}, [3]uint32{1, 1, 1}, 0)
	}
	c := &Calls{Dim: dim, Batch: batch, N: n, Strategy: s.Choose(batch, 1).String()}
	b.rep.Calls = c
	if c.SweepAsyncSec, c.SweepSyncSec, err = b.timeCalls(n, sweep, s.Synchronize); err != nil {
		return fmt.Errorf("SweepDevice: %w", err)
	}
	if c.EmptyAsyncSec, c.EmptySyncSec, err = b.timeCalls(n, empty, b.ctx.Synchronize); err != nil {
		return fmt.Errorf("empty_kernel: %w", err)
	}
	c.SyncRatio = c.SweepSyncSec / c.EmptySyncSec

	// Host state: a Go slice, a HostState, and the copy-around path.
	x := randomStart[float32](model, batch, rng)
	hs, err := s.NewHostState(batch)
	if err != nil {
		return err
	}
	defer hs.Free()
	copy(hs.X, x)
	nop := func() error { return nil }
	for _, h := range []struct {
		dst  *float64
		name string
		call func() error
	}{
		{&c.HostSliceSec, "Sweep(Go slice)", func() error { err := s.Sweep(x, 1, st); st.Sweep++; return err }},
		{&c.HostStateSec, "Sweep(HostState.X)", func() error { err := s.Sweep(hs.X, 1, st); st.Sweep++; return err }},
		{&c.CopyAroundSec, "Upload+SweepDevice+Download", func() error {
			if err := ds.Upload(x); err != nil {
				return err
			}
			if err := s.SweepDevice(ds, 1, st); err != nil {
				return err
			}
			st.Sweep++
			return ds.Download(x)
		}},
	} {
		if _, *h.dst, err = b.timeCalls(n, h.call, nop); err != nil {
			return fmt.Errorf("%s: %w", h.name, err)
		}
	}

	b.printf("\nPer-call overhead: one sweep per call from Go, dim %d, B %d, strategy auto(%s), N = %d calls (host wall clock)\n",
		dim, batch, c.Strategy, n)
	b.printf("  %-34s %22s %28s\n", "", "back to back (wall/N)", "sync each (median per call)")
	b.printf("  %-34s %19.2f us %25.2f us\n", "SweepDevice(x, B, 1 sweep)", c.SweepAsyncSec*1e6, c.SweepSyncSec*1e6)
	b.printf("  %-34s %19.2f us %25.2f us\n", "empty_kernel via Context.Launch", c.EmptyAsyncSec*1e6, c.EmptySyncSec*1e6)
	b.printf("  ratio sync-call / empty-sync: %.2f\n", c.SyncRatio)
	b.printf("One sweep on host state per call, result back in host memory (median per call):\n")
	b.printf("  %-34s %19.2f us\n", "Sweep(Go slice)", c.HostSliceSec*1e6)
	b.printf("  %-34s %19.2f us\n", "Sweep(HostState.X), in place", c.HostStateSec*1e6)
	b.printf("  %-34s %19.2f us\n", "Upload + SweepDevice + Download", c.CopyAroundSec*1e6)
	return nil
}
