package testutil

import (
	"os"
	"strconv"
	"testing"
)

// EnvInt reads a non-negative integer setting of a long test from the
// environment (def when unset); anything else fails the test.
func EnvInt(t testing.TB, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a number", name, v)
	}
	return n
}
