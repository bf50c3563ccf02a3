#!/usr/bin/env bash
# One device call that times first and checks after. Timings, one at a
# time: the bench's exact draws of the package directories bin/_<v><dim>
# (VARIANTS, SHAPES as in exact.sh); the bench's rows at B=1M (SWEEPS a
# launch) of PACKAGES, "bench=packages" pairs (a variant's bench is built
# from its own tree); the PyTorch peers; ncu of NCU_KERNEL at NCU_SHAPES.
# Then the checks, all at once, since they only compare bits and may share
# the GPU: every test binary under bin/ runs the GPU suites of its entry in
# SUITES ("binary=regex" pairs; "none" skips it; a binary not named runs
# DEFAULT_SUITES), each under SUITE_TIMEOUT seconds; then, alone again,
# examples/regression beside PyTorch (REGRESSION_RUNS, as in lib.sh).
# Built on the development machine and carried in dev/
# (docs/CONTRIBUTING.md); the logs come back as $OUT/logs.tgz.
set -uo pipefail
out=/tmp/devlogs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
for shape in ${SHAPES:-}; do
  d=${shape%%:*} b=${shape##*:}
  for v in ${VARIANTS:-x}; do
    run "bench-$v$d" timeout 90 bin/gibbsbench -dims none -packages "bin/_$v$d" -batches "$b" -sweeps 1 -calls 0 \
      -model-batches none -check-chains 64 -repeats 20 -json "$out/bench-$v$d.json"
  done
done
for pair in ${PACKAGES:-}; do
  b=${pair%%=*}
  run "bench-$b" timeout "${BENCH_TIMEOUT:-200}" "bin/$b" -dims none -packages "${pair#*=}" \
    -batches 1048576 -sweeps "${SWEEPS:-100,1}" -calls 0 -model-batches none -check-chains 64 -repeats 10 -json "$out/bench-$b.json"
done
[ "${TORCH:-1}" = 1 ] && PYTHONUNBUFFERED=1 run torch timeout 150 python3 bench/peers/torch_peers.py -json "$out/torch.json"
for shape in ${NCU_SHAPES:-}; do
  d=${shape%%:*} b=${shape##*:} v=${NCU_VARIANT:-x}
  run "ncu-$v$d" timeout 90 ncu --clock-control none -k "regex:${NCU_KERNEL:-gibbs_exact}" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats \
    bin/gibbsbench -dims none -packages "bin/_$v$d" -batches "$b" -sweeps 1 -calls 0 -model-batches none -check-chains 64 -repeats 2 -warmup 1
done
suites_of() {  # suites_of NAME: the regex SUITES gives binary NAME, else DEFAULT_SUITES
  local pair
  for pair in ${SUITES:-}; do
    [ "${pair%%=*}" = "$1" ] && { echo "${pair#*=}"; return; }
  done
  echo "${DEFAULT_SUITES:-TestGPU}"
}
for p in bin/*.test; do
  n=$(basename "$p" .test)
  r=$(suites_of "$n")
  [ "$r" = none ] && continue
  case $n in
    # gibbsrt's tests read their testdata from the package directory.
    gibbsrt) run "suite-$n" timeout "${SUITE_TIMEOUT:-400}" bash -c "cd gibbsrt && ../bin/gibbsrt.test -test.v -test.run '$r'" & ;;
    *) run "suite-$n" timeout "${SUITE_TIMEOUT:-400}" "$p" -test.v -test.run "$r" & ;;
  esac
done
wait
[ -n "${REGRESSION_RUNS:-}" ] && regression "$REGRESSION_RUNS"
echo "== bench (µs)"
grep -hE "^Check|exact|auto |family|precision" "$out"/bench-*.log
echo "== torch"
[ -f "$out/torch.log" ] && tail -n 20 "$out/torch.log"
ncu_report
[ -n "${REGRESSION_RUNS:-}" ] && regression_report
echo "== failures"
grep -h -- "--- FAIL" "$out"/suite-*.log | head -n 40
echo "== summary"
cat "$out/summary.txt"
# A suite ran in the background, so its failure reaches status only here.
grep -qv ": exit 0," "$out/summary.txt" && status=1
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" .
exit $status
