# Market Intelligence Service. `make run` and `make test` are all a fresh
# machine needs (see README.md).
GO        ?= go
BIN       := bin/mi
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
DATA_DIR   ?= ./data
# The two ports mi listens on; `make run HTTP_ADDR=:8081 KAFKA_ADDR=127.0.0.1:9093`
# moves both (a second instance, or a port taken by something else).
HTTP_ADDR  ?= :8080
KAFKA_ADDR ?= 127.0.0.1:9092

# DuckDB results reach Go as DuckDB's own Arrow record batches (duckdb-go's
# duckdb_arrow build tag). A plain `go build` still works: it reads results
# row by row into the same batches, more slowly (query/history/batches_*.go).
export GOFLAGS := $(GOFLAGS) -tags=duckdb_arrow

.PHONY: all build run demo test test-go test-race tools bench bench-pipeline proto fmt vet clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/mi

# Every role in one process on the embedded broker, API on :8080.
run: build
	./$(BIN) run --data-dir $(DATA_DIR) --http-addr $(HTTP_ADDR) --kafka-listen $(KAFKA_ADDR)

# The shared fixtures (real captures), beside the project.
FIXTURES  ?= ../shared/fixtures

# Offline demo: the seeded market simulator for trades, and the real
# captures of $(FIXTURES) replayed at the publishers' paths for news, SEC,
# rates and positioning (docs/demo.md). The captures are old: the news and
# positioning alerts take them although they were read long after
# publication.
demo: build
	./$(BIN) run --source sim --demo-publishers $(FIXTURES) --data-dir ./data-demo --http-addr $(HTTP_ADDR) \
		--kafka-listen $(KAFKA_ADDR) --dev-chain 127.0.0.1:8545 --news-retention 87600h --news-alert-max-age -1s \
		--sec-insiders-as-of 2022-06-01

# Installs the Debian tools the interoperability tests use when missing, then
# runs every test (unit, fuzz seeds, kill-and-restart, kcat, real data). One
# line per phase, then one per package as it finishes.
test:
	@echo "==> 1/4 tools: kcat, protoc, PostgreSQL, the npm clients (installed when missing)"
	@$(MAKE) --no-print-directory tools
	@echo "==> 2/4 go vet and gofmt"
	@$(MAKE) --no-print-directory vet
	@echo "==> 3/4 go test ./... (compiles first; the slowest packages, internal/e2e and query, take minutes)"
	$(GO) test -count=1 -timeout 20m ./...
	@echo "==> 4/4 go test ./query/history without the duckdb_arrow tag (the row-by-row fallback)"
	$(GO) test -count=1 -tags= ./query/history
	@echo "==> all tests passed"

test-race:
	$(GO) test -count=1 -race -timeout 20m ./operators/... ./pipeline/... ./sinks/... ./query/...

tools:
	@./scripts/install-tools.sh

vet:
	$(GO) vet ./...
	$(GO) vet -tags= ./query/history
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./operators/... ./pipeline/... ./sinks/... ./query/...

bench-pipeline: build
	./$(BIN) bench pipeline

# Every schemas/*.proto (one file per domain) into its committed .pb.go.
proto:
	cd schemas && protoc --go_out=. --go_opt=paths=source_relative *.proto

fmt:
	gofmt -w $$(git ls-files '*.go')

# Removes the binary and everything the README's tour creates (its data
# directories, including ./data of `make run`, and the export).
clean:
	rm -rf bin data data-demo data-replay data-pay data-hist export
