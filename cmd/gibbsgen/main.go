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

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
