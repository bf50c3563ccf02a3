package gibbsrt_test

import (
	"context"
	"fmt"
	"log"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
)

// The twin: a 2-dimensional model, three chains started at exact draws,
// then sampled on. Chains code written this way runs on a GPU sampler as
// it is, with the same bits.
func Example() {
	var c gibbsrt.Chains[float64] = gibbsrt.NewReference[float64](2)
	defer c.Close()
	Q := [][]float64{{2, -1}, {-1, 2}} // precision: covariance [[2/3, 1/3], [1/3, 2/3]]
	mu := []float64{1, -1}
	if err := c.SetModel(Q, mu); err != nil {
		log.Fatal(err)
	}
	x := make([]float64, 3*c.Dim()) // [3 chains][2], row-major
	st := gibbsrt.Stream{Seed: 42}
	if err := c.DrawExact(x, st); err != nil { // no burn-in needed
		log.Fatal(err)
	}
	st.Sweep++ // that sweep's normals made the draws
	if err := c.Sweep(x, 100, st); err != nil {
		log.Fatal(err)
	}
	for k := 0; k < 3; k++ {
		fmt.Printf("chain %d: %+.4f %+.4f\n", k, x[2*k], x[2*k+1])
	}
	// Output:
	// chain 0: +1.0157 -1.3235
	// chain 1: +0.9331 -2.7674
	// chain 2: +0.3144 -0.6629
}

// open stands for a generated package's Open (gibbs2.Open for a package
// made by gibbsgen --dim 2), which returns GPU 0, or the twin where there
// is none, and says which.
var open func() (gibbsrt.Chains[float32], gibbsrt.Choice, error)

// A device run: GPU 0, or the twin where there is none. Through Chains
// the code is the same on both; what only a GPU has (state kept on the
// device, records reduced there) is reached by a type switch.
func Example_device() {
	c, choice, err := open()
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	fmt.Println("sampling on", choice) // e.g. "GPU 0 (NVIDIA H200)", or "CPU twin (no GPU: …)"
	Q := [][]float64{{2, -1}, {-1, 2}}
	if err := c.SetModel(Q, []float64{0, 0}); err != nil {
		log.Fatal(err)
	}
	const chains = 1 << 20
	st := gibbsrt.Stream{Seed: 7}
	if s, ok := c.(*gibbsrt.Sampler[float32]); ok {
		x, err := s.NewDeviceState(chains) // kept on the device: no copies per call
		if err != nil {
			log.Fatal(err)
		}
		if err := x.Fill(0); err != nil {
			log.Fatal(err)
		}
		if err := s.SweepDevice(x, 1000, st); err != nil { // burn-in, queued
			log.Fatal(err)
		}
		st.Sweep += 1000
		t, err := s.NewDeviceTrace(gibbsrt.Trace{Thin: 10}, chains, 100)
		if err != nil {
			log.Fatal(err)
		}
		if err := s.SweepDeviceTrace(x, 1000, st, t); err != nil {
			log.Fatal(err)
		}
		m, err := s.TraceMoments(t) // reduced on the device
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("mean", m.Mean())
		return
	}
	x := make([]float32, chains*c.Dim())
	if err := c.Sweep(x, 1000, st); err != nil {
		log.Fatal(err)
	}
}

// Traces: every 5th sweep of chains 1 and 2, coordinate 1 only, as
// [records][chains][coordinates]. How the sweeps are split into calls
// changes nothing.
func ExampleReference_SweepTrace() {
	r := gibbsrt.NewReference[float32](2)
	if err := r.SetModel([][]float64{{1, 0.5}, {0.5, 1}}, []float64{0, 10}); err != nil {
		log.Fatal(err)
	}
	x := make([]float32, 4*2) // 4 chains, from 0
	tr := gibbsrt.Trace{Thin: 5, FirstChain: 1, Chains: 2, Coords: []int{1}}
	out := make([]float32, 4*2*1) // an output may be longer than the records
	n, err := r.SweepTrace(x, 20, gibbsrt.Stream{Seed: 1}, tr, out)
	if err != nil {
		log.Fatal(err)
	}
	for k := 0; k < n; k++ {
		fmt.Printf("after sweep %2d: %6.3f %6.3f\n", 5*k+4, out[2*k], out[2*k+1])
	}
	// Output:
	// after sweep  4: 10.516 11.851
	// after sweep  9:  9.632 10.778
	// after sweep 14:  9.867  9.139
	// after sweep 19:  9.048 10.335
}

// Moments: the count, mean and covariance of the records, without the
// records (on a GPU they never leave the device); mcstat.Moments merge
// across calls, GPUs and machines.
func ExampleReference_SweepMoments() {
	r := gibbsrt.NewReference[float64](2)
	if err := r.SetModel([][]float64{{2, -1}, {-1, 2}}, []float64{1, -1}); err != nil {
		log.Fatal(err)
	}
	x := make([]float64, 1000*2)
	st := gibbsrt.Stream{Seed: 3}
	if err := r.DrawExact(x, st); err != nil {
		log.Fatal(err)
	}
	st.Sweep++
	m, err := r.SweepMoments(x, 20, st, gibbsrt.Trace{Thin: 2})
	if err != nil {
		log.Fatal(err)
	}
	cov, err := m.Covariance()
	if err != nil {
		log.Fatal(err)
	}
	mean := m.Mean()
	fmt.Printf("%v rows; mean %.2f %.2f; covariance %.2f %.2f %.2f (exact 1 -1; 0.67 0.33 0.67)\n",
		m.Count(), mean[0], mean[1], cov.At(0, 0), cov.At(0, 1), cov.At(1, 1))
	// Output:
	// 10000 rows; mean 0.99 -1.01; covariance 0.68 0.34 0.67 (exact 1 -1; 0.67 0.33 0.67)
}

// The fastest answer for a mean, in one call: Chebyshev iterations under
// a symmetric scheme from a cold start, as many as the closed form needs,
// then forward sweeps at the ω tuned for the estimate (RunOptions.Sampling).
// The same Run on a GPU sampler gives the same bits.
func ExampleReference_Run() {
	r := gibbsrt.NewReference[float64](2)
	defer r.Close()
	if err := r.SetScheme(gibbsrt.Scheme{Kind: gibbsrt.Symmetric}); err != nil {
		log.Fatal(err)
	}
	Q := [][]float64{{1, -0.99}, {-0.99, 1}} // strongly correlated
	if err := r.SetModel(Q, []float64{0, 0}); err != nil {
		log.Fatal(err)
	}
	x := make([]float64, 1000*r.Dim())
	for i := range x {
		x[i] = 50 // far from the mean
	}
	res, err := r.Run(context.Background(), x, 20, gibbsrt.Stream{Seed: 1}, gibbsrt.RunOptions[float64]{
		Burnin:   gibbsrt.BurninAuto,
		Sampling: &gibbsrt.Scheme{Kind: gibbsrt.Forward, Tune: gibbsrt.TuneSampling},
	})
	if err != nil {
		log.Fatal(err)
	}
	mean := 0.0
	for _, v := range x {
		mean += v / float64(len(x))
	}
	fmt.Printf("%d Chebyshev iterations, then %d sweeps under %v\n", res.Burnin, res.Sweeps, r.Scheme())
	fmt.Printf("mean of the coordinates: %.2f\n", mean) // exact: 0; sd of one coordinate: 7.1
	// Output:
	// 27 Chebyshev iterations, then 20 sweeps under forward sweeps, ω chosen for the sampling
	// mean of the coordinates: 0.23
}
