#!/usr/bin/env bash
# One short device call for the candidate gibbs_matrix_pass (issue 28):
# bench/calibrate/matrix_pass.py over the sources in dev/pass (written on
# the development machine by GIBBSGEN_CALIBRATE_OUT=dev/pass go test -run
# TestMatrixPassSource ./gen; carry dev/), then ncu of one pass at dim 128
# and a million chains in float32. Logs come back under $OUT/logs.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
run pass timeout "${PASS_TIMEOUT:-240}" python3 bench/calibrate/matrix_pass.py dev/pass
run ncu-pass timeout 90 ncu --clock-control none -k gibbs_matrix_pass --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats \
  python3 bench/calibrate/matrix_pass.py dev/pass 128_float32
echo "== pass"; cat "$out/pass.log"
echo "== ncu"; grep -E "Duration|Throughput|Busy|Registers|Achieved Occupancy|Eligible|Issued|Stall|No Eligible" "$out/ncu-pass.log" | head -60
echo "== summary"; cat "$out/summary.txt"
exit $status
