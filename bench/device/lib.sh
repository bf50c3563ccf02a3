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
