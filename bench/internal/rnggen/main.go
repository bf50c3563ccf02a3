// Command rnggen writes bench/rng.cuh, the random stream's device code
// rendered from templates/rng.cu.tmpl, so that the baseline kernels draw
// exactly the generated samplers' numbers. Run by go generate ./bench.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gibbsgen/gibbsgen/gen"
)

func main() {
	out := flag.String("o", "rng.cuh", "output file")
	flag.Parse()
	b, err := gen.RenderRNG()
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rnggen:", err)
		os.Exit(1)
	}
}
