//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeSlowNVCC answers the toolchain queries like nvcc 11.8; a compile
// records its scratch directory and its pid, starts a child (as nvcc starts
// cicc and ptxas), records the child's pid, and waits for it.
const fakeSlowNVCC = `#!/bin/sh
case "$1" in
--version) echo 'Cuda compilation tools, release 11.8, V11.8.89' ;;
--list-gpu-code) echo sm_80 ;;
--list-gpu-arch) echo compute_80 ;;
*)
	pwd > "$FAKE_NVCC_LOG/dir.$$"
	sleep 120 &
	echo "$$ $!" > "$FAKE_NVCC_LOG/pids.$$.tmp"
	mv "$FAKE_NVCC_LOG/pids.$$.tmp" "$FAKE_NVCC_LOG/pids.$$"
	wait
	;;
esac
`

// TestSignalEndsNVCCAndItsChildren sends SIGTERM, then SIGINT, to gibbsgen
// alone (not to its process group) while two nvcc runs (the fatbin's and
// the PTX's) are compiling, and requires that gibbsgen exits 1 saying so,
// that every nvcc and every child of one is gone, and that no scratch
// directory and no output remain.
func TestSignalEndsNVCCAndItsChildren(t *testing.T) {
	self, err := exec.LookPath("gibbsgen") // the test binary as gibbsgen (TestMain)
	if err != nil {
		t.Fatalf("testscript did not put gibbsgen on PATH: %v", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			nvcc := filepath.Join(dir, "nvcc")
			if err := os.WriteFile(nvcc, []byte(fakeSlowNVCC), 0o755); err != nil {
				t.Fatal(err)
			}
			logDir := filepath.Join(dir, "log")
			if err := os.Mkdir(logDir, 0o755); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "gibbs2")
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(self, "--dim", "2", "--arch", "sm_80", "--out", out)
			cmd.Env = append(os.Environ(), "CUDACXX="+nvcc, "FAKE_NVCC_LOG="+logDir)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pids []int
			var scratch []string
			t.Cleanup(func() { // whatever the test found, leave nothing running
				cmd.Process.Kill()
				for _, p := range pids {
					syscall.Kill(p, syscall.SIGKILL)
				}
				for _, d := range scratch {
					os.RemoveAll(d)
				}
			})
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()

			// Both compiles are running once both have recorded their pids.
			deadline := time.Now().Add(30 * time.Second)
			for {
				files, _ := filepath.Glob(filepath.Join(logDir, "pids.*[0-9]"))
				if len(files) == 2 {
					for _, f := range files {
						data, err := os.ReadFile(f)
						if err != nil {
							t.Fatal(err)
						}
						for _, field := range strings.Fields(string(data)) {
							p, err := strconv.Atoi(field)
							if err != nil {
								t.Fatalf("%s: %q", f, data)
							}
							pids = append(pids, p)
						}
						d, err := os.ReadFile(filepath.Join(logDir, "dir."+strings.TrimPrefix(filepath.Base(f), "pids.")))
						if err != nil {
							t.Fatal(err)
						}
						scratch = append(scratch, strings.TrimSpace(string(d)))
					}
					break
				}
				select {
				case err := <-exited:
					t.Fatalf("gibbsgen exited before both compiles started (%v): %s", err, stderr.String())
				default:
				}
				if time.Now().After(deadline) {
					t.Fatalf("after 30 s, %d of the 2 compiles have started", len(files))
				}
				time.Sleep(10 * time.Millisecond)
			}
			for _, d := range scratch {
				if !strings.HasPrefix(filepath.Base(d), "gibbsgen-") {
					t.Fatalf("nvcc ran in %s, not a scratch directory", d)
				}
			}

			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 1 {
					t.Errorf("gibbsgen after %v: %v, want exit status 1", sig, err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("gibbsgen still running 30 s after %v", sig)
			}
			want := fmt.Sprintf("gibbsgen: stopped (%v signal received); nothing was written\n", sig)
			if stdout.Len() != 0 || stderr.String() != want {
				t.Errorf("stdout %q, stderr %q; want %q", stdout.String(), stderr.String(), want)
			}
			// The processes that nvcc's children were reparented to may reap
			// them a moment later: a zombie counts as gone.
			for _, p := range pids {
				if err := waitGone(p, 5*time.Second); err != nil {
					t.Error(err)
				}
			}
			for _, d := range scratch {
				if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("scratch directory %s remains (%v)", d, err)
				}
			}
			if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("output %s exists (%v)", out, err)
			}
		})
	}
}

// waitGone waits until process pid has exited (no process, or a zombie).
func waitGone(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return nil
		}
		// The state follows the command name in parentheses.
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("process %d is still running: %s", pid, stat)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
