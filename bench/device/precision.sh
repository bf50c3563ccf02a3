#!/usr/bin/env bash
# One device call for a precision per chain (issue 29, items 2 and 3): the
# bench's rows for PACKAGES at BATCHES and SWEEPS, which time Auto and the
# precision family (family:diag, family:2) and SetPrecision from host
# slices (set-precision), ncu of gibbs_family at B=1M for NCU_PACKAGES, the
# GPU suites (SUITES) of every test binary under bin/ and gibbsrt's, then
# examples/regression: its test (the GPU's chains equal the twin's), the
# example at REGRESSION_RUNS ("chains:sweeps" pairs) and the same sampler
# in PyTorch (examples/regression/torch_regression.py) at the same chain
# counts. Everything is built on the development machine and carried as
# one archive (docs/CONTRIBUTING.md); this script only runs it. Its logs
# and JSON come back as $OUT/logs.tgz.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
bench_packages "${BATCHES:-4096,1048576}" "${SWEEPS:-1,100}" "${REPEATS:-10}"
ncu_packages out/gibbs32 gibbs_family 0 2
suites=${SUITES:-'TestGPUPrecision$|TestGPUChains$|TestGPUAPI$'}
gpu_suites "$suites"
regression "${REGRESSION_RUNS:-4096:1 4096:16 65536:1 65536:16}"
echo "== Auto and the precision family (µs a sweep; set-precision: µs a call)"
grep -E "auto |family|precision" "$out/bench.log"
ncu_report
regression_report
echo "== summary"
cat "$out/summary.txt"
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" . && rm -rf "$out"
exit $status
