# gibbsgen. Every target installs what it needs first (.ci/setup).
GO ?= go
# Fuzz budget per target, as a count of executions: with a duration, Go
# 1.26's fuzz coordinator can fail a target with "context deadline exceeded"
# at the -fuzztime boundary without writing a crasher (golang/go#75804); a
# count has no deadline.
FUZZTIME ?= 2000x

.PHONY: setup generate resources test cross fuzz gpu-test-binaries gpu-test-large bench example

setup:
	bash .ci/setup

# The reference packages: out/gibbs32 (the default package), out/gibbs8 and
# out/gibbs64 (the benchmark's small and large shapes).
generate: setup
	$(GO) run ./cmd/gibbsgen --dim 32 --out out/gibbs32
	$(GO) run ./cmd/gibbsgen --dim 8 --out out/gibbs8
	$(GO) run ./cmd/gibbsgen --dim 64 --out out/gibbs64

# ptxas's resources for every package of the all-dims build, recorded in
# gen/testdata/resources: run it, and commit the records, after a change
# to the templates or to what gen renders (CI's spill check reads them for
# the dims it does not compile; gen/resources_test.go). It compiles the
# packages whose records are stale (GIBBSGEN_E2E=stale), for every
# default target: all 82 took 18 to 25 minutes on 2 cores;
# GIBBSGEN_E2E=all renews every record.
RESOURCES ?= stale
resources: setup
	GIBBSGEN_E2E=$(RESOURCES) $(GO) test -count=1 -timeout 150m -run '^TestEndToEnd$$' ./gen -update

# Everything CI checks; CI (.ci/run) sets GIBBSGEN_E2E=all, and gen's
# end-to-end test then compiles and tests 32 packages and spill-checks 50
# more from their records (past go test's default 10-minute limit). gen's
# tests also rebuild out/ with nvcc. staticcheck is pinned in tools/go.mod,
# a module of its own, so that its requirements stay out of go.mod.
test: setup
	test -z "$$(gofmt -l . | tee /dev/stderr)"
	$(GO) mod tidy -diff
	$(GO) -C tools mod tidy -diff
	$(GO) run ./gibbsrt/stream/internal/normalfit -check
	$(GO) vet ./...
	$(GO) tool -modfile=tools/go.mod staticcheck ./...
	$(MAKE) cross
	$(GO) test -count=1 -timeout 60m ./...
	$(GO) test -count=1 -race -run 'Concurrent' ./gibbsrt/...
	$(MAKE) fuzz

# The runtime and the reference packages build without cgo on every
# platform they support.
cross:
	@for os in linux darwin windows; do for arch in amd64 arm64; do \
		echo "cross: $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build ./gibbsrt/... ./internal/... ./out/... || exit 1; \
	done; done

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzSpecValidate$$' -fuzztime $(FUZZTIME) ./gen
	$(GO) test -run '^$$' -fuzz '^FuzzSetModel$$' -fuzztime $(FUZZTIME) ./gibbsrt

# Binaries for the GPU machine are stripped (-s -w): they travel to it, and
# the Go runtime keeps what panics need to name functions.
XLDFLAGS ?= -s -w

# Test binaries for a GPU machine (no Go toolchain needed there): run
# bin/gibbs8.test -test.v and bin/gibbs32.test -test.v on it.
# bin/gibbs12shared.test is a package generated with one strategy (sm_90
# only, so nvcc is quick): the runtime must load what a package has. Its
# directory starts with _ so that ./... patterns skip it.
gpu-test-binaries: setup
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/gibbs8.test ./out/gibbs8
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/gibbs32.test ./out/gibbs32
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/gibbs64.test ./out/gibbs64
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/gibbsrt.test ./gibbsrt
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/cuda.test ./internal/cuda
	$(GO) run ./cmd/gibbsgen --dim 12 --strategy shared --arch sm_90 --pkg gibbs12shared --out bin/_gibbs12shared
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/gibbs12shared.test ./bin/_gibbs12shared

# The large dims and float64 (issue 11), sm_90 only: packages for dims 65,
# 128, 256 and 1024 in both dtypes under bin/_gibbsN and bin/_gibbsNf64,
# and their test binaries; gibbsbench -packages loads the same directories.
LARGE_DIMS ?= 65 128 256 1024
gpu-test-large: setup
	@for d in $(LARGE_DIMS); do for t in float32 float64; do \
		p=gibbs$$d; [ $$t = float64 ] && p=gibbs$${d}f64; \
		$(GO) run ./cmd/gibbsgen --dim $$d --dtype $$t --arch sm_90 --pkg $$p --out bin/_$$p || exit 1; \
		CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/$$p.test ./bin/_$$p || exit 1; \
	done; done

# The benchmark (see bench/README.md): run bin/gibbsbench on a GPU machine.
bench:
	CGO_ENABLED=0 $(GO) build -ldflags="$(XLDFLAGS)" -o bin/gibbsbench ./bench

# The examples, for a GPU machine: bin/mvn -model testdata/ar1-8.mtx,
# bin/shard (examples/shard: one shard of a run, and the merge) and
# bin/probit (examples/probit: a probit regression's posterior with a
# linear term per chain) and bin/regression (examples/regression: a linear
# regression's posterior with a precision per chain; bin/examples/regression.test
# checks it against the twin bit for bit).
example:
	CGO_ENABLED=0 $(GO) build -ldflags="$(XLDFLAGS)" -o bin/mvn ./examples/mvn
	CGO_ENABLED=0 $(GO) build -ldflags="$(XLDFLAGS)" -o bin/shard ./examples/shard
	CGO_ENABLED=0 $(GO) build -ldflags="$(XLDFLAGS)" -o bin/probit ./examples/probit
	CGO_ENABLED=0 $(GO) build -ldflags="$(XLDFLAGS)" -o bin/regression ./examples/regression
	CGO_ENABLED=0 $(GO) test -c -ldflags="$(XLDFLAGS)" -o bin/examples/regression.test ./examples/regression
