package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// lineWriter counts writes and hands the first to a channel; it never
// blocks, so a slow test cannot stall the reporter (and stop with it).
type lineWriter struct {
	n     atomic.Int64
	first chan string
}

func newLineWriter() *lineWriter { return &lineWriter{first: make(chan string, 1)} }

func (w *lineWriter) Write(p []byte) (int, error) {
	if w.n.Add(1) == 1 {
		w.first <- string(p)
	}
	return len(p), nil
}

func TestProgressReportsUntilStopped(t *testing.T) {
	w := newLineWriter()
	stop := startProgress(w, "gibbs1024", time.Millisecond)
	first := <-w.first
	stop()
	if !strings.HasPrefix(first, "gibbsgen: still compiling gibbs1024 (") {
		t.Errorf("report %q", first)
	}
	// Nothing is written once stop has returned.
	n := w.n.Load()
	time.Sleep(5 * time.Millisecond)
	if m := w.n.Load(); m != n {
		t.Errorf("%d reports after stop", m-n)
	}
}

func TestProgressSilentForQuickRuns(t *testing.T) {
	w := newLineWriter()
	startProgress(w, "gibbs8", time.Hour)()
	if n := w.n.Load(); n != 0 {
		t.Errorf("quick run reported %d times: %q", n, <-w.first)
	}
}
