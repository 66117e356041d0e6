// Package golden compares test output with files under testdata/golden,
// or rewrites them when a test runs with -update: the one implementation
// of the golden tests of internal/s3api, internal/iamapi and internal/notify.
package golden

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Check compares got with testdata/golden/<name>.xml of the package under
// test, or writes the file when update is set. pkg names the package in
// the hint to rerun with -update.
func Check(t *testing.T, pkg, name string, got []byte, update bool) {
	t.Helper()
	CheckFile(t, pkg, name+".xml", got, update)
}

// CheckFile is Check for a file of any kind: testdata/golden/<file>.
func CheckFile(t *testing.T, pkg, file string, got []byte, update bool) {
	t.Helper()
	path := filepath.Join("testdata", "golden", file)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./%s -run Golden -update to create it)", err, pkg)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n got %s\nwant %s\n(if the change is meant, run go test ./%s -run Golden -update)", path, got, want, pkg)
	}
}
