package replication

import (
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "jog-replication-test-")
	if err != nil {
		panic(err)
	}
	binDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}
