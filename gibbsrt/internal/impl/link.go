package impl

import (
	"fmt"
	"reflect"
	"sync"
)

// Set and Get hand gibbsrt's unexported entry points to the packages
// beside it that need them, without exporting them from gibbsrt: the
// constructors that generated code reaches through package gibbsimpl, and
// the device's stream hooks that package gibbstest checks. gibbsrt sets
// each function in an init function, keyed by its type (which names the
// element type through its arguments); the caller gets it by that type.

var links sync.Map // reflect.Type → function

// PulledSums is the argument of gibbsrt's hook that has the per-model
// kernels pull their plain sweeps' sums (*Pulled) or push them (nil: the
// default): a type of its own, since the registry keys hooks by their
// types, and setStagedNormals' takes a *bool.
type PulledSums struct{ Pulled *bool }

// PulledByLaunch is the argument of gibbsrt's hook that has plain
// launches of the per-model kernel pull their sums where they are short
// (On) or always push them.
type PulledByLaunch struct{ On bool }

// MatrixPasses is the argument of gibbsrt's hook that has the matrix
// form's plain sweeps run a launch a pass (On).
type MatrixPasses struct{ On bool }

// FusedShift is the argument of gibbsrt's hook that has plain sweeps with
// a linear term run the per-model kernel's Shifted entry point (Fused) or
// the shifts' own passes.
type FusedShift struct{ Fused bool }

// Set registers f under its type, once.
func Set[F any](f F) {
	if _, dup := links.LoadOrStore(reflect.TypeFor[F](), f); dup {
		panic(fmt.Sprintf("impl: %v set twice", reflect.TypeFor[F]()))
	}
}

// Get returns the function of type F that gibbsrt set. That gibbsrt sets
// every function its callers get is checked by TestLinks; a missing one
// is a bug in gibbsrt's init, so Get panics.
func Get[F any]() F {
	f, ok := links.Load(reflect.TypeFor[F]())
	if !ok {
		panic(fmt.Sprintf("impl: gibbsrt set no %v", reflect.TypeFor[F]()))
	}
	return f.(F)
}
