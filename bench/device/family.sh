#!/usr/bin/env bash
# One device call for a precision per chain (issue 29, run 36): the
# bench's rows of PACKAGES at B=1M (gibbs_family at the dim-32 package's
# shape and at variants of it built with other kernels.FamilyShape values
# under bin/_gibbs32*; DrawExact's family:exact where a package has it),
# each package checked against the twin; the variants' own precision
# suites (VARIANTS, VARIANT_SUITES: without the distribution test); ncu of
# gibbs_family in NCU_PACKAGES; then the GPU suites SUITES of the test
# binaries SUITE_PACKAGES (by default the float32 and float64 dim-32 and
# the dim-64 packages), side by side; then, with REGRESSION_RUNS,
# examples/regression beside PyTorch as bench/device/precision.sh runs it.
# Built on the development machine and carried in dev/
# (docs/CONTRIBUTING.md); the logs come back as $OUT/logs.tgz.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
run bench timeout "${BENCH_TIMEOUT:-200}" bin/gibbsbench -dims none -packages "$PACKAGES" -batches 1048576 -sweeps "${SWEEPS:-100,1}" \
  -calls 0 -model-batches none -check-chains 64 -repeats "${REPEATS:-10}" -json "$out/bench.json"
for p in ${VARIANTS:-}; do
  run "variant-$p" timeout 60 "bin/$p.test" -test.v -test.run "${VARIANT_SUITES:-TestGPUPrecision$/(all|scales|diagonal|DeviceState|Errors)}"
done
for p in ${NCU_PACKAGES:-}; do  # the second launch of family:diag, 100 sweeps
  run "ncu-$(basename "$p")" timeout 90 ncu --clock-control none -k regex:gibbs_family --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    bin/gibbsbench -dims none -packages "$p" -batches 1048576 -sweeps 100 -calls 0 -model-batches none -check-chains 8 -repeats 2 -warmup 1
done
for p in ${SUITE_PACKAGES:-gibbs32 gibbs64 gibbs32f64}; do
  run "suite-$p" timeout "${SUITE_TIMEOUT:-240}" "bin/$p.test" -test.v -test.run "${SUITES:-TestGPUPrecision$|TestGPUMulti$}" &
done
wait
[ -n "${REGRESSION_RUNS:-}" ] && regression "$REGRESSION_RUNS"
echo "== Auto and the precision family (µs a sweep)"
grep -E "^Check|auto |family|precision" "$out/bench.log"
ncu_report
[ -n "${REGRESSION_RUNS:-}" ] && regression_report
echo "== summary"
cat "$out/summary.txt"
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" . && rm -rf "$out"
exit $status
