# The README's commands. `make test` is what CI runs (through .ci/run).

export AGNO_TEST_POSTGRES_DSN ?= postgres://postgres@127.0.0.1:5432/test?sslmode=disable
GO ?= go

.PHONY: test test-deps vet build bench

## test: install test dependencies, then run every test with the race detector.
test: test-deps
	$(GO) test -race -count=1 ./...

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

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
