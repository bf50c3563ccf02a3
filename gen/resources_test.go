package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The resource record: ptxas's report (registers, stack, spills, shared
// memory) for each package of the all-dims build, at every default target,
// with the hashes of the CUDA sources it was compiled from. It lets CI keep
// the spill check at every dim and target without running nvcc's front end
// 82 times (about 40 minutes on 2 cores, most of CI's limit):
//
//   - a record is written only from a real build (TestEndToEnd -update,
//     make resources), which also compiled the per-model kernel's PTX;
//   - CI requires every record to be current, that is, made from the very
//     sources the generator renders now, by the same nvcc, for the same
//     targets, and to spill no more than the kernel table accepts;
//   - the packages CI still compiles (the full cases, a third of the build)
//     must reproduce their records exactly, so a record cannot drift from
//     what nvcc reports.
//
// A template change makes the records stale, and CI says which and how to
// renew them, as a stale out/ does.

// resourceRecord is one package's record, testdata/resources/<pkg>.json.
type resourceRecord struct {
	Source    string      `json:"source_sha256"`               // the fatbin's CUDA source
	PTXSource string      `json:"ptx_source_sha256,omitempty"` // the per-model kernel's, if any
	NVCC      string      `json:"nvcc"`
	Targets   []string    `json:"targets"`
	Resources []Resources `json:"resources,omitempty"`
}

func resourcePath(pkg string) string {
	return filepath.Join("testdata", "resources", pkg+".json")
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// resourceKey is the record that s's current sources would carry, without
// resources: what a stored record must match to be current.
func resourceKey(s Spec, tc *Toolchain) (resourceRecord, source, error) {
	m, err := resolve(s)
	if err != nil {
		return resourceRecord{}, source{}, err
	}
	src, psrc, err := m.render()
	if err != nil {
		return resourceRecord{}, source{}, err
	}
	k := resourceRecord{Source: sha256Hex(src.Text), NVCC: tc.Version, Targets: tc.defaultTargets()}
	if m.hasPTX() {
		k.PTXSource = sha256Hex(psrc.Text)
	}
	return k, src, nil
}

// errNoRecord is loadRecord's answer when there is no record, or it is
// stale; its message says why and how to renew it.
var errNoRecord = errors.New("no current resource record")

// loadRecord returns the stored record of s if it is current.
func loadRecord(s Spec, tc *Toolchain) (resourceRecord, source, error) {
	key, src, err := resourceKey(s, tc)
	if err != nil {
		return resourceRecord{}, source{}, err
	}
	path := resourcePath(s.Package)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return resourceRecord{}, src, fmt.Errorf("%w: %s is missing", errNoRecord, path)
	} else if err != nil {
		return resourceRecord{}, src, err
	}
	var rec resourceRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return resourceRecord{}, src, fmt.Errorf("%s: %v", path, err)
	}
	switch {
	case rec.Source != key.Source || rec.PTXSource != key.PTXSource:
		return rec, src, fmt.Errorf("%w: %s was made from other CUDA sources than the generator renders now", errNoRecord, path)
	case rec.NVCC != key.NVCC:
		return rec, src, fmt.Errorf("%w: %s was made by nvcc %s; this nvcc is %s", errNoRecord, path, rec.NVCC, key.NVCC)
	case !slices.Equal(rec.Targets, key.Targets):
		return rec, src, fmt.Errorf("%w: %s was made for targets %v; the default targets are %v", errNoRecord, path, rec.Targets, key.Targets)
	}
	return rec, src, nil
}

// checkRecord is the spill check of s from its current record: the same
// rule compile applies to a build.
func checkRecord(s Spec, tc *Toolchain) error {
	rec, src, err := loadRecord(s, tc)
	if err != nil {
		return err
	}
	if len(rec.Resources) == 0 {
		return fmt.Errorf("%s records no entry point", resourcePath(s.Package))
	}
	if over := src.spills(rec.Resources); len(over) > 0 {
		return fmt.Errorf("%s: %w", resourcePath(s.Package), &SpillError{over})
	}
	return nil
}

// compareRecord requires b's resources to equal the current record of s.
func compareRecord(s Spec, tc *Toolchain, b Build) error {
	rec, _, err := loadRecord(s, tc)
	if err != nil {
		return err
	}
	if slices.Equal(rec.Resources, b.Resources) {
		return nil
	}
	// Name the entries that differ, by entry point and target.
	key := func(r Resources) string { return r.Kernel + " on " + r.Arch }
	recorded := map[string]Resources{}
	for _, r := range rec.Resources {
		recorded[key(r)] = r
	}
	var diffs []string
	for _, r := range b.Resources {
		if w, ok := recorded[key(r)]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: not recorded; nvcc %+v", key(r), r))
		} else if w != r {
			diffs = append(diffs, fmt.Sprintf("%s: recorded %+v; nvcc %+v", key(r), w, r))
		}
		delete(recorded, key(r))
	}
	for k := range recorded {
		diffs = append(diffs, k+": recorded, but nvcc reports no such entry")
	}
	if len(diffs) == 0 {
		return nil // the same entries, listed in another order
	}
	slices.Sort(diffs)
	return fmt.Errorf("ptxas reports other resources than %s records, which is then not what nvcc makes of its sources:\n\t%s", resourcePath(s.Package), strings.Join(diffs, "\n\t"))
}

// writeRecord stores b's resources as the record of s.
func writeRecord(s Spec, tc *Toolchain, b Build) error {
	rec, _, err := resourceKey(s, tc)
	if err != nil {
		return err
	}
	rec.Resources = b.Resources
	// One entry point per line: the record reads, and diffs, as ptxas's
	// report does.
	rs := rec.Resources
	rec.Resources = nil
	head, err := json.MarshalIndent(rec, "", "\t")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Write(head[:len(head)-2]) // drop "\n}"
	buf.WriteString(",\n\t\"resources\": [")
	for i, r := range rs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n\t\t")
		buf.Write(line)
	}
	buf.WriteString("\n\t]\n}\n")
	data := buf.Bytes()
	path := resourcePath(s.Package)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// TestResourceRecordsHaveCases: every record is of a package of the
// all-dims build, so that a dim dropped from it does not leave a record
// behind that nothing checks. (Whether each case has a current record is
// TestEndToEnd's to say: it needs nvcc's version.)
func TestResourceRecordsHaveCases(t *testing.T) {
	t.Setenv("GIBBSGEN_E2E", "all")
	cases := map[string]bool{}
	for _, c := range e2eCases(t) {
		cases[c.pkg()+".json"] = true
	}
	files, err := filepath.Glob(filepath.Join("testdata", "resources", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !cases[filepath.Base(f)] {
			t.Errorf("%s is not the record of a package of the all-dims build; delete it", f)
		}
	}
}

// TestCheckRecord: the spill check from a record passes a clean record,
// refuses a spill the kernel table does not accept, and refuses a record
// made from other sources. The record is a probe's, removed afterwards.
func TestCheckRecord(t *testing.T) {
	tc := needNVCC(t)
	s := Spec{Dim: 5, Package: "gibbsrecordprobe", Dir: "unused"}
	t.Cleanup(func() { os.Remove(resourcePath(s.Package)) })
	write := func(rec resourceRecord) {
		t.Helper()
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(resourcePath(s.Package), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key, _, err := resourceKey(s, tc)
	if err != nil {
		t.Fatal(err)
	}
	clean := Resources{Kernel: "gibbs_sweep_const", Arch: "sm_80", Registers: 40}
	rec := key
	rec.Resources = []Resources{clean}
	write(rec)
	if err := checkRecord(s, tc); err != nil {
		t.Fatalf("clean record: %v", err)
	}
	spill := clean
	spill.SpillStores = 8
	rec.Resources = []Resources{clean, spill}
	write(rec)
	var se *SpillError
	if err := checkRecord(s, tc); !errors.As(err, &se) || len(se.Spills) != 1 {
		t.Fatalf("a recorded spill: got %v, want a SpillError naming it", err)
	}
	rec = key
	rec.Source = sha256Hex([]byte("another source"))
	rec.Resources = []Resources{clean}
	write(rec)
	if err := checkRecord(s, tc); !errors.Is(err, errNoRecord) {
		t.Fatalf("a record of other sources: got %v, want errNoRecord", err)
	}
}
