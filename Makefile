# The few targets people use. `make test` is what CI runs.
.PHONY: build test test-short run clean static release image

# A build stamped as a release is (`jog version` names its commit), not
# stripped, not static.
build:
	go build -ldflags '$(STAMP)' -o bin/jog ./cmd/jog

test:
	scripts/test.sh

test-short:
	go test -short -count=1 ./...

run: build
	bin/jog server

clean:
	rm -rf bin dist

# Release builds: static binaries (CGO_ENABLED=0: the SQLite driver is pure
# Go), -trimpath, stamped with the version, commit and commit date
# (`jog version`). Override VERSION, COMMIT and DATE where there is no git
# (the Docker build passes them as build arguments).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell git log -1 --format=%cI 2>/dev/null)
CLI     := github.com/jogstore/jog/internal/cli
STAMP   := -X $(CLI).Version=$(VERSION) -X $(CLI).Commit=$(COMMIT) -X $(CLI).Date=$(DATE)
LDFLAGS := -s -w $(STAMP)
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
OUT     ?= bin/jog

# One static binary for GOOS/GOARCH (default: this machine) at OUT; the
# step `make release` repeats per platform and the Dockerfile runs.
static:
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o $(OUT) ./cmd/jog

# dist/jog-VERSION-OS-ARCH for every platform, and dist/SHA256SUMS.
release:
	rm -rf dist
	for p in $(PLATFORMS); do \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(MAKE) --no-print-directory static \
			OUT=dist/jog-$(VERSION)-$${p%/*}-$${p#*/} VERSION=$(VERSION) COMMIT=$(COMMIT) DATE=$(DATE) || exit 1; \
	done
	cd dist && sha256sum jog-* > SHA256SUMS

# The container image (Dockerfile), stamped like a release.
image:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) --build-arg DATE=$(DATE) -t jog:$(VERSION) .
