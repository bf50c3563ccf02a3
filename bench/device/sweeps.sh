#!/usr/bin/env bash
# One device call for the sequential strategies' sweeps (issue 28, item 2:
# chain state in and out of a launch): the bench's sweeps of package
# variants (VARIANTS: directories bin/_<v><dim>, "o" and "n" by default,
# at DIMS; each timed by bin/gibbsbench-<v> where there is one, a bench
# built from the tree that generated it, else bin/gibbsbench), ncu of the
# one-sweep launch at B=1M of NCU_KERNEL (gibbs_sweep_shared) for each
# variant at NCU_DIMS (32), then the GPU suites (SUITES) of every test binary under
# bin/. Everything is built on the development machine and carried as one
# archive (docs/log/BENCHMARKS-runs.md, run 28, gives the commands); this
# script only runs it. Its logs and JSON are written under $OUT/logs as
# they finish, so that a call cut short still returns what ran.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
bench() { if [ -x "bin/gibbsbench-$1" ]; then echo "bin/gibbsbench-$1"; else echo bin/gibbsbench; fi; }
for d in ${DIMS:-8 32 64 32f64}; do
  for v in ${VARIANTS:-o n}; do
    run "bench-$v$d" "$(bench "$v")" -dims none -packages "bin/_$v$d" -batches 4096,1048576 -sweeps 1,100 -calls 0 \
      -model-batches none -check-chains 1000 -repeats 20 -json "$out/bench-$v$d.json"
  done
done
if [ "${NCU:-1}" = 1 ]; then
  for v in ${VARIANTS:-o n}; do for d in ${NCU_DIMS:-32}; do
    run "ncu-$v$d" ncu --clock-control none -k regex:"${NCU_KERNEL:-gibbs_sweep_shared}\$" --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
      --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
      "$(bench "$v")" -dims none -packages "bin/_$v$d" -batches 1048576 -sweeps 1 -calls 0 -model-batches none \
      -check-chains 64 -repeats 2 -warmup 1
  done; done
fi
suites=${SUITES:-'TestGPU'}
gpu_suites "$suites"
echo "== sweeps"
for f in "$out"/bench-*.log; do echo "-- $(basename "$f" .log)"; grep -v '^ *$' "$f" | tail -n 30; done
ncu_report
echo "== summary"
cat "$out/summary.txt"
# The device tool brings back at most 8 files: the logs and JSON go as one
# archive.
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" . && rm -rf "$out"
exit $status
