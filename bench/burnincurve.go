package main

// The burn-in curves behind section 9's crossings, kept in the report so
// that -plot (and -from) can draw them: the errors measured at the burn-in
// search's checks, and the closed form's curve with its expected range.

import (
	"math"

	"github.com/gibbsgen/gibbsgen/mixing"
)

// CurvePoint is a measured burn-in error after Sweeps sweeps.
type CurvePoint struct {
	Sweeps int     `json:"sweeps"`
	Err    float64 `json:"err"`
}

// BandPoint is the closed form after a number of sweeps, with its
// expected range (package mixing computes it).
type BandPoint = mixing.BandPoint

// measured appends a check's error to a measured curve. A value JSON
// cannot hold (NaN, ±Inf) is left out, or it would fail the whole -json.
func measured(pts []CurvePoint, k int, err float64) []CurvePoint {
	if !finite(err) {
		return pts
	}
	return append(pts, CurvePoint{k, err})
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
