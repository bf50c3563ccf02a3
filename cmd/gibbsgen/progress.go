package main

import (
	"fmt"
	"io"
	"time"
)

// progressEvery is how often a running compile reports; the first report
// comes after one period, so that quick runs print nothing.
const progressEvery = 20 * time.Second

// startProgress reports to w, every period until stop is called, that what
// is still compiling: nvcc prints nothing until it is done, and a large
// dim with every target takes minutes. stop waits for the reporter to
// finish, so that nothing is written after it returns.
func startProgress(w io.Writer, what string, period time.Duration) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(exited)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				fmt.Fprintf(w, "gibbsgen: still compiling %s (%s)\n", what, now.Sub(start).Round(time.Second))
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}
