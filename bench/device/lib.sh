# Sourced by the device scripts after they set $out: the GPU's name and
# clocks into $out/gpu.txt, and run, which logs a command.
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
status=0
run() {  # run NAME CMD...: the command's log in $out/NAME.log, its exit in $out/summary.txt; a failure sets status=1
  local name=$1
  shift
  local t0=$SECONDS
  "$@" >"$out/$name.log" 2>&1
  local rc=$?
  [ $rc -eq 0 ] || status=1
  echo "$name: exit $rc, $((SECONDS - t0)) s, $(grep -c -- '^--- PASS\|^    --- PASS' "$out/$name.log") passes, $(grep -c -- '--- FAIL' "$out/$name.log") failures" | tee -a "$out/summary.txt"
}
suites() {  # suites REGEX: the GPU suites matching REGEX of every test binary under bin/ but gibbsrt's
  local p
  for p in bin/*.test; do
    case $p in bin/gibbsrt.test) ;; *) run "suite-$(basename "$p" .test)" "$p" -test.v -test.run "$1" ;; esac
  done
}
gpu_suites() {  # gpu_suites REGEX: unless SKIP_SUITES=1, suites REGEX, then (unless GIBBSRT=0) gibbsrt's own suite
  [ "${SKIP_SUITES:-0}" = 1 ] && return
  suites "$1"
  # gibbsrt's tests read their testdata from the package directory.
  [ "${GIBBSRT:-1}" = 1 ] && run suite-gibbsrt bash -c 'cd gibbsrt && ../bin/gibbsrt.test -test.v'
}
ncu_kernels() {  # ncu_kernels NAME REGEX SKIP COUNT PACKAGE: ncu of the kernels matching REGEX in a one-sweep bench run of PACKAGE at B=1M
  run "ncu-$1" ncu --clock-control none -k "regex:$2" --launch-skip "$3" --launch-count "$4" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    bin/gibbsbench -dims none -packages "$5" -batches 1048576 -sweeps 1 -calls 0 -model-batches none -check-chains 64 -repeats 2 -warmup 1
}
bench_packages() {  # bench_packages BATCHES SWEEPS REPEATS: the bench's rows of PACKAGES (default out/gibbs32,out/gibbs64,bin/_gibbs32f64) into $out/bench.json
  run bench bin/gibbsbench -dims none -packages "${PACKAGES:-out/gibbs32,out/gibbs64,bin/_gibbs32f64}" -batches "$1" -sweeps "$2" -calls 0 \
    -model-batches none -check-chains 64 -repeats "$3" -json "$out/bench.json"
}
ncu_packages() {  # ncu_packages DEFAULT REGEX SKIP COUNT: unless NCU=0, ncu_kernels of REGEX in each of NCU_PACKAGES (default DEFAULT)
  [ "${NCU:-1}" = 1 ] || return 0
  local p
  for p in ${NCU_PACKAGES:-$1}; do
    ncu_kernels "$(basename "$p")" "$2" "$3" "$4" "$p"
  done
}
ncu_report() {  # ncu_report: the main figures of each ncu log under $out
  local f
  echo "== ncu"
  for f in "$out"/ncu-*.log; do
    [ -f "$f" ] || continue
    echo "-- $(basename "$f" .log)"
    grep -E 'Duration|Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|No Eligible|Warp Cycles Per Issued|Issued Warp|stalled' "$f" | head -n 60
  done
}
regression() {  # regression RUNS: examples/regression's test, then the example and torch_regression.py at each "chains:sweeps" ("chains:exact": -exact) of RUNS (ITERS, BURN)
  local r c block
  run regression-test bash -c 'cd examples/regression && ../../bin/examples/regression.test -test.v'
  for r in $1; do
    block="-sweeps ${r##*:}"
    [ "${r##*:}" = exact ] && block=-exact
    run "regression-${r%%:*}-${r##*:}" bin/regression -chains "${r%%:*}" $block -iters "${ITERS:-2000}" -burn "${BURN:-200}" -check
  done
  for c in $(for r in $1; do echo "${r%%:*}"; done | sort -un); do
    run "torch-$c" python3 examples/regression/torch_regression.py --chains "$c" --iters "${ITERS:-2000}" --burn "${BURN:-200}"
  done
}
regression_report() {  # regression_report: the example's reports and PyTorch's figures
  local f
  echo "== regression"
  for f in "$out"/regression-*.log; do echo "-- $(basename "$f" .log)"; cat "$f"; done
  for f in "$out"/torch-*.log; do echo "-- $(basename "$f" .log)"; grep -E '"(chains|wall_s|min_ess_beta|wall_s_per_ess_beta|cholesky_failures)"' "$f"; done
}
