package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/gibbsgen/gibbsgen/gen"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1 // the request was valid but could not be carried out
	exitUsage   = 2 // the request was invalid
)

// usageError marks errors that get exitUsage.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

const examples = `EXAMPLES:
   Generate ./gibbs32 for every GPU architecture nvcc supports from sm_75:
      gibbsgen --dim 32

   Name the package and directory; build for two architectures only:
      gibbsgen --dim 8 --pkg mvn8 --out internal/mvn8 --arch sm_80,sm_90

   From another module: record gibbsgen as a tool of that module once,
      go get -tool github.com/gibbsgen/gibbsgen/cmd/gibbsgen
   then, in a Go file of the parent package of the generated one,
      //go:generate go tool gibbsgen --dim 8 --out gibbs8
   and run go generate ./... and go mod tidy.

   In CI, fail when a vendored package is stale (no nvcc needed):
      gibbsgen check internal/mvn8

The output directory belongs to gibbsgen: it is replaced atomically, and a
file in it that gibbsgen did not write (or that was edited since) stops the
run. nvcc is looked up in $CUDACXX, $CUDA_HOME/bin, PATH, /usr/local/cuda/bin.
gibbsgen check DIR re-renders every file of DIR that nvcc does not produce,
from DIR's fatbin and PTX and the build facts its manifest records, and
compares: it exits 1 naming each file that differs, is missing, was not
written by gibbsgen, or comes from another gibbsgen version; 0 when all are
current.
Exit status: 0 success, 1 failure (or a stale package), 2 invalid usage.
`

func init() {
	// urfave/cli gives --version the alias -v, which gibbsgen uses for
	// --verbose.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:                  "gibbsgen",
		Usage:                 "compile a Gibbs sampler for an N-dimensional Gaussian into a Go package with embedded CUDA",
		UsageText:             "gibbsgen --dim N [--dtype T] [--strategy LIST] [--pkg NAME] [--out DIR] [--arch LIST] [--allow-spills] [--threads N] [-v]\ngibbsgen check DIR",
		Version:               gen.Version,
		Writer:                stdout,
		ErrWriter:             stderr,
		CustomAppHelpTemplate: cli.AppHelpTemplate + "\n" + examples,
		HideHelpCommand:       true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dim", Usage: fmt.Sprintf("state dimension, an integer from 1 to %d (required)", gen.MaxDim)},
			&cli.StringFlag{Name: "dtype", Value: "float32", Usage: "element type of the state and tables: float32 or float64"},
			&cli.StringFlag{Name: "strategy", Usage: "comma-separated sweep strategies to compile, from " + strategyNames() + " (default: every one that supports the dim)"},
			&cli.StringFlag{Name: "pkg", Usage: "Go package name (default gibbs<dim>)"},
			&cli.StringFlag{Name: "out", Usage: "output directory (default ./<pkg>)"},
			&cli.StringFlag{Name: "arch", Usage: "comma-separated nvcc targets, e.g. sm_80,sm_90,compute_90 (default: the oldest sm_XX of each generation from sm_75 up that nvcc supports, plus PTX for the oldest of them)"},
			&cli.BoolFlag{Name: "allow-spills", Usage: "accept kernels that ptxas spills to local memory"},
			&cli.StringFlag{Name: "threads", Value: strconv.Itoa(runtime.NumCPU()), Usage: "nvcc --threads: architectures compiled in parallel, a positive integer"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print the ptxas resource report"},
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
		Action:       func(c *cli.Context) error { return generate(c, stdout, stderr) },
		Commands: []*cli.Command{{
			Name:         "check",
			Usage:        "report the files of a generated package that are stale (exit 1) or confirm it is current (exit 0); needs no nvcc",
			ArgsUsage:    "DIR",
			OnUsageError: func(_ *cli.Context, err error, _ bool) error { return usageError{err} },
			Action:       func(c *cli.Context) error { return check(c, stdout) },
		}},
	}
}

// check is gibbsgen check DIR: gen.Check, with its stale files as the
// error.
func check(c *cli.Context, stdout io.Writer) error {
	for _, f := range c.App.Flags {
		if name := f.Names()[0]; name != "help" && name != "version" && c.IsSet(name) {
			return usageError{fmt.Errorf("check takes a package directory only; --%s is for generating (see --help)", name)}
		}
	}
	if c.NArg() != 1 {
		return usageError{fmt.Errorf("check takes one argument, the package directory; got %d", c.NArg())}
	}
	dir := c.Args().First()
	stale, err := gen.Check(dir)
	if err != nil {
		return err
	}
	if len(stale) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s is stale: %d of its files are not what gibbsgen %s generates; regenerate it", dir, len(stale), gen.Version)
		for _, f := range stale {
			fmt.Fprintf(&b, "\n  %s: %s", filepath.Join(dir, f.Name), f.Why)
		}
		return errors.New(b.String())
	}
	fmt.Fprintf(stdout, "gibbsgen: %s is current: every file is what gibbsgen %s generates\n", dir, gen.Version)
	return nil
}

// run is main without os.Exit and signals, for tests: cancelling ctx stops
// the run (nvcc and its children are ended, the scratch directories
// removed) and nothing is written.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := newApp(stdout, stderr).RunContext(ctx, args)
	if err == nil {
		return exitOK
	}
	if ctx.Err() != nil {
		err = fmt.Errorf("stopped (%v); nothing was written", context.Cause(ctx))
	}
	fmt.Fprintln(stderr, "gibbsgen:", err)
	var ue usageError
	var se *gen.SpecError
	if errors.As(err, &ue) || errors.As(err, &se) {
		return exitUsage
	}
	return exitFailure
}

// specFromFlags is the first pipeline stage: flags to a validated Spec.
func specFromFlags(c *cli.Context) (gen.Spec, error) {
	if c.NArg() > 0 {
		return gen.Spec{}, usageError{fmt.Errorf("unexpected argument %q: gibbsgen takes flags only (see --help)", c.Args().First())}
	}
	if !c.IsSet("dim") {
		return gen.Spec{}, &gen.SpecError{Flag: "dim", Value: "", Rule: fmt.Sprintf("is required: an integer from 1 to %d", gen.MaxDim)}
	}
	raw := c.String("dim")
	dim, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil {
		return gen.Spec{}, &gen.SpecError{Flag: "dim", Value: raw, Rule: fmt.Sprintf("must be an integer from 1 to %d", gen.MaxDim)}
	}
	s := gen.Spec{Dim: dim, Package: c.String("pkg"), Dir: c.String("out"), AllowSpills: c.Bool("allow-spills")}
	if !c.IsSet("pkg") {
		s.Package = gen.DefaultPackage(dim)
	}
	if !c.IsSet("out") {
		s.Dir = s.Package
	}
	dt, err := kernels.ParseDType(strings.TrimSpace(c.String("dtype")))
	if err != nil {
		return gen.Spec{}, &gen.SpecError{Flag: "dtype", Value: c.String("dtype"), Rule: fmt.Sprintf("must be one of %v", kernels.Generated)}
	}
	s.DType = dt
	if c.IsSet("strategy") {
		for _, name := range strings.Split(c.String("strategy"), ",") {
			st, err := kernels.ParseStrategy(strings.TrimSpace(name))
			if err != nil || st == kernels.Auto {
				return gen.Spec{}, &gen.SpecError{Flag: "strategy", Value: name, Rule: "entries must be one of " + strategyNames()}
			}
			s.Strategies = append(s.Strategies, st)
		}
	}
	if c.IsSet("arch") {
		for _, a := range strings.Split(c.String("arch"), ",") {
			s.Arch = append(s.Arch, strings.TrimSpace(a))
		}
	}
	if _, err := threads(c); err != nil {
		return gen.Spec{}, err
	}
	return s, s.Validate()
}

func generate(c *cli.Context, stdout, stderr io.Writer) error {
	s, err := specFromFlags(c)
	if err != nil {
		return err
	}
	if err := gen.CheckOutput(s.Dir); err != nil {
		return err
	}
	ctx := c.Context
	tc, err := gen.FindNVCC(ctx, gen.OSEnv)
	if err != nil {
		return err
	}
	n, _ := threads(c) // validated by specFromFlags
	targets := "the default targets"
	if len(s.Arch) > 0 {
		targets = strings.Join(s.Arch, ",")
	}
	stop := startProgress(stderr, fmt.Sprintf("%s (dim %d, %s) with nvcc for %s", s.Package, s.Dim, c.String("dtype"), targets), progressEvery)
	pkg, b, err := gen.Generate(ctx, s, tc, n)
	stop()
	if err != nil {
		return err
	}
	for _, why := range b.Caveats {
		fmt.Fprintf(stderr, "gibbsgen: warning: %s; the fatbin's code may differ from another build's of the same source\n", why)
	}
	if c.Bool("verbose") {
		for _, r := range b.Resources {
			fmt.Fprintf(stdout, "%-20s %-7s %3d registers  %5d B stack  %4d/%4d B spill st/ld  %6d B smem\n",
				r.Kernel, r.Arch, r.Registers, r.StackBytes, r.SpillStores, r.SpillLoads, r.SharedBytes)
		}
	}
	if err := ctx.Err(); err != nil { // stopped after nvcc: write nothing
		return err
	}
	if err := gen.Write(pkg); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "gibbsgen: wrote %s (package %s, dim %d, targets %s, nvcc %s)\n",
		s.Dir, s.Package, s.Dim, strings.Join(b.Targets, ","), b.NVCC)
	return nil
}

// threads parses --threads; a string flag, so that every bad value gets the
// same one-line message.
func threads(c *cli.Context) (int, error) {
	raw := c.String("threads")
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n < 1 {
		return 0, &gen.SpecError{Flag: "threads", Value: raw, Rule: "must be a positive integer"}
	}
	return n, nil
}

// strategyNames lists the strategies of the kernel table, for messages.
func strategyNames() string {
	var names []string
	for _, st := range kernels.Strategies() {
		names = append(names, st.String())
	}
	return strings.Join(names, ", ")
}
