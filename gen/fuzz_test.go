package gen_test

import (
	"errors"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gen"
)

// fuzzArchRE is the documented form of an --arch entry.
var fuzzArchRE = regexp.MustCompile(`^(sm|compute)_[0-9]+[a-z]?$`)

// FuzzSpecValidate checks that Validate never panics, that every spec it
// accepts can be generated (the invariants below), and that every rejection
// is a one-line *SpecError naming a flag and a rule. arch is the --arch
// flag's comma-separated list; "" means the default list. The seed corpus is
// in testdata/fuzz/FuzzSpecValidate.
func FuzzSpecValidate(f *testing.F) {
	f.Add(3, "p", "x", "")
	f.Add(64, "gibbs64", "out/gibbs64", "sm_80,sm_90,compute_90")
	f.Fuzz(func(t *testing.T, dim int, pkg, dir, arch string) {
		s := gen.Spec{Dim: dim, Package: pkg, Dir: dir}
		if arch != "" {
			s.Arch = strings.Split(arch, ",")
		}
		err := s.Validate()
		if err2 := s.Validate(); (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("Validate is not deterministic: %v, then %v", err, err2)
		}
		if err != nil {
			var se *gen.SpecError
			if !errors.As(err, &se) {
				t.Fatalf("%+v: error %v (%T) is not a *SpecError", s, err, err)
			}
			switch se.Flag {
			case "dim", "pkg", "out", "arch":
			default:
				t.Fatalf("%+v: error names flag %q", s, se.Flag)
			}
			if se.Rule == "" {
				t.Fatalf("%+v: error for --%s has no rule", s, se.Flag)
			}
			if !strings.HasPrefix(se.Error(), "invalid --"+se.Flag+" ") {
				t.Fatalf("%+v: message %q does not start with the flag", s, se.Error())
			}
			return
		}
		if dim < 1 || dim > gen.MaxDim {
			t.Fatalf("accepted dim %d outside 1..%d", dim, gen.MaxDim)
		}
		if !token.IsIdentifier(pkg) || token.IsKeyword(pkg) || pkg == "_" || pkg == "main" {
			t.Fatalf("accepted package name %q", pkg)
		}
		if c := filepath.Clean(dir); dir == "" || c == "/" || c == "." || filepath.Base(c) == ".." {
			t.Fatalf("accepted output directory %q", dir)
		}
		seen := map[string]bool{}
		for _, a := range s.Arch {
			if !fuzzArchRE.MatchString(a) || seen[a] {
				t.Fatalf("accepted --arch %q", arch)
			}
			seen[a] = true
		}
		// An accepted spec renders.
		if dim <= 8 {
			src, err := gen.RenderCUDA(s)
			if err != nil || src.Name != pkg+".cu" || len(src.Text) == 0 {
				t.Fatalf("%+v: RenderCUDA = %q, %v", s, src.Name, err)
			}
		}
	})
}
