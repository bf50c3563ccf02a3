package main

import "github.com/gibbsgen/gibbsgen/gibbsrt"

// formOf is the arithmetic strategy st runs: the matrix form for Matrix,
// the sequential form for every other (and for Auto, which never picks
// Matrix in the sequential form).
func formOf(st gibbsrt.Strategy) gibbsrt.Form {
	if st == gibbsrt.Matrix {
		return gibbsrt.FormMatrix
	}
	return gibbsrt.FormSequential
}

// setStrategy sets st on s, and the scheme's form to the one st runs.
func setStrategy[T gibbsrt.Float](s *gibbsrt.Sampler[T], st gibbsrt.Strategy) error {
	sc := s.Scheme()
	if sc.Form != formOf(st) {
		sc.Form = formOf(st)
		if err := s.SetScheme(sc); err != nil {
			return err
		}
	}
	return s.SetStrategy(st)
}
