package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// maxDim is the largest dim any gibbsgen package supports (gen.MaxDim;
// TestMaxDim checks): readMatrixMarket refuses a larger matrix before
// allocating it.
const maxDim = 1024

// readMatrixMarket reads a square real matrix in Matrix Market coordinate
// format ("%%MatrixMarket matrix coordinate real general|symmetric"): a
// header, % comments, a size line "rows cols entries", then one "i j value"
// line per entry, 1-based. Symmetric files list the lower triangle; the
// upper is mirrored. Entries not listed are zero. Matrices larger than
// limit×limit and entries that are not finite are errors; every error
// names the file's line, and entries by the file's 1-based (row, col).
func readMatrixMarket(r io.Reader, limit int) ([][]float64, error) {
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
	if rows > limit {
		return nil, fmt.Errorf("matrix market line %d: a %d×%d matrix; the largest a gibbsgen package samples is %d×%d", line, rows, cols, limit, limit)
	}
	if nnz < 0 || nnz > rows*rows {
		return nil, fmt.Errorf("matrix market line %d: %d entries announced; a %d×%d matrix has from 0 to %d", line, nnz, rows, rows, rows*rows)
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
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("matrix market line %d: entry (%d, %d) is %v; entries must be finite", line, i, j, v)
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

// checkModel checks what gibbsrt.ValidateModel checks of Q, except
// finiteness (readMatrixMarket's), but names entries by the file's 1-based
// (row, col): a positive diagonal, symmetry within
// gibbsrt.SymmetryTolerance, and positive definiteness.
func checkModel(q [][]float64) error {
	n := len(q)
	for i := 0; i < n; i++ {
		if !(q[i][i] > 0) {
			return fmt.Errorf("entry (%d, %d) is %g; the diagonal must be positive (entries the file does not list are 0)", i+1, i+1, q[i][i])
		}
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := math.Abs(q[i][j] - q[j][i])
			if lim := gibbsrt.SymmetryTolerance * math.Sqrt(q[i][i]*q[j][j]); d > lim {
				return fmt.Errorf("the precision matrix Q is not symmetric: entry (%d, %d) is %g but (%d, %d) is %g, a difference of %g > %g (%g·√(Q(%d,%d)·Q(%d,%d)))",
					i+1, j+1, q[i][j], j+1, i+1, q[j][i], d, lim, gibbsrt.SymmetryTolerance, i+1, i+1, j+1, j+1)
			}
		}
	}
	if err := gibbsrt.ValidateModel(n, q, make([]float64, n)); err != nil {
		var me *gibbsrt.ModelError
		if errors.As(err, &me) && me.Row < 0 && me.Col < 0 {
			return errors.New(me.Msg) // no entry to renumber: positive definiteness
		}
		return err
	}
	return nil
}
