//go:build linux

package gen

import (
	"os/exec"
	"syscall"
)

// killGroupOnCancel starts cmd in a process group of its own and makes the
// cancellation of its context (exec.CommandContext) kill that whole group.
// nvcc runs cicc, ptxas and fatbinary as its children: killing nvcc alone
// would leave them running, in a scratch directory that is then removed.
func killGroupOnCancel(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
