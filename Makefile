# The README's commands. `make test` is what CI runs (through .ci/run).

export AGNO_TEST_POSTGRES_DSN ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
GO ?= go

.PHONY: test test-deps vet build agno bench

## test: install test dependencies, then run every test with the race detector.
test: test-deps
	$(GO) test -race -count=1 -timeout 20m ./...

## test-deps: what the tests need beyond Go modules: the npm packages pinned
## in each testdata package.json (the MCP reference server, the MCP, A2A and
## AG-UI client SDKs).
NPM_DIRS := $(sort $(dir $(wildcard */testdata/package.json */*/testdata/package.json */*/*/testdata/package.json)))
test-deps:
	@for d in $(NPM_DIRS); do \
		(cd $$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; done

vet:
	$(GO) vet ./...

build:
	CGO_ENABLED=0 $(GO) build ./...

## agno: the agno binary, bin/agno. -tags grpcnotrace keeps grpc (linked
## for the OTLP exporter) from importing golang.org/x/net/trace, whose
## html/template use (like any text/template execution in the binary)
## makes the linker keep every exported method of every type. -s -w drop
## the symbol table and DWARF: a smaller file, the same resident memory;
## panics and pprof still name functions (pclntab stays), debuggers lose
## variables.
agno:
	CGO_ENABLED=0 $(GO) build -trimpath -tags grpcnotrace -ldflags='-s -w' -o bin/agno ./cmd/agno

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
