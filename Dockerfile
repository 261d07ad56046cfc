# hammer with its own Redis and PostgreSQL. With no URLs given, hammer starts a
# throw-away redis-server and postgres inside the container (the local stack,
# the same Debian packages hammer is tested against) and removes them on exit:
#   docker build -t hammer .
#   docker run --rm hammer                      # = hammer gate
#   docker run --rm hammer run --mode none      # any hammer command
#   docker run --rm -v hammer-results:/work/results hammer gate --out results/gate
# External servers instead: -e HAMMER_REDIS_URL=redis://… -e HAMMER_PG_URL=postgres://…
# hammer runs as the unprivileged user hammer (uid 10001), as PostgreSQL
# requires; results land in /work/results, which that user owns.
# This file was not built where hammer is developed (no Docker engine there);
# see docs/install.md, "Docker image", for what was checked instead.

# The builder's Go is go.mod's (a test checks the tag against go.mod).
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Stamp for `hammer version`: docker build --build-arg VERSION=$(git describe
# --tags --always --dirty) --build-arg COMMIT=$(git rev-parse HEAD) .
# (.git is not sent to the builder, so there is nothing to read them from).
ARG VERSION=unknown
ARG COMMIT=unknown
ARG DATE=
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${DATE}" \
      -o /out/hammer ./cmd/hammer

# bookworm: Redis 7.0 and PostgreSQL 15, as on the machine hammer's tests run on.
FROM debian:bookworm-slim
# No default cluster: hammer runs initdb itself, in a temporary directory.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/hammer.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      redis-server postgresql ca-certificates \
 && rm -rf /var/lib/apt/lists/*
# PostgreSQL refuses to run as root: hammer and its servers run as hammer.
RUN useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin hammer \
 && mkdir -p /work/results \
 && chown -R hammer:hammer /work
COPY --from=build /out/hammer /usr/local/bin/hammer
# Numeric, so that a pod with runAsNonRoot can tell it is not root.
USER 10001:10001
WORKDIR /work
# hammer's servers live under TMPDIR (/tmp) and die with hammer. Run with
# --init (or compose's init: true) so a tiny init reaps any orphan.
ENTRYPOINT ["hammer"]
CMD ["gate"]
