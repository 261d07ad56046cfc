# hammer: `make load` races every mode, `make test` runs vet and the tests
# against real Redis and PostgreSQL. See README.md and docs/.

GO   ?= go
NPM  ?= npm
BIN  := bin/hammer
ARGS ?=

.PHONY: all build vendor-uplot release-check load gate gate-redlock gate-locks gate-repeat bench test test-race-cli test-short test-release test-tools fuzz vet services examples load-service gate-service up down clean cli-reference

all: build

## build: bin/hammer, stamped for `hammer version` with git describe's version, the commit and
## the build date (UTC); VERSION=, COMMIT= and DATE= override them
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/hammer

## vendor-uplot: re-fetch uPlot, which report.html draws its charts with, from the npm
## registry into report/html/uplot (UPLOT=VERSION; then update its NOTICE.md and uplot.go)
UPLOT ?= 1.6.32
vendor-uplot:
	./report/html/uplot/fetch.sh $(UPLOT)

## release-check: `goreleaser check` on .goreleaser.yaml, then a snapshot build of every release
## target into dist/, each binary checked static (CGO_ENABLED=0) and stamped
## (scripts/release-check.sh; goreleaser runs with go run at a pinned version, no install)
release-check:
	./scripts/release-check.sh

## services: install redis-server / PostgreSQL if missing (apt-get as root, else says what to install)
services:
	./scripts/ensure-services.sh

## load: race the default matrix; extra flags with ARGS="--procs 8"
load: build services
	./$(BIN) load $(ARGS)

## gate: the mode x fault matrix as an oversell regression gate; writes junit.xml
gate: build services
	./$(BIN) gate $(ARGS)

## gate-redlock: hammer's lock as a Redlock over 5 Redis nodes under the Redlock timelines
## (node-restart, clock-jump, pause); node-restart needs the local stack
gate-redlock: build services
	./$(BIN) gate --matrix scenarios/redlock.matrix --stack local $(ARGS)

## gate-locks: hammer's lock, redsync and bsm/redislock crossed with the faults (scenarios/locks.matrix)
## into results/gate-locks, then docs/gate.md's table of which lock survives which fault
## (scripts/locks-table.sh); exits non-zero when the gate did
gate-locks: build services
	rm -rf results/gate-locks
	./$(BIN) gate --matrix scenarios/locks.matrix --out results/gate-locks $(ARGS); code=$$?; \
	if [ -f results/gate-locks/summary.json ]; then echo; scripts/locks-table.sh results/gate-locks; fi; exit $$code

## gate-repeat: run the gate N times and check every run exits 0 with the same verdicts;
## HOG=2 runs two CPU busy loops beside it (a shared CI runner)
N ?= 20
gate-repeat: services
	./scripts/gate-repeat.sh $(N) $(ARGS)

## bench: hammer against its anchors (pgbench, a minimal Go race, redsync, bsm/redislock,
## redis-benchmark) on servers of its own; prints the ratios and goals (BENCHMARKS.md).
## ARGS="--rounds 5" passes flags through
bench: services
	./scripts/bench.sh $(ARGS)

vet:
	$(GO) vet ./...

## test-short: the edit-compile loop: go test -short, the pure packages and the fast tests; needs no
## Redis, PostgreSQL or browser (about 20 s here)
test-short:
	$(GO) test -short -count=1 ./...

## test: vet, then every test against real Redis, PostgreSQL, the example services (built first)
## and headless Chromium, each package under -race but cmd/hammer's end-to-end tests, which run
## beside them without it (scripts/test.sh); what is missing is installed (apt-get as root) or
## named, and the integration tests fail, never skip, without it; then, without -race (which makes
## frames larger), the guard of a lock waiter's stack size
test: services test-tools examples vet
	GO=$(GO) ./scripts/test.sh
	$(GO) test -count=1 -run '^TestLineWaitersFitTheirStack$$' ./internal/worker

## test-race-cli: cmd/hammer's end-to-end tests under the race detector (about 3.5 minutes here,
## set-up included); .ci/run runs it after make test
test-race-cli: services test-tools examples
	HAMMER_REQUIRE_SERVICES=1 $(GO) test -race -count=1 -timeout 20m ./cmd/hammer

## test-tools: install Node/npm, PHP (php-cli, php-pgsql, php-nrk-predis) and Chromium if missing (scripts/ensure-test-tools.sh)
test-tools:
	./scripts/ensure-test-tools.sh

## test-release: shipping: the release-tagged tests (hammer built as make build, the linker flags and
## the Action build it, stamped with the commit checked out), then release-check
test-release:
	$(GO) vet -tags release ./cmd/hammer
	$(GO) test -tags release -count=1 -run '^TestRelease' ./cmd/hammer
	./scripts/release-check.sh

## fuzz: run every Go fuzz target (scripts/fuzz.sh finds each func FuzzX) for FUZZTIME, one after
## another; FUZZFLAGS="-parallel 1" adds flags to each go test
FUZZTIME ?= 1m
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) ./scripts/fuzz.sh

## examples: build the example services hammer can race: examples/ticketd/bin/ticketd, and the npm
## packages of examples/ticketd-node and examples/ticketd-ts (npm ci, only when package-lock.json is
## newer than node_modules; hammer compiles ticketd-ts itself); examples/ticketd-php needs no build
examples: examples/ticketd-node/node_modules examples/ticketd-ts/node_modules
	cd examples/ticketd && $(GO) build -o bin/ticketd .

examples/ticketd-node/node_modules examples/ticketd-ts/node_modules: %/node_modules: %/package-lock.json
	cd $* && $(NPM) ci --no-audit --no-fund --ignore-scripts
	touch $@

## load-service: race every variant of an example service (your own service's target file) against
## its expectation: SERVICE=ticketd (Go, the default), ticketd-node, ticketd-ts or ticketd-php;
## extra flags with ARGS="--replicas 4"
SERVICE ?= ticketd
load-service: build services examples
	./$(BIN) load --target examples/$(SERVICE)/target.yaml $(ARGS)

## gate-service: the variant x fault matrix of examples/ticketd (examples/ticketd/gate.matrix),
## on a sale of 100 seats long enough for process faults to catch a replica inside a sale
SERVICE_GATE_SIZES ?= --procs 2 --goroutines 100 --seats 100
gate-service: build services examples
	./$(BIN) gate --target examples/ticketd/target.yaml --matrix examples/ticketd/gate.matrix $(SERVICE_GATE_SIZES) $(ARGS)

## cli-reference: regenerate docs/cli.md, the command-line reference, from the commands' own flag
## sets (hammer help --markdown); a test fails while the committed page is stale
cli-reference:
	$(GO) run ./cmd/hammer help --markdown > docs/cli.md.tmp && mv docs/cli.md.tmp docs/cli.md

## up/down: Redis and PostgreSQL in Docker, for --stack external (see docs/servers.md)
up:
	docker compose up -d --wait

down:
	docker compose down -v

clean:
	rm -rf bin dist examples/ticketd/bin examples/ticketd-ts/dist
