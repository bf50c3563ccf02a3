package gen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Stale is a file of a generated package that is not what this gibbsgen
// generates from the package's own build facts.
type Stale struct {
	Name string // the file's name inside the package directory
	Why  string // e.g. "differs from what gibbsgen 0.4.0 generates"
}

func (s Stale) String() string { return s.Name + ": " + s.Why }

// Check compares the generated package in dir with what this gibbsgen
// makes from it, without nvcc: it re-renders everything nvcc does not
// produce (the CUDA source, the Go binding, the Go test file and the
// manifest) from the spec and the build facts dir's manifest records
// (targets, nvcc version, ptxas resources) and from dir's fatbin and PTX,
// which must match the hashes the manifest records. It returns the stale
// files, sorted by name, with why: a package written by another gibbsgen
// version (the manifest's "gibbsgen") is stale, as is one whose files were
// edited, deleted or added. An error means dir is not a package gibbsgen
// can check (no manifest, or one it cannot read).
func Check(dir string) ([]Stale, error) {
	have, err := readPackage(dir)
	if err != nil {
		return nil, err
	}
	mb, ok := have[ManifestName]
	if !ok {
		return nil, fmt.Errorf("%s has no %s: it is not a package gibbsgen generated", dir, ManifestName)
	}
	var m Manifest
	if err := json.Unmarshal(mb, &m); err != nil {
		return nil, fmt.Errorf("%s: not a gibbsgen manifest: %w", filepath.Join(dir, ManifestName), err)
	}
	if m.Gibbsgen == "" {
		return nil, fmt.Errorf("%s: not a gibbsgen manifest (no \"gibbsgen\" version)", filepath.Join(dir, ManifestName))
	}
	var stale []Stale
	if m.Gibbsgen != Version {
		stale = append(stale, Stale{ManifestName, fmt.Sprintf("written by gibbsgen %s; this is gibbsgen %s", m.Gibbsgen, Version)})
	}
	s, err := moduleOfManifest(m, dir)
	if err != nil {
		return append(stale, Stale{ManifestName, err.Error()}), nil
	}
	// nvcc's outputs cannot be rebuilt here: they must be the ones the
	// manifest records.
	b := Build{Targets: m.Targets, NVCC: m.NVCC, Resources: m.Resources}
	nvccOK := true
	nvccFile := func(name, want string) []byte {
		data, ok := have[name]
		switch {
		case !ok:
			stale = append(stale, Stale{name, "is missing"})
		case sha(data) != want:
			stale = append(stale, Stale{name, "does not match the SHA-256 the manifest records"})
		default:
			return data
		}
		nvccOK = false
		return nil
	}
	b.Fatbin = nvccFile(s.Package+".fatbin", m.FatbinHash)
	if m.PTXFile != "" {
		b.PTX, b.PTXArch = nvccFile(m.PTXFile, m.Files[m.PTXFile]), m.PTXArch
		if b.PTX == nil { // for the rendering below: goPackage embeds the PTX when there is one
			b.PTX = []byte{}
		}
	}
	src, psrc, err := s.render()
	if err != nil {
		return nil, err
	}
	pkg, err := goPackage(s, src, psrc, b)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(have)+len(pkg.Files))
	for name := range pkg.Files {
		names = append(names, name)
	}
	for name := range have {
		if _, ok := pkg.Files[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		data, inHave := have[name]
		want, inPkg := pkg.Files[name]
		isNVCC := name == s.Package+".fatbin" || (m.PTXFile != "" && name == m.PTXFile)
		switch {
		case isNVCC: // checked above
		case name == ManifestName && !nvccOK:
			// Its hashes of nvcc's outputs are the reference above; the
			// rest is compared once they match.
		case !inPkg:
			stale = append(stale, Stale{name, "was not written by gibbsgen"})
		case !inHave:
			stale = append(stale, Stale{name, "is missing"})
		case string(data) != string(want):
			stale = append(stale, Stale{name, fmt.Sprintf("differs from what gibbsgen %s generates", Version)})
		}
	}
	// One reason per file, the first found: the manifest's version before
	// its contents.
	sort.SliceStable(stale, func(i, j int) bool { return stale[i].Name < stale[j].Name })
	return slices.CompactFunc(stale, func(a, b Stale) bool { return a.Name == b.Name }), nil
}

// moduleOfManifest is the module a manifest describes, with Dir dir.
func moduleOfManifest(m Manifest, dir string) (*module, error) {
	dt, err := kernels.ParseDType(m.DType)
	if err != nil {
		return nil, fmt.Errorf("dtype %q is not one this gibbsgen generates", m.DType)
	}
	s := Spec{Dim: m.Dim, DType: dt, Package: m.Package, Dir: dir, Arch: m.Targets}
	for _, k := range m.Kernels {
		if k.Role != kernels.Sweep.String() {
			continue
		}
		st, err := kernels.ParseStrategy(k.Strategy)
		if err != nil || st == kernels.Auto {
			return nil, fmt.Errorf("strategy %q of kernel %s is not one this gibbsgen knows", k.Strategy, k.Name)
		}
		s.Strategies = append(s.Strategies, st)
	}
	mod, err := resolve(s)
	if err != nil {
		return nil, fmt.Errorf("describes no package this gibbsgen can generate: %w", err)
	}
	return mod, nil
}

// readPackage reads every regular file of dir by name; a subdirectory or
// any other entry is read as empty contents under its name, so that Check
// reports it as not written by gibbsgen.
func readPackage(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", dir)
	}
	if err != nil {
		return nil, err
	}
	have := map[string][]byte{}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			have[e.Name()] = nil
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		have[e.Name()] = data
	}
	return have, nil
}
