package gen

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// nvcc's front end (cicc) writes PTX that depends on its heap layout: on
// address-space randomization (aslr_linux.go turns it off) and on the
// lengths of the paths it is handed, which are the source's absolute path
// and the temporary files' names under TMPDIR. Paths of the same lengths
// give the same PTX whatever their contents, so nvcc runs in a scratch
// directory whose absolute path is always scratchPathLen bytes long, with
// TMPDIR a relative subdirectory as long as "/tmp". The fatbin is then a
// function of the source and the toolkit alone, not of the machine's
// TMPDIR or of the random part of a temporary name.

// scratchPathLen is the length of "/tmp/gibbsgen-nvcc-" and ten digits, the
// usual name os.MkdirTemp gave, under which out/'s fatbins were built (only
// the length matters).
const scratchPathLen = len("/tmp/gibbsgen-nvcc-") + 10

// nvccTempDir is nvcc's TMPDIR, relative to the scratch directory; it has
// the length of "/tmp".
const nvccTempDir = "tmp_"

// minRandom is the fewest random characters a scratch name may have.
const minRandom = 6

// newScratch creates nvcc's scratch directory and its TMPDIR; fixed says
// whether the directory has the fixed length.
func newScratch() (dir string, fixed bool, err error) {
	dir, fixed, err = fixedLengthDir()
	if err != nil {
		return "", false, err
	}
	if err := os.Mkdir(filepath.Join(dir, nvccTempDir), 0o700); err != nil {
		os.RemoveAll(dir)
		return "", false, err
	}
	return dir, fixed, nil
}

// fixedLengthDir makes a new directory whose absolute path is scratchPathLen
// bytes long, "gibbsgen-" and random digits under the temporary directory
// or else /tmp. Where neither is short enough it falls back to
// os.MkdirTemp: nvcc then still writes correct code, but its register
// allocation may differ from other machines'.
func fixedLengthDir() (dir string, fixed bool, err error) {
	for _, base := range []string{os.TempDir(), "/tmp"} {
		base, err := filepath.EvalSymlinks(base) // nvcc sees the real path
		if err != nil || !filepath.IsAbs(base) {
			continue
		}
		stem := filepath.Join(base, "gibbsgen-")
		n := scratchPathLen - len(stem)
		for try := 0; n >= minRandom && try < 100; try++ {
			dir := stem + randomDigits(n)
			err := os.Mkdir(dir, 0o700)
			if err == nil {
				return dir, true, nil
			}
			if !errors.Is(err, fs.ErrExist) {
				break
			}
		}
	}
	dir, err = os.MkdirTemp("", "gibbsgen-nvcc-")
	return dir, false, err
}

func randomDigits(n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + rand.IntN(10)))
	}
	return b.String()
}

// scratchEnv is cmd's environment for a run in its scratch directory:
// PWD is that directory (cmd.Environ sets it from Dir), and TMPDIR the
// relative nvccTempDir.
func scratchEnv(cmd *exec.Cmd) []string {
	return append(cmd.Environ(), "TMPDIR="+nvccTempDir)
}
