// Command gibbsgen compiles a Gibbs sampler for a multivariate Gaussian of one
// fixed dimension into CUDA and writes a Go package that embeds it.
//
//	gibbsgen --dim 32                      # writes ./gibbs32
//	gibbsgen --dim 8 --pkg mvn8 --out internal/mvn8 --arch sm_80,sm_90
//
// From another module, after go get -tool github.com/gibbsgen/gibbsgen/cmd/gibbsgen
// there:
//
//	//go:generate go tool gibbsgen --dim 8 --out gibbs8
//
// Run gibbsgen --help for every flag.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(runMain(os.Args, os.Stdout, os.Stderr))
}

// runMain is run with SIGINT and SIGTERM stopping it: gibbsgen then ends
// nvcc and its children, removes its scratch directories, writes nothing
// and exits 1. (Their default action would end gibbsgen alone.)
func runMain(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdout, stderr)
}
