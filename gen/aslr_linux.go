package gen

import (
	"os/exec"
	"runtime"
	"syscall"
)

// addrNoRandomize is Linux's ADDR_NO_RANDOMIZE personality flag.
const addrNoRandomize = 0x0040000

// startReproducible starts cmd with address-space randomization off.
// nvcc's front end (cicc) is not deterministic under ASLR: the same
// preprocessed input compiles to different PTX from run to run (register
// numbering and some optimization decisions; seen with nvcc 11.8), so two
// identical generations wrote different fatbins. The personality is set
// on this OS thread only, for the fork, which inherits it; exec keeps it.
// caveat is why the output may vary where the personality could not be
// set (a seccomp filter may forbid it), else "".
func startReproducible(cmd *exec.Cmd) (caveat string, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	old, _, errno := syscall.RawSyscall(syscall.SYS_PERSONALITY, 0xffffffff, 0, 0)
	if errno == 0 && old&addrNoRandomize == 0 {
		_, _, errno = syscall.RawSyscall(syscall.SYS_PERSONALITY, old|addrNoRandomize, 0, 0)
		if errno == 0 {
			defer syscall.RawSyscall(syscall.SYS_PERSONALITY, old, 0, 0)
		}
	}
	if errno != 0 {
		caveat = "address-space randomization could not be turned off for nvcc (personality: " + errno.Error() + ")"
	}
	return caveat, cmd.Start()
}
