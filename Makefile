# shardsim: `make run` builds and runs the default scenario; `make test` runs every test.
# Only Go (1.25 or newer) and make are needed; modules come from the Go module proxy.

GO      ?= go
BIN     := bin/shardsim
OUT     ?= out
# The fuzz targets run briefly in CI (make fuzz: a count of executions each, below); their
# corpora under testdata/ also run as ordinary tests. FUZZTIME, when set, overrides the counts.
FUZZTIME ?=

# The binary is built with profile-guided optimization: go build uses cmd/shardsim/default.pgo
# by itself (make pgo remakes it). The benchmarks use the same profile, so they measure the
# code that users run.
PGO        := $(CURDIR)/cmd/shardsim/default.pgo
BENCHCOUNT ?= 5

.PHONY: all build run test test-long test-browser test-parquet vet fuzz bench pgo clean docs image validate-real validate-real-short validate-real-deps validate-predict

all: build

build:
	$(GO) build -o $(BIN) ./cmd/shardsim

# The default scenario (black-friday) into its own directory, out/black-friday, the one
# `shardsim run` picks without -o and the tour (docs/tour-black-friday.md) reads.
run: build
	./$(BIN) run -o $(OUT)/black-friday

# make test runs every package's tests in -short mode: the checks that simulate hundreds of
# millions of requests (the Black Friday tour's full run, the docs' capacity searches and
# sweeps), and the real-scenario repeats of checks that a cheaper test makes in -short (each
# skip names the test that does), are left to make test-long, which runs everything without
# -short; .ci/run runs both. TESTTIMEOUT fits a slow, busy machine (the default go test
# timeout, 10 minutes, did not: one package took 495 s with two other jobs beside it).
TESTTIMEOUT ?= 30m
#
# Every test binary is built with the same profile as the binary users run (-pgo): go test
# applies default.pgo by itself only to cmd/shardsim's tests, so the engine in the other
# packages' tests ran without it, 5 to 10% slower, and a cold cache compiled every package
# twice (with and without the profile). make docs passes it too, and so reuses what make
# test compiled (test-browser's -tags and the fuzz targets' instrumentation make builds of
# their own either way).
#
# go vet runs every analyzer first, so go test's own pass of a few of them is turned off
# (-vet=off): it took 1.5 s of CPU and could find nothing go vet had not.
#
# The packages whose tests take longest are named first: go test starts packages in the
# order given, and cmd/shardsim's alone is a third of the CPU. On a machine of two cores
# or fewer each test binary runs on one (-exec 'env GOMAXPROCS=1'; go test still runs two
# of them at once, and the compiler and linker keep every core): two test processes of two
# threads each on two cores took a tenth more CPU, part of it the garbage collector
# spinning on a thread the other process had off its core, part runs split over two engine
# workers on a machine already full. make test's wall time fell 13% (median of five
# interleaved pairs; docs/performance.md, "The test suite"). So on such a machine make test
# runs no run split by default and no two t.Parallel tests at once; make test-long, which
# CI also runs, keeps every core.
NPROC    := $(shell getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null)
TESTPKGS := ./cmd/shardsim ./scenarios ./sim ./runs/cluster ./report ./workload ./plots ./trace ./runs/capacity ./...
TESTEXEC := $(if $(filter 1 2,$(NPROC)),-exec 'env GOMAXPROCS=1',)
test:
	$(GO) mod download
	$(GO) vet ./...
	$(GO) test -short -count=1 -vet=off -pgo=$(PGO) $(TESTEXEC) -timeout $(TESTTIMEOUT) $(TESTPKGS)

test-long:
	$(GO) mod download
	$(GO) vet ./...
	$(GO) test -count=1 -vet=off -pgo=$(PGO) -timeout $(TESTTIMEOUT) ./...

# report.html in a real browser: headless Chromium (Debian's package, installed when
# missing) loads the reports of quickstart, black-friday and the hostile scenario
# (testdata/hostile), checks that every chart draws, that pointing at one shows a tooltip
# and that nothing reaches the console as an error, and saves a screenshot of each page as
# $(OUT)/browser/NAME.png; then it renders each report.md with the vendored marked
# (report/browser/marked) and checks that no value's script runs. Not part of make test.
BROWSERDIR := $(OUT)/browser
test-browser: build
	command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium; }
	./$(BIN) run quickstart -q --no-charts -o $(BROWSERDIR)/quickstart >/dev/null
	./$(BIN) run black-friday -q --no-charts -o $(BROWSERDIR)/black-friday >/dev/null
	./$(BIN) run testdata/hostile/scenario.toml -q --no-charts -o $(BROWSERDIR)/hostile >/dev/null
	SHARDSIM_BROWSER=1 SHARDSIM_BROWSER_DIR=$(CURDIR)/$(BROWSERDIR) $(GO) test -count=1 -tags browser -v -run '^TestReport(InBrowser|MarkdownInBrowser)$$' ./report/browser

# The Parquet series read by another reader: DuckDB, from npm's @duckdb/node-api (its binary
# ships in the package; the versions are pinned in testdata/parquet-reader's package-lock.json,
# installed into its node_modules), compared with the CSV of the same run cell for cell.
PARQUETDIR := $(OUT)/parquet
PARQUETREADER := testdata/parquet-reader
test-parquet: build
	command -v npm >/dev/null || { apt-get update && apt-get install -y nodejs npm; }
	cd $(PARQUETREADER) && npm ci --no-audit --no-fund >/dev/null
	rm -rf $(PARQUETDIR)
	./$(BIN) run quickstart -q --no-charts --no-html --series parquet -o $(PARQUETDIR)/parquet >/dev/null
	./$(BIN) run quickstart -q --no-charts --no-html --series csv -o $(PARQUETDIR)/csv >/dev/null
	node $(PARQUETREADER)/check.mjs $(PARQUETDIR)/parquet $(PARQUETDIR)/csv

# shardsim against real databases (docs/validation.md): Debian's postgresql and
# redis-server (installed with apt-get when missing), started in a temporary directory,
# driven by cmd/validate-real, stopped by pid. Exit status 2 when a server cannot start or
# a package cannot be installed. The full run rewrites docs/validation.md and its raw
# measurements docs/validation-data.json (several minutes); the short one, which CI runs,
# writes $(OUT)/validation-short.md and $(OUT)/validation-short-data.json (about a
# minute). pgbench (postgresql-client) and redis-benchmark (redis-tools) come with the
# packages. Not part of make test.
VALIDATE_PKGS := postgresql postgresql-client redis-server redis-tools
validate-real-deps:
	@command -v redis-server >/dev/null && command -v redis-cli >/dev/null && command -v redis-benchmark >/dev/null && command -v pgbench >/dev/null && ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ apt-get update && apt-get install -y --no-install-recommends $(VALIDATE_PKGS); } || \
		{ echo "validate-real: cannot install $(VALIDATE_PKGS) with apt-get (no network, or not root?): install them and run again" >&2; exit 2; }

validate-real: build validate-real-deps
	$(GO) build -o bin/validate-real ./cmd/validate-real
	./bin/validate-real -shardsim $(BIN) -o docs/validation.md

# The predictions again, from the measurements in docs/validation-data.json, with today's
# model and no server: for a model change, without a quiet machine's minutes.
validate-predict: build
	$(GO) build -o bin/validate-real ./cmd/validate-real
	./bin/validate-real -predict docs/validation-data.json -shardsim $(BIN) -o docs/validation.md

validate-real-short: build validate-real-deps
	$(GO) build -o bin/validate-real ./cmd/validate-real
	mkdir -p $(OUT)
	./bin/validate-real -short -shardsim $(BIN) -o $(OUT)/validation-short.md

# The docs' generated parts (console blocks, figures, excerpts, charts), rewritten from
# fresh runs by the tests that check them; read the diff before committing it. make test
# fails while they differ.
docs:
	SHARDSIM_UPDATE_DOCS=1 $(GO) test -count=1 -pgo=$(PGO) ./cmd/shardsim ./sim ./scenarios ./mechanisms/...
	$(GO) test -count=1 -pgo=$(PGO) -run '^TestCLIDoc$$' ./cmd/shardsim -update

# Each target with its number of executions (about five seconds each on a 2-core machine).
# The budget is a count, not a duration: go 1.26's fuzz coordinator can report its own
# -fuzztime deadline as a failure ("context deadline exceeded", go.dev/issue/75804) when a
# worker is mid-call as it expires, which a count never races. Minimizing a new input is held
# to FUZZMINIMIZE executions: go's default of 60 seconds let one interesting input hold a
# worker for the rest of the budget (FuzzMergeItem ran 16 inputs in 10 s; held to 200x, 11,926).
# FUZZTIME=30s (or 200000x) sets one budget for every target instead.
FUZZTARGETS := internal/tomlx:FuzzParseDecode:100000 scenarios:FuzzLoad:8000 scenarios:FuzzSet:5000 \
	scenario:FuzzKeyPart:100000 trace:FuzzReader:50000 runs/cluster:FuzzMergeItem:5000 cmd/shardsim:FuzzAnalyze:800
FUZZMINIMIZE ?= 200x
# Each target is fuzzed in its package; a target that is not there (moved with its code)
# fails the run, where go test alone would fuzz nothing and pass.
fuzz:
	@set -e; for t in $(FUZZTARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; budget=$${rest##*:}x; \
		if [ -n "$(FUZZTIME)" ]; then budget=$(FUZZTIME); fi; \
		$(GO) test -list "^$$fn\$$" ./$$pkg/ | grep -qx "$$fn" || { echo "fuzz: $$fn is not in ./$$pkg" >&2; exit 1; }; \
		echo "$(GO) test -run '^$$' -fuzz '^$$fn$$' -fuzztime $$budget -fuzzminimizetime $(FUZZMINIMIZE) ./$$pkg/"; \
		$(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $$budget -fuzzminimizetime $(FUZZMINIMIZE) ./$$pkg/; \
	done

# The engine benchmarks on one core, BENCHCOUNT times each, then their medians and the
# targets; then one run split among workers (sim.RunOn) on one and two cores, with the
# speed-up; then the generators' benchmarks.
bench: SHELL := /bin/bash
bench: .SHELLFLAGS := -o pipefail -c
bench:
	$(GO) test -pgo=$(PGO) -run '^$$' -bench . -skip SplitRun -benchmem -count $(BENCHCOUNT) -cpu 1 ./sim/ | awk -f testdata/bench/summary.awk
	$(GO) test -pgo=$(PGO) -run '^$$' -bench SplitRun -benchmem -count $(BENCHCOUNT) -cpu 1,2 ./sim/ | awk -f testdata/bench/summary.awk
	$(GO) test -pgo=$(PGO) -run '^$$' -bench . -benchmem -cpu 1 ./workload/ ./detect/

# Remakes the PGO profile from CPU profiles of the built-in scenarios and the two benchmark
# scenarios, run by a binary built without one.
PGODIR := $(OUT)/pgo
pgo:
	$(GO) build -pgo=off -o bin/shardsim-nopgo ./cmd/shardsim
	rm -rf $(PGODIR) && mkdir -p $(PGODIR)
	for s in black-friday celebrity iot-timeseries salt-buckets noisy-tenant flash-sale top-of-minute; do \
		./bin/shardsim-nopgo run $$s -q --no-charts -o $(PGODIR)/$$s --cpuprofile $(PGODIR)/$$s.pprof >/dev/null || exit 1; \
	done
	./bin/shardsim-nopgo run testdata/bench/hash12.toml --duration 300s -q --no-charts -o $(PGODIR)/hash12 --cpuprofile $(PGODIR)/hash12.pprof >/dev/null
	./bin/shardsim-nopgo run testdata/bench/scan120.toml --duration 600s -q --no-charts -o $(PGODIR)/scan120 --cpuprofile $(PGODIR)/scan120.pprof >/dev/null
	$(GO) tool pprof -proto $(PGODIR)/*.pprof > $(PGO).tmp && mv $(PGO).tmp $(PGO)

# The container image the cluster sweeps under deploy/ run (docker, or DOCKER=podman).
DOCKER ?= docker
IMAGE  ?= shardsim:latest
image:
	$(DOCKER) build -f deploy/Dockerfile --build-arg VERSION=$$(git describe --always --dirty 2>/dev/null || echo 0.1.0-dev) -t $(IMAGE) .

clean:
	rm -rf bin $(OUT)
