#!/usr/bin/env bash
# One short device call for gibbs_exact_model's shape (issue 28, run 35):
# the PTX variants of dev/px timed beside PyTorch's exact sampler
# (bench/calibrate/exact_variants.py), the bench's exact draws of PACKAGES
# at BATCHES, the GPU suites SUITES of the float32 and float64 dim-32 and
# dim-64 packages, and ncu of gibbs_exact_model at dim 64 and B=1M, each
# under a time limit. Built on the development machine and carried in
# dev/ (docs/CONTRIBUTING.md); logs come back under $OUT/logs.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
run variants timeout 70 python3 bench/calibrate/exact_variants.py dev/px
run bench timeout "${BENCH_TIMEOUT:-100}" bin/gibbsbench -dims none -packages "${PACKAGES:-out/gibbs32,out/gibbs64,bin/_gibbs32f64}" \
  -batches "${BATCHES:-4096,65536,1048576}" -sweeps 1 -calls 0 -model-batches none -check-chains 64 -repeats 10 -json "$out/bench.json"
for p in gibbs32 gibbs64 gibbs32f64; do
  run "suite-$p" timeout 55 "bin/$p.test" -test.v -test.run "${SUITES:-TestGPUMatrix$|TestGPULinear$|TestGPUPrecision$}"
done
run ncu-gibbs64 timeout 45 ncu --clock-control none -k regex:gibbs_exact_model --launch-skip 1 --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
  bin/gibbsbench -dims none -packages out/gibbs64 -batches 1048576 -sweeps 1 -calls 0 -model-batches none -check-chains 64 -repeats 2 -warmup 1
echo "== variants"; cat "$out/variants.log"
echo "== exact draws and set-precision"; grep -E "exact|set-precision" "$out/bench.log"
ncu_report
echo "== summary"; cat "$out/summary.txt"
exit $status
