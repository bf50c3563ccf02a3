package main

// The burn-in curves behind section 9's crossings, kept in the report so
// that -plot (and -from) can draw them: the errors measured at the burn-in
// search's checks, and the closed form's curve with its expected range.

import "math"

// CurvePoint is a measured burn-in error after Sweeps sweeps.
type CurvePoint struct {
	Sweeps int     `json:"sweeps"`
	Err    float64 `json:"err"`
}

// BandPoint is the closed form after Sweeps sweeps: the noise-free error
// (B = ∞) and the range expected at B chains, the expected error ∓ z sd
// (Lo may be negative: the range reaches zero).
type BandPoint struct {
	Sweeps int     `json:"sweeps"`
	Exact  float64 `json:"exact"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
}

// curveRecorder keeps a closed-form curve at every sweep up to
// recordEvery, then at steps of about 3%, which draws as smoothly on a log
// axis and keeps a 40,000-sweep curve to a few hundred points.
type curveRecorder struct {
	pts  []BandPoint
	next int
}

const recordEvery = 32

func (r *curveRecorder) add(k int, v, e, sd, z float64) {
	if k < r.next || !finite(v, e, sd) {
		return
	}
	r.pts = append(r.pts, BandPoint{Sweeps: k, Exact: v, Lo: e - z*sd, Hi: e + z*sd})
	r.next = k + 1
	if k >= recordEvery {
		r.next = int(math.Ceil(float64(k) * 1.03))
	}
}

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
