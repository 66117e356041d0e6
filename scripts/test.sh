#!/usr/bin/env bash
# Runs every check and test JOG has: formatting, vet, staticcheck, errcheck,
# bodyclose and sqlclosecheck (internal/tools/lint), and the
# whole go test tree (unit tests, the metadata conformance suite, and the
# integration tests that drive a real server with aws-sdk-go-v2, minio-go and
# the AWS CLI). Usage: scripts/test.sh [extra go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go') 2>/dev/null || true)
if [ -n "$unformatted" ]; then
  echo "not gofmt-formatted:"; echo "$unformatted"; exit 1
fi

echo "== bench result links"
scripts/check-bench-links.sh

echo "== go vet"
go vet ./...

echo "== staticcheck"
go tool staticcheck ./...

echo "== lint (errcheck, bodyclose, sqlclosecheck: internal/tools/lint)"
go tool lint ./...

echo "== go test"
go test -count=1 -timeout 40m "$@" ./...
