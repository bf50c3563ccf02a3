package impl

import (
	"strings"
	"testing"
)

// mustPanic runs f and returns its panic's message, failing without one.
func mustPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("no panic")
		}
		msg, _ = r.(string)
	}()
	f()
	return ""
}

type testFunc func(int) int

// TestSetGet: a function is got by its type; setting a type twice and
// getting one never set are bugs of gibbsrt's init, and panic naming the
// type.
func TestSetGet(t *testing.T) {
	Set[testFunc](func(x int) int { return x + 1 })
	if got := Get[testFunc]()(1); got != 2 {
		t.Errorf("Get()(1) = %d", got)
	}
	if msg := mustPanic(t, func() { Set[testFunc](func(x int) int { return x }) }); !strings.Contains(msg, "testFunc set twice") {
		t.Errorf("second Set: %q", msg)
	}
	if msg := mustPanic(t, func() { Get[func(string) string]() }); !strings.Contains(msg, "gibbsrt set no func(string) string") {
		t.Errorf("Get of an unset type: %q", msg)
	}
}
