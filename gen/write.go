package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// OwnershipError reports a file in the output directory that gibbsgen did
// not write, or that was changed since it wrote it. gibbsgen never
// overwrites or deletes such a file.
type OwnershipError struct {
	Dir, File, Why string
}

func (e *OwnershipError) Error() string {
	return fmt.Sprintf("refusing to replace %s: %s %s; move it away or delete it", e.Dir, filepath.Join(e.Dir, e.File), e.Why)
}

// Write replaces pkg.Dir with exactly pkg.Files. The files are written into
// a fresh sibling directory which then takes the place of the old one in a
// single rename (an exchange on Linux), so a reader sees the old package or
// the new one, never a mixture, and a failure leaves the old one untouched.
func Write(pkg Package) error {
	dir := filepath.Clean(pkg.Dir)
	fi, err := lstatOut(dir)
	exists := err == nil
	switch {
	case exists && !fi.IsDir():
		return &SpecError{"out", pkg.Dir, "exists and is not a directory"}
	case exists:
		if err := checkOwned(dir); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("creating output directory: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".gibbsgen-")
	if err != nil {
		return fmt.Errorf("output directory %s is not writable: %w", parent, err)
	}
	defer os.RemoveAll(tmp) // after a swap, tmp holds the old package
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(pkg.Files))
	for name := range pkg.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := writeFileSync(filepath.Join(tmp, name), pkg.Files[name]); err != nil {
			return err
		}
	}
	if !exists {
		return os.Rename(tmp, dir)
	}
	if err := exchange(tmp, dir); err == nil {
		return nil
	} else if !errors.Is(err, errNoExchange) {
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	// No atomic exchange on this system: move the old package aside, move
	// the new one in, and restore the old one if that fails.
	old := tmp + ".old"
	if err := os.Rename(dir, old); err != nil {
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if rerr := os.Rename(old, dir); rerr != nil {
			return fmt.Errorf("replacing %s: %w; the previous package is at %s (%v)", dir, err, old, rerr)
		}
		return fmt.Errorf("replacing %s: %w", dir, err)
	}
	return os.RemoveAll(old)
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// checkOwned verifies that every entry of dir is a file gibbsgen wrote, as
// recorded with its hash in dir's manifest, and is unchanged.
func checkOwned(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	mb, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return &OwnershipError{dir, entries[0].Name(), "exists and the directory has no " + ManifestName + ", so gibbsgen did not write it"}
	}
	if err != nil {
		return err
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return &OwnershipError{dir, ManifestName, "is not a gibbsgen manifest (" + err.Error() + ")"}
	}
	if m.Gibbsgen == "" {
		return &OwnershipError{dir, ManifestName, "is not a gibbsgen manifest (no \"gibbsgen\" version)"}
	}
	for _, e := range entries {
		name := e.Name()
		if name == ManifestName {
			continue
		}
		want, ok := m.Files[name]
		if !ok || !e.Type().IsRegular() {
			return &OwnershipError{dir, name, "was not written by gibbsgen"}
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if sha(data) != want {
			return &OwnershipError{dir, name, "was modified after gibbsgen wrote it"}
		}
	}
	return nil
}

// CheckOutput rejects an output path before any work is done: it must not be
// an existing non-directory, and an existing directory must hold only files
// gibbsgen wrote. Write checks again, since the tree may change meanwhile.
func CheckOutput(dir string) error {
	fi, err := lstatOut(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &SpecError{"out", dir, "exists and is not a directory"}
	}
	return checkOwned(filepath.Clean(dir))
}

// lstatOut is os.Lstat of an output directory, except that when a parent of
// dir is an existing non-directory (so dir can never be created) it returns a
// *SpecError naming that parent rather than lstat's bare ENOTDIR.
func lstatOut(dir string) (fs.FileInfo, error) {
	fi, err := os.Lstat(dir)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return fi, err
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if pfi, perr := os.Stat(p); perr == nil {
			if !pfi.IsDir() {
				return nil, &SpecError{"out", dir, fmt.Sprintf("cannot be created: %s exists and is not a directory", p)}
			}
			break
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	return nil, err
}
