package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// readMatrixMarket reads a square real matrix in Matrix Market coordinate
// format ("%%MatrixMarket matrix coordinate real general|symmetric"): a
// header, % comments, a size line "rows cols entries", then one "i j value"
// line per entry, 1-based. Symmetric files list the lower triangle; the
// upper is mirrored. Entries not listed are zero.
func readMatrixMarket(r io.Reader) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	line := 0
	next := func() (string, bool) {
		for sc.Scan() {
			line++
			t := strings.TrimSpace(sc.Text())
			if t != "" && !strings.HasPrefix(t, "%") {
				return t, true
			}
		}
		return "", false
	}
	if !sc.Scan() {
		return nil, fmt.Errorf("matrix market: empty input")
	}
	line++
	head := strings.Fields(strings.ToLower(sc.Text()))
	if len(head) != 5 || head[0] != "%%matrixmarket" || head[1] != "matrix" || head[2] != "coordinate" || head[3] != "real" ||
		(head[4] != "general" && head[4] != "symmetric") {
		return nil, fmt.Errorf("matrix market line 1: %q; want %%%%MatrixMarket matrix coordinate real general|symmetric", sc.Text())
	}
	symmetric := head[4] == "symmetric"
	size, ok := next()
	if !ok {
		return nil, fmt.Errorf("matrix market: no size line")
	}
	var rows, cols, nnz int
	if _, err := fmt.Sscan(size, &rows, &cols, &nnz); err != nil {
		return nil, fmt.Errorf("matrix market line %d: size %q: %v", line, size, err)
	}
	if rows != cols || rows < 1 {
		return nil, fmt.Errorf("matrix market line %d: a %d×%d matrix; the precision matrix must be square", line, rows, cols)
	}
	q := make([][]float64, rows)
	for i := range q {
		q[i] = make([]float64, rows)
	}
	for k := 0; k < nnz; k++ {
		t, ok := next()
		if !ok {
			return nil, fmt.Errorf("matrix market: %d entries announced, %d found", nnz, k)
		}
		f := strings.Fields(t)
		if len(f) != 3 {
			return nil, fmt.Errorf("matrix market line %d: %q; want \"i j value\"", line, t)
		}
		i, err1 := strconv.Atoi(f[0])
		j, err2 := strconv.Atoi(f[1])
		v, err3 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || err3 != nil || i < 1 || j < 1 || i > rows || j > rows {
			return nil, fmt.Errorf("matrix market line %d: %q; want 1-based indices up to %d and a number", line, t, rows)
		}
		q[i-1][j-1] = v
		if symmetric {
			q[j-1][i-1] = v
		}
	}
	if t, ok := next(); ok {
		return nil, fmt.Errorf("matrix market line %d: %q after the %d announced entries", line, t, nnz)
	}
	return q, sc.Err()
}
