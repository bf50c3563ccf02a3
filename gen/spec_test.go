package gen_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gen"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// specOK is a valid spec; each case of TestValidate breaks one field.
func specOK() gen.Spec {
	return gen.Spec{Dim: 8, Package: "mvn8", Dir: "internal/mvn8", Arch: []string{"sm_80", "compute_90"}}
}

func TestValidateAccepts(t *testing.T) {
	for _, edit := range []func(*gen.Spec){
		func(s *gen.Spec) {},
		func(s *gen.Spec) { s.Dim = 1 },
		func(s *gen.Spec) { s.Dim = gen.MaxDim },
		func(s *gen.Spec) { s.Dim, s.DType = gen.MaxDim, kernels.Float64 },
		func(s *gen.Spec) {
			s.Dim, s.DType, s.Strategies = 32, kernels.Float64, []kernels.Strategy{kernels.SharedMemory}
		},
		func(s *gen.Spec) { s.Dim, s.Strategies = 65, []kernels.Strategy{kernels.Tiled} },
		func(s *gen.Spec) { s.Arch = nil },
		func(s *gen.Spec) { s.Arch = []string{"sm_90a", "compute_90a"} },
		func(s *gen.Spec) { s.Package = "_p" },
		func(s *gen.Spec) { s.Package = "π" },
		func(s *gen.Spec) { s.Package = "Main" },
		func(s *gen.Spec) { s.Package = "string" }, // predeclared, not a keyword
		func(s *gen.Spec) { s.Dir = "/abs/path/gibbs8" },
		func(s *gen.Spec) { s.Dir = "../sibling" },
		func(s *gen.Spec) { s.Dir = "x/" },
		func(s *gen.Spec) { s.AllowSpills = true },
	} {
		s := specOK()
		edit(&s)
		if err := s.Validate(); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
	}
}

func TestValidate(t *testing.T) {
	const (
		dimRule   = "must be an integer from 1 to 1024"
		identRule = "must be a valid Go identifier"
		archRule  = "entries must look like sm_80 (machine code) or compute_90 (PTX)"
	)
	for _, tc := range []struct {
		edit  func(*gen.Spec)
		flag  string
		value string
		rule  string
	}{
		{func(s *gen.Spec) { s.Dim = 0 }, "dim", "0", dimRule},
		{func(s *gen.Spec) { s.Dim = -3 }, "dim", "-3", dimRule},
		{func(s *gen.Spec) { s.Dim = gen.MaxDim + 1 }, "dim", "1025", dimRule},
		{func(s *gen.Spec) { s.Dim = 1 << 40 }, "dim", fmt.Sprint(1 << 40), dimRule},
		{func(s *gen.Spec) { s.DType = "half" }, "dtype", "half", "must be one of [float32 float64]"},
		{func(s *gen.Spec) { s.DType = "float16" }, "dtype", "float16", "must be one of [float32 float64]"},
		{func(s *gen.Spec) { s.Dim, s.Strategies = 65, []kernels.Strategy{kernels.SharedMemory} }, "strategy", "shared", "supports dims 1 to 64 in float32, dims 1 to 32 in float64"},
		{func(s *gen.Spec) {
			s.Dim, s.DType, s.Strategies = 33, kernels.Float64, []kernels.Strategy{kernels.SharedMemory}
		}, "strategy", "shared", "dims 1 to 32 in float64"},
		{func(s *gen.Spec) {
			s.Dim, s.DType, s.Strategies = 17, kernels.Float64, []kernels.Strategy{kernels.ConstMemory}
		}, "strategy", "const", "dims 1 to 16 in float64"},
		{func(s *gen.Spec) { s.Package = "func" }, "pkg", "func", "is a Go keyword"},
		{func(s *gen.Spec) { s.Package = "package" }, "pkg", "package", "is a Go keyword"},
		{func(s *gen.Spec) { s.Package = "9lives" }, "pkg", "9lives", identRule},
		{func(s *gen.Spec) { s.Package = "a-b" }, "pkg", "a-b", identRule},
		{func(s *gen.Spec) { s.Package = "" }, "pkg", "", identRule},
		{func(s *gen.Spec) { s.Package = "_" }, "pkg", "_", identRule},
		{func(s *gen.Spec) { s.Package = "a b" }, "pkg", "a b", identRule},
		{func(s *gen.Spec) { s.Package = "main" }, "pkg", "main", "not main"},
		{func(s *gen.Spec) { s.Dir = "" }, "out", "", "must be a directory path"},
		{func(s *gen.Spec) { s.Dir = "/" }, "out", "/", "file-system root"},
		{func(s *gen.Spec) { s.Dir = "//" }, "out", "//", "file-system root"},
		{func(s *gen.Spec) { s.Dir = "." }, "out", ".", "not . or .."},
		{func(s *gen.Spec) { s.Dir = "./" }, "out", "./", "not . or .."},
		{func(s *gen.Spec) { s.Dir = "a/.." }, "out", "a/..", "not . or .."},
		{func(s *gen.Spec) { s.Dir = ".." }, "out", "..", "not . or .."},
		{func(s *gen.Spec) { s.Dir = "../.." }, "out", "../..", "not . or .."},
		{func(s *gen.Spec) { s.Arch = []string{"garbage"} }, "arch", "garbage", archRule},
		{func(s *gen.Spec) { s.Arch = []string{""} }, "arch", "", archRule},
		{func(s *gen.Spec) { s.Arch = []string{"sm80"} }, "arch", "sm80", archRule},
		{func(s *gen.Spec) { s.Arch = []string{"SM_80"} }, "arch", "SM_80", archRule},
		{func(s *gen.Spec) { s.Arch = []string{"sm_80", "compute_"} }, "arch", "compute_", archRule},
		{func(s *gen.Spec) { s.Arch = []string{"sm_80 "} }, "arch", "sm_80 ", archRule},
		{func(s *gen.Spec) { s.Arch = []string{"sm_80", "compute_90", "sm_80"} }, "arch", "sm_80", "is listed twice"},
	} {
		s := specOK()
		tc.edit(&s)
		err := s.Validate()
		var se *gen.SpecError
		if !errors.As(err, &se) {
			t.Errorf("%+v: Validate() = %v, want *SpecError for --%s", s, err, tc.flag)
			continue
		}
		if se.Flag != tc.flag || se.Value != tc.value || !strings.Contains(se.Rule, tc.rule) {
			t.Errorf("%+v: got --%s %q %q, want --%s %q with a rule containing %q", s, se.Flag, se.Value, se.Rule, tc.flag, tc.value, tc.rule)
		}
		if want := fmt.Sprintf("invalid --%s %q: ", tc.flag, tc.value); !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Error() = %q, want one line starting %q", err, want)
		}
	}
}

// TestValidateFirstViolation: with several bad fields, the error is about
// the first in flag order (dim, pkg, out, arch), so it is stable.
func TestValidateFirstViolation(t *testing.T) {
	s := gen.Spec{Dim: 0, Package: "func", Dir: "", Arch: []string{"x"}}
	var se *gen.SpecError
	for _, flag := range []string{"dim", "pkg", "out", "arch"} {
		if err := s.Validate(); !errors.As(err, &se) || se.Flag != flag {
			t.Fatalf("%+v: got %v, want --%s first", s, err, flag)
		}
		switch flag {
		case "dim":
			s.Dim = 2
		case "pkg":
			s.Package = "p"
		case "out":
			s.Dir = "p"
		case "arch":
			s.Arch = nil
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultPackage(t *testing.T) {
	for dim := 1; dim <= gen.MaxDim; dim++ {
		s := gen.Spec{Dim: dim, Package: gen.DefaultPackage(dim)}
		s.Dir = s.Package
		if err := s.Validate(); err != nil {
			t.Errorf("the defaults for dim %d are invalid: %v", dim, err)
		}
	}
	if got := gen.DefaultPackage(32); got != "gibbs32" {
		t.Errorf("DefaultPackage(32) = %q", got)
	}
}
