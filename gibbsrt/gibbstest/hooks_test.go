package gibbstest

import "testing"

// TestHooksLinked: gibbsrt hands over every hook the GPU suites call, in
// both dtypes, without a GPU (impl.Get panics on a missing one).
func TestHooksLinked(t *testing.T) {
	_, _, _, _ = philoxHook[float32](), normalsHook[float32](), transformHook[float32](), moduleHook[float32]()
	_, _, _, _ = philoxHook[float64](), normalsHook[float64](), transformHook[float64](), moduleHook[float64]()
	_, _ = chebyshevInRowsHook[float32](), lastChebyshevSharedHook[float32]()
	_, _ = chebyshevInRowsHook[float64](), lastChebyshevSharedHook[float64]()
	_, _ = stagedNormalsHook[float32](), stagedNormalsHook[float64]()
	_, _ = pulledSumsHook[float32](), pulledSumsHook[float64]()
	_, _ = pulledByLaunchHook[float32](), pulledByLaunchHook[float64]()
	_, _ = matrixPassesHook[float32](), matrixPassesHook[float64]()
	_, _ = fusedShiftHook[float32](), fusedShiftHook[float64]()
	_, _ = exactKernelHook[float32](), exactKernelHook[float64]()
}
