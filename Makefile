# The few targets people use. `make test` is what CI runs.
.PHONY: build test test-short run clean

build:
	go build -o bin/jog ./cmd/jog

test:
	scripts/test.sh

test-short:
	go test -short -count=1 ./...

run: build
	bin/jog server

clean:
	rm -rf bin
