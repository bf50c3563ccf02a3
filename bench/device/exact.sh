#!/usr/bin/env bash
# One device call for the tiled exact-draw kernels (issue 28): the bench's
# exact draws of package variants (VARIANTS: directories bin/_<v><dim>,
# each timed by the bench built with its own tree: "x" and "o" by default)
# at SHAPES ("dim:batch", the dim as in the directory's name, e.g.
# 128f64), the PyTorch peers, ncu of NCU_KERNEL (by default every exact
# kernel's launches, gibbs_exact first) at NCU_SHAPES, then the GPU suites
# (SUITES) of every test binary under bin/. Everything is built on the
# development machine and carried as one archive (docs/log/BENCHMARKS-runs.md,
# run 27, and docs/CONTRIBUTING.md give the commands); this script only runs
# it. Its logs and JSON come back as $OUT/logs.tgz.
set -uo pipefail
out=/tmp/devlogs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
bench() {  # bench NAME PACKAGE BATCH
  run "bench-$1" bin/gibbsbench -dims none -packages "$2" -batches "$3" -sweeps 1 -calls 0 -model-batches none \
    -check-chains 64 -repeats 20 -json "$out/bench-$1.json"
}
# VARIANTS: the prefixes of the package directories to time, bin/_<prefix><dim>.
for shape in ${SHAPES:-32:1048576 64:1048576 128:1048576 256:65536 1024:4096}; do
  d=${shape%%:*} b=${shape##*:}
  for v in ${VARIANTS:-x o}; do bench "$v$d" "bin/_$v$d" "$b"; done
done
PYTHONUNBUFFERED=1 run torch python3 bench/peers/torch_peers.py -json "$out/torch.json"
if [ "${NCU:-1}" = 1 ]; then
  for shape in ${NCU_SHAPES:-32:1048576 128:1048576 1024:4096}; do
    d=${shape%%:*} b=${shape##*:} v=${NCU_VARIANT:-x}
    run "ncu-$v$d" ncu --clock-control none -k "regex:${NCU_KERNEL:-gibbs_exact}" --launch-skip 1 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats \
      bin/gibbsbench -dims none -packages "bin/_$v$d" -batches "$b" -sweeps 1 -calls 0 -model-batches none -check-chains 64 -repeats 2 -warmup 1
  done
fi
suites=${SUITES:-'TestGPUMatrix$|TestGPUAPI$|TestGPUChains$'}
gpu_suites "$suites"
echo "== exact draws (µs a draw of every chain)"
grep -H "exact-draw" "$out"/bench-*.log | sed "s|$out/||"
echo "== torch"
tail -n 20 "$out/torch.log"
echo "== summary"
cat "$out/summary.txt"
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" .
exit $status
