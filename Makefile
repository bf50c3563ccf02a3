# gibbsgen. Every target installs what it needs first (.ci/setup).
GO ?= go
FUZZTIME ?= 10s

.PHONY: setup generate test fuzz gpu-test-binaries bench

setup:
	bash .ci/setup

# The reference packages: out/gibbs32 (the default package), out/gibbs8 and
# out/gibbs64 (the benchmark's small and large shapes).
generate: setup
	$(GO) run ./cmd/gibbsgen --dim 32 --out out/gibbs32
	$(GO) run ./cmd/gibbsgen --dim 8 --out out/gibbs8
	$(GO) run ./cmd/gibbsgen --dim 64 --out out/gibbs64

# Everything CI checks except the all-dimensions build (see .ci/run).
test: setup
	test -z "$$(gofmt -l . | tee /dev/stderr)"
	$(GO) vet ./...
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -race -run 'Concurrent' ./gibbsrt/...
	$(MAKE) fuzz

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzSpecValidate$$' -fuzztime $(FUZZTIME) ./gen
	$(GO) test -run '^$$' -fuzz '^FuzzSetModel$$' -fuzztime $(FUZZTIME) ./gibbsrt

# Test binaries for a GPU machine (no Go toolchain needed there): run
# bin/gibbs8.test -test.v and bin/gibbs32.test -test.v on it.
gpu-test-binaries:
	CGO_ENABLED=0 $(GO) test -c -o bin/gibbs8.test ./out/gibbs8
	CGO_ENABLED=0 $(GO) test -c -o bin/gibbs32.test ./out/gibbs32
	CGO_ENABLED=0 $(GO) test -c -o bin/gibbs64.test ./out/gibbs64
	CGO_ENABLED=0 $(GO) test -c -o bin/gibbsrt.test ./gibbsrt

# The benchmark (see bench/README.md): run bin/gibbsbench on a GPU machine.
bench:
	CGO_ENABLED=0 $(GO) build -o bin/gibbsbench ./bench
