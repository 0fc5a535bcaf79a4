# shardsim: `make run` builds and runs the default scenario; `make test` runs every test.
# Only Go (1.24 or newer) and make are needed; modules come from the Go module proxy.

GO      ?= go
BIN     := bin/shardsim
OUT     ?= out
# The fuzz targets run briefly in CI; their corpora under testdata/ also run as ordinary tests.
FUZZTIME ?= 10s

.PHONY: all build run test vet fuzz bench clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/shardsim

run: build
	./$(BIN) run -o $(OUT)/default

test:
	$(GO) mod download
	$(GO) vet ./...
	$(GO) test -count=1 ./...

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzParseDecode$$' -fuzztime $(FUZZTIME) ./scenarios/internal/tomlx/
	$(GO) test -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) ./scenarios/
	$(GO) test -run '^$$' -fuzz '^FuzzKeyPart$$' -fuzztime $(FUZZTIME) ./scenarios/

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./sim/ ./workload/

clean:
	rm -rf bin $(OUT)
