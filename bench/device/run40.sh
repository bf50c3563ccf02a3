#!/usr/bin/env bash
# Run 40 in one device call (docs/CONTRIBUTING.md): the GPU suites that
# check the new paths bit for bit (Specialized: pulled sums by launch;
# GPULinear/Fused: the fused shifts; GPUMatrix/Passes: the matrix form a
# launch a pass, float32 dims 128 and 1024, float64 dim 128), the bench of the default-strategy packages (rows
# auto+pulled, auto+linear:fused, exact+linear:fused at dims 32 and 64 and
# a million chains; matrix:pass at dim 128 and a million chains, dim 1024
# and 4096), ncu of gibbs_sweep_model_pulled in 100-sweep launches at dim
# 64, then bench/calibrate/matrix_pass.py (gibbs_matrix_pass's and
# gibbs_exact_gemm's shapes beside PyTorch) and ncu of one pass. Built
# here first:
#   STRATEGY=default bench/device/build.sh x32:32 x64:64 x32f64:32:f64 x128:128 x1024:1024 x128f64:128:f64
#   mkdir -p dev/pass && GIBBSGEN_CALIBRATE_OUT=dev/pass go test -run TestMatrixPassSource ./gen
# and carried as dev/ (bin/ is unpacked from dev/all.txz there; 16.2
# MB at 566f280, within the 64 MiB a call carries). Logs come
# back as $OUT/logs.tgz, written as the steps finish.
set -uo pipefail
tar xJf dev/all.txz
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
pack() { tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" .; }
for p in x32 x64 x32f64; do
  run "suite-$p" timeout 120 "bin/$p.test" -test.v -test.run 'TestGPU$/Specialized|TestGPULinear$/Fused'
  pack
done
for p in x128 x1024 x128f64; do
  run "suite-$p" timeout 300 "bin/$p.test" -test.v -test.run 'TestGPUMatrix$/Passes'
  pack
done
for d in 32 64 32f64; do
  run "bench-x$d" timeout 150 bin/gibbsbench -dims none -packages "bin/_x$d" -batches 1048576 -sweeps 1,100 -calls 0 \
    -model-batches none -check-chains 1000 -repeats 10 -json "$out/bench-x$d.json"
  pack
done
run bench-x128 timeout 200 bin/gibbsbench -dims none -packages bin/_x128 -batches 1048576 -sweeps 1,10 -calls 0 \
  -model-batches none -check-chains 1000 -repeats 5 -json "$out/bench-x128.json"
run bench-x1024 timeout 200 bin/gibbsbench -dims none -packages bin/_x1024 -batches 4096 -sweeps 1,100 -calls 0 \
  -model-batches none -check-chains 200 -repeats 5 -json "$out/bench-x1024.json"
pack
run ncu-pulled64 timeout 90 ncu --clock-control none -k regex:'gibbs_sweep_model_pulled$' --launch-skip 2 --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section InstructionStats \
  --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
  bin/gibbsbench -dims none -packages bin/_x64 -batches 1048576 -sweeps 100 -calls 0 -model-batches none -check-chains 64 -repeats 2 -warmup 1
pack
run pass timeout 240 python3 bench/calibrate/matrix_pass.py dev/pass
pack
run ncu-pass timeout 90 ncu --clock-control none -k gibbs_matrix_pass --launch-count 1 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats --section SchedulerStats \
  python3 bench/calibrate/matrix_pass.py dev/pass 128_float32
pack
echo "== bench"; for f in "$out"/bench-*.log; do echo "-- $(basename "$f" .log)"; grep -E "model|auto|exact|linear|matrix|Check" "$f" | head -40; done
echo "== pass"; cat "$out/pass.log"
ncu_report
echo "== summary"; cat "$out/summary.txt"
exit $status
