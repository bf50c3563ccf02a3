#!/usr/bin/env bash
# One device call for the exact-draw kernels (issue 28, runs 31 and 34):
# the bench's exact draws by each exact kernel and by the runtime's choice
# (PACKAGES, at BATCHES), the PyTorch peers, ncu of NCU_KERNEL
# (gibbs_exact_chain) at B=1M for NCU_PACKAGES, then the GPU suites
# (SUITES) of every test binary under bin/ and gibbsrt's. Everything is built on the
# development machine and carried as one archive (docs/CONTRIBUTING.md);
# this script only runs it. Its logs and JSON come back as $OUT/logs.tgz.
set -uo pipefail
out=${OUT:-/tmp}/logs
rm -rf "$out"
source "$(dirname "$0")/lib.sh"
bench_packages "${BATCHES:-4096,65536,1048576}" 1 20
PYTHONUNBUFFERED=1 run torch python3 bench/peers/torch_peers.py -json "$out/torch.json"
ncu_packages "out/gibbs32 out/gibbs64" "${NCU_KERNEL:-gibbs_exact_chain}" 1 1
suites=${SUITES:-'TestGPUMatrix$|TestGPUAPI$|TestGPUChains$'}
gpu_suites "$suites"
echo "== exact draws (µs a draw of every chain)"
grep -E "exact" "$out/bench.log"
echo "== torch"
tail -n 20 "$out/torch.log"
ncu_report
echo "== summary"
cat "$out/summary.txt"
tar czf "${OUT:-/tmp}/logs.tgz" -C "$out" . && rm -rf "$out"
exit $status
