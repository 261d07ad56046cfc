# hammer: `make load` races every mode, `make test` runs vet and the tests
# against real Redis and PostgreSQL. See README.md.

GO   ?= go
BIN  := bin/hammer
ARGS ?=

.PHONY: all build load gate gate-repeat test vet services up down clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/hammer

## services: install redis-server / PostgreSQL if missing (apt-get as root, else says what to install)
services:
	./scripts/ensure-services.sh

## load: race the default matrix; extra flags with ARGS="--procs 8"
load: build services
	./$(BIN) load $(ARGS)

## gate: the mode x fault matrix as an oversell regression gate; writes junit.xml
gate: build services
	./$(BIN) gate $(ARGS)

## gate-repeat: run the gate N times and check every run exits 0 with the same verdicts;
## HOG=2 runs two CPU busy loops beside it (a shared CI runner)
N ?= 20
gate-repeat: services
	./scripts/gate-repeat.sh $(N) $(ARGS)

vet:
	$(GO) vet ./...

## test: vet, then every test with -race; integration tests fail (not skip) without services
test: services vet
	HAMMER_REQUIRE_SERVICES=1 $(GO) test -race -count=1 ./...

## up/down: Redis and PostgreSQL in Docker, for --stack external (see README)
up:
	docker compose up -d --wait

down:
	docker compose down -v

clean:
	rm -rf bin
