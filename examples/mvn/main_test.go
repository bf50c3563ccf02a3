package main

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestExampleOnCPU runs the example as the README shows, on the CPU twin,
// and checks each mean and variance against the exact value within 5 of
// its own Monte Carlo standard errors (fixed seed: the run is
// deterministic).
func TestExampleOnCPU(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"-model", "testdata/ar1-8.mtx", "-cpu", "-chains", "64", "-traced", "32",
		"-burnin", "300", "-samples", "400", "-thin", "3"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if !strings.Contains(errs.String(), "burn-in: 300/300 sweeps") {
		t.Errorf("no burn-in progress on stderr: %q", errs.String())
	}
	sc := bufio.NewScanner(&out)
	rows := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 9 {
			continue
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			continue
		}
		v := make([]float64, 9)
		for k := 1; k < 9; k++ {
			v[k], _ = strconv.ParseFloat(f[k], 64)
		}
		mean, seMean, exMean, variance, seVar, exVar, ess, rhat := v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]
		if math.Abs(mean-exMean) > 5*seMean || math.Abs(variance-exVar) > 5*seVar {
			t.Errorf("coordinate %s: mean %v ± %v (exact %v), variance %v ± %v (exact %v)", f[0], mean, seMean, exMean, variance, seVar, exVar)
		}
		if ess < 100 || rhat > 1.05 {
			t.Errorf("coordinate %s: ESS %v, R̂ %v", f[0], ess, rhat)
		}
		rows++
	}
	if rows != dim {
		t.Fatalf("%d coordinate rows in the output, want %d:\n%s", rows, dim, out.String())
	}
}

func TestReadMatrixMarket(t *testing.T) {
	q, err := readMatrixMarket(strings.NewReader("%%MatrixMarket matrix coordinate real symmetric\n% c\n2 2 2\n1 1 2\n2 1 -1\n"))
	if err != nil || q[0][0] != 2 || q[0][1] != -1 || q[1][0] != -1 || q[1][1] != 0 {
		t.Fatalf("got %v, %v", q, err)
	}
	for name, in := range map[string]string{
		"array format":     "%%MatrixMarket matrix array real general\n2 2\n1\n0\n0\n1\n",
		"not square":       "%%MatrixMarket matrix coordinate real general\n2 3 0\n",
		"index too large":  "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n",
		"too few entries":  "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n",
		"too many entries": "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n",
		"bad number":       "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n",
		"empty":            "",
	} {
		if _, err := readMatrixMarket(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
