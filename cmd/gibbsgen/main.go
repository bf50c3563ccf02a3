// Command gibbsgen compiles a Gibbs sampler for a multivariate Gaussian of one
// fixed dimension into CUDA and writes a Go package that embeds it.
//
//	gibbsgen --dim 32                      # writes ./gibbs32
//	gibbsgen --dim 8 --pkg mvn8 --out internal/mvn8 --arch sm_80,sm_90
//
// From another module:
//
//	//go:generate go run github.com/gibbsgen/gibbsgen/cmd/gibbsgen --dim 32 --out gibbs32
//
// Run gibbsgen --help for every flag.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
