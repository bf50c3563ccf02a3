package gen

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// e2eCase is one package the end-to-end test builds.
type e2eCase struct {
	dim   int
	dtype kernels.DType
	// full: the package is also written, vetted and tested; otherwise
	// only generated (nvcc for every default target, the spill check, the
	// PTX and the Go binding).
	full bool
}

// reference reports whether c is the package of a reference dim, out/'s.
func (c e2eCase) reference() bool {
	return c.dtype == kernels.Float32 && slices.Contains(referenceDims, c.dim)
}

func (c e2eCase) pkg() string {
	if c.dtype == kernels.Float64 {
		return DefaultPackage(c.dim) + "f64"
	}
	return DefaultPackage(c.dim)
}

// e2eDims is the sample of dimensions the end-to-end test builds by
// default: the edges (1, 64), every residue mod 4 (the Philox group of four
// and the float4 padding), both sides of 32 (the warp kernel's lane count),
// and the reference dims, in float32; and one float64 and one tiled-only
// dim (e2eCases).
var e2eDims = []int{1, 2, 3, 4, 5, 7, 8, 13, 31, 32, 33, 64}

// e2eAllF64 is GIBBSGEN_E2E=all's float64 dims up to 64: the edges and
// both sides of each float64 strategy limit (const 16, shared and model
// 32, warp 48).
var e2eAllF64 = []int{1, 3, 5, 16, 17, 32, 33, 48, 49, 64}

// e2eAllF32 is the float32 dims of GIBBSGEN_E2E=all that are also
// written, vetted and tested: e2eDims, and both sides of Auto's constant
// memory limit (21).
var e2eAllF32 = append([]int{21, 22}, e2eDims...)

// e2eLarge is the large dims of GIBBSGEN_E2E=all, in both dtypes: the
// first tiled-only dim, the 128 and 256 (8 and 16 lanes per chain),
// and the largest (32 lanes of 32 slots, with float64's measured spill
// exception).
var e2eLarge = []int{65, 128, 256, 1024}

// e2eCases is what TestEndToEnd builds. By default, e2eDims and 65 in
// float32 and 33 in float64, each written, vetted and tested.
// GIBBSGEN_E2E=all (CI) covers every float32 dimension 1..64,
// e2eAllF64, and e2eLarge in both dtypes, every one for every default
// target; of those it compiles, writes, vets and tests e2eAllF32,
// e2eAllF64 and e2eLarge, and spill-checks the other 50 float32 dims from
// their records (e2eBuild).
// GIBBSGEN_E2E=3,17,1024f64 builds and tests those (float32, or float64
// with the suffix). GIBBSGEN_E2E=stale is all's cases whose resource
// record is not current (make resources: after a template change, only
// the packages whose sources changed are compiled again).
func e2eCases(t *testing.T) []e2eCase {
	var cs []e2eCase
	add := func(dt kernels.DType, full func(int) bool, dims ...int) {
		for _, d := range dims {
			cs = append(cs, e2eCase{d, dt, full(d)})
		}
	}
	always := func(int) bool { return true }
	switch v := os.Getenv("GIBBSGEN_E2E"); v {
	case "":
		add(kernels.Float32, always, e2eDims...)
		add(kernels.Float32, always, 65)
		add(kernels.Float64, always, 33)
	case "all", "stale":
		for d := 1; d <= 64; d++ {
			add(kernels.Float32, func(d int) bool { return slices.Contains(e2eAllF32, d) }, d)
		}
		add(kernels.Float64, always, e2eAllF64...)
		add(kernels.Float32, always, e2eLarge...)
		add(kernels.Float64, always, e2eLarge...)
	default:
		for _, f := range strings.Split(v, ",") {
			f, dt := strings.TrimSpace(f), kernels.Float32
			if n, ok := strings.CutSuffix(f, "f64"); ok {
				f, dt = n, kernels.Float64
			}
			d, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("GIBBSGEN_E2E=%q: %v", v, err)
			}
			add(dt, always, d)
		}
	}
	return cs
}

// staleCases returns the cases whose resource record is not current, each
// as a full case (a record is written only from a real build).
func staleCases(t *testing.T, tc *Toolchain, cases []e2eCase) []e2eCase {
	var out []e2eCase
	for _, c := range cases {
		s := Spec{Dim: c.dim, DType: c.dtype, Package: c.pkg(), Dir: c.pkg()}
		_, _, err := loadRecord(s, tc)
		switch {
		case errors.Is(err, errNoRecord):
			c.full = true
			out = append(out, c)
		case err != nil:
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d resource records are stale", len(out), len(cases))
	return out
}

// TestEndToEnd generates the full cases with the real nvcc, for every
// default target, and checks ptxas's resources for spills at each dim and
// target: for the full cases from the compile, whose report must also
// equal the committed record; for the others from the record alone, which
// must be current (resources_test.go, e2eBuild). Then it runs go vet and
// the package's own tests on the full cases: the CPU suites run, the GPU
// suites skip here and run on a GPU machine. Packages go under testdata/
// (see scratchDir). Under -update it compiles every case and rewrites the
// records instead.
//
// runtime.NumCPU() packages are generated at a time, each nvcc with one
// thread (Generate runs a package's PTX compile beside its fatbin's); the
// full cases first. The results do not depend on the order.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs nvcc and go test for many dimensions")
	}
	tc := needNVCC(t)
	root := scratchDir(t, "e2e-")
	cases := e2eCases(t)
	if os.Getenv("GIBBSGEN_E2E") == "stale" {
		if cases = staleCases(t, tc, cases); len(cases) == 0 {
			// Nothing to build: with no packages, the steps below would
			// vet and test this package itself, this test included.
			t.Skip("every resource record is current")
		}
	}
	// Full cases first, so that testing can start early, then the largest
	// dims first within each group: the slowest compiles do not come last.
	slices.SortStableFunc(cases, func(a, b e2eCase) int {
		if a.full != b.full {
			if a.full {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.dim, a.dim)
	})
	var full []e2eCase
	for _, c := range cases {
		if c.full {
			full = append(full, c)
		}
	}

	longTMPDIR(t) // the reference dims are compared with out/
	all := os.Getenv("GIBBSGEN_E2E") == "all"
	// out/'s packages, read here: the workers may not call t.Fatal.
	refs := map[string]map[string]string{}
	for _, c := range full {
		if c.reference() {
			if have, m := readReference(t, referenceSpec(c.dim)); m.NVCC == tc.Version {
				refs[c.pkg()] = have
			}
		}
	}
	jobs := make(chan e2eCase)
	var workers, fullDone sync.WaitGroup
	fullDone.Add(len(full))
	for range runtime.NumCPU() {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for c := range jobs {
				if err := e2eBuild(t, tc, root, c, all, refs[c.pkg()]); err != nil {
					t.Errorf("dim %d %s: %v", c.dim, c.dtype, err)
				}
				if c.full {
					fullDone.Done()
				}
			}
		}()
	}
	go func() {
		for _, c := range cases {
			jobs <- c
		}
		close(jobs)
	}()
	defer workers.Wait() // t.Errorf after the test returns would panic

	fullDone.Wait()
	if t.Failed() {
		return
	}
	if *update {
		workers.Wait()
		t.Log("resource records written; packages not vetted or tested under -update")
		return
	}
	var pkgs []string
	for _, c := range full {
		pkgs = append(pkgs, "./"+filepath.ToSlash(filepath.Join(root, c.pkg())))
	}
	for _, step := range [][]string{
		append([]string{"vet"}, pkgs...),
		// The dim-1024 package's twin suites take about ten minutes of a
		// 2-core machine shared with the others: above go test's default
		// limit per package, so the limit is the gen test's own share.
		append([]string{"test", "-count=1", "-timeout=25m"}, pkgs...),
	} {
		cmd := exec.Command("go", step...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go %s: %v\n%s", step[0], err, out)
			return
		}
		t.Logf("go %s %d packages:\n%s", step[0], len(pkgs), out)
	}
	workers.Wait()
	if t.Failed() {
		return
	}
	var names, tested []string
	for _, c := range cases {
		if c.full {
			tested = append(tested, c.pkg())
		} else {
			names = append(names, c.pkg())
		}
	}
	msg := "end-to-end: generated for every default target (resources as recorded), vetted and tested " + strings.Join(tested, " ")
	if len(names) > 0 {
		msg += "; spill-checked for every default target from their current records " + strings.Join(names, " ")
	}
	fmt.Fprintln(os.Stderr, msg)
}

// e2eBuild is TestEndToEnd's work on one case.
//
//   - Under -update, it compiles the package and writes its resource
//     record (resources_test.go).
//   - A case that is only generated takes its spill check from the
//     record, which must be current: that is how every dim and target
//     stays checked without compiling every one (resources_test.go).
//   - A full case is compiled; its resources must equal its record (which
//     must be current under all; elsewhere a missing or stale record is
//     logged); a reference dim must rebuild out (out/'s files, nil for
//     other dims, or where out/ was built by another nvcc) byte for byte;
//     and the package is written.
func e2eBuild(t *testing.T, tc *Toolchain, root string, c e2eCase, all bool, out map[string]string) error {
	start := time.Now()
	s := Spec{Dim: c.dim, DType: c.dtype, Package: c.pkg(), Dir: filepath.Join(root, c.pkg())}
	if !c.full && !*update {
		if err := checkRecord(s, tc); err != nil {
			return renewHint(err)
		}
		t.Logf("dim %d %s: spill check from %s", c.dim, c.dtype, resourcePath(s.Package))
		return nil
	}
	generate := func() (Package, Build, error) { return Generate(context.Background(), s, tc, 1) }
	if c.reference() { // TestOutRebuildsIdentically builds it too
		generate = func() (Package, Build, error) { return generateOnce(s, tc) }
	}
	pkg, b, err := generate()
	if err != nil {
		return err
	}
	t.Logf("dim %d %s: generated for %s in %.1f s", c.dim, c.dtype, strings.Join(b.Targets, " "), time.Since(start).Seconds())
	if *update {
		return writeRecord(s, tc, b)
	}
	switch err := compareRecord(s, tc, b); {
	case errors.Is(err, errNoRecord) && !all:
		t.Logf("dim %d %s: %v", c.dim, c.dtype, err)
	case err != nil:
		return renewHint(err)
	}
	if out != nil {
		compareTree(t, referenceSpec(c.dim).Dir, out, filesTree(pkg.Files), "; run make generate")
	}
	return Write(pkg)
}

// renewHint adds to a stale or missing record's error how to renew the
// records.
func renewHint(err error) error {
	if errors.Is(err, errNoRecord) {
		return fmt.Errorf("%w; run make resources (GIBBSGEN_E2E=all go test ./gen -run TestEndToEnd -update) and commit gen/testdata/resources", err)
	}
	return err
}
