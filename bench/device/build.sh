#!/usr/bin/env bash
# Builds, on the development machine, what a device call carries: for each
# NAME:DIM[:f64] argument a package for sm_90 in bin/_NAME and its test
# binary bin/NAME.test, then the bench, all packed as dev/all.txz (bin/ and
# dev/ are git-ignored; docs/CONTRIBUTING.md). The packages hold the
# matrix form only (--strategy matrix), or with STRATEGY=default every
# strategy of their dim (the per-model kernel's among them).
# On the device: tar xJf dev/all.txz, then a script such as verify.sh.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/gibbsgen" ./cmd/gibbsgen
rm -rf bin && mkdir -p bin dev
for spec in "$@"; do
  IFS=: read -r name dim dt <<<"$spec"
  args=(--dim "$dim" --arch sm_90 --pkg "$name" --out "bin/_$name")
  [ "${STRATEGY:-matrix}" = default ] || args+=(--strategy "${STRATEGY:-matrix}")
  [ "${dt:-}" = f64 ] && args+=(--dtype float64)
  "$tmp/gibbsgen" "${args[@]}" >/dev/null
  CGO_ENABLED=0 go test -c -ldflags="-s -w" -o "bin/$name.test" "./bin/_$name"
done
CGO_ENABLED=0 go build -ldflags="-s -w" -o bin/gibbsbench ./bench
tar cJf dev/all.txz bin
ls -l dev/all.txz
