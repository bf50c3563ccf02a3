#!/usr/bin/env bash
# One device call for a linear term per chain (issue 29, item 1): the
# bench's rows for PACKAGES at BATCHES and SWEEPS, which time Auto with and
# without a term (auto+linear) and SetLinearDevice (set-linear), ncu of the
# linear and shift kernels at B=1M for NCU_PACKAGES, then the GPU suites
# (SUITES) of every test binary under bin/ and gibbsrt's. Everything is
# built on the development machine and carried as one archive
# (docs/CONTRIBUTING.md); this script only runs it. Its logs and JSON come
# back as $OUT/logs.tgz.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
bench_packages "${BATCHES:-4096,1048576}" "${SWEEPS:-1,100}" "${REPEATS:-10}"
ncu_packages out/gibbs32 'gibbs_(linear|shift)' 2 3
suites=${SUITES:-'TestGPULinear$|TestGPUChains$|TestGPUAPI$'}
gpu_suites "$suites"
echo "== Auto with and without a linear term (µs a sweep; set-linear: µs a call)"
grep -E "auto|linear" "$out/bench.log"
ncu_report
echo "== summary"
cat "$out/summary.txt"
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" . && rm -rf "$out"
exit $status
