package main

import (
	"strings"
	"testing"
	"time"
)

// lineWriter hands each write to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

func TestProgressReportsUntilStopped(t *testing.T) {
	w := make(lineWriter, 16)
	stop := startProgress(w, "gibbs1024", time.Millisecond)
	first := <-w
	stop()
	if !strings.HasPrefix(first, "gibbsgen: still compiling gibbs1024 (") {
		t.Errorf("report %q", first)
	}
	// Nothing is written once stop has returned.
	n := len(w)
	time.Sleep(5 * time.Millisecond)
	if len(w) != n {
		t.Errorf("%d reports after stop", len(w)-n)
	}
}

func TestProgressSilentForQuickRuns(t *testing.T) {
	w := make(lineWriter, 16)
	startProgress(w, "gibbs8", time.Hour)()
	if len(w) != 0 {
		t.Errorf("quick run reported %q", <-w)
	}
}
