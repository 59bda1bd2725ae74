# The README's commands. `make test` is what CI runs (through .ci/run).

export AGNO_TEST_POSTGRES_DSN ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
GO ?= go

.PHONY: test test-deps vet build bench

## test: install test dependencies, then run every test with the race detector.
test: test-deps
	$(GO) test -race -count=1 ./...

## test-deps: what the tests need beyond Go modules (the MCP reference server from npm).
test-deps:
	@if [ -f tool/mcp/testdata/package.json ]; then \
		cd tool/mcp/testdata && npm ci --no-audit --no-fund --loglevel=error; fi

vet:
	$(GO) vet ./...

build:
	CGO_ENABLED=0 $(GO) build ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
