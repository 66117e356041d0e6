package fsck_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/fsck"
)

// TestObjectName: a key prints as it is, quoted only where its end or a
// byte would not show.
func TestObjectName(t *testing.T) {
	for key, want := range map[string]string{
		"photos/2026/small.bin": "b/photos/2026/small.bin",
		"été/ü.txt":             "b/été/ü.txt",
		"odd key":               `b/"odd key"`,
		"dir/line\n":            `b/"dir/line\n"`,
		"tab\there":             `b/"tab\there"`,
		`say "hi"`:              `b/"say \"hi\""`,
		"bad\xff":               `b/"bad\xff"`,
		"":                      `b/""`,
	} {
		if got := fsck.ObjectName("b", key); got != want {
			t.Errorf("ObjectName(b, %q) = %s, want %s", key, got, want)
		}
	}
	p := fsck.Problem{Kind: fsck.Missing, Bucket: "photos", Key: "2026/small.bin", Detail: "blob file is missing"}
	if got, want := p.String(), "missing  photos/2026/small.bin: blob file is missing"; got != want {
		t.Errorf("Problem.String() = %q, want %q", got, want)
	}
}

// TestPostgresDataDir: a data dir with blobs but no jog.db, as gateways
// over PostgreSQL keep, is named as such, with the flag to pass (exit 2).
func TestPostgresDataDir(t *testing.T) {
	dir := t.TempDir()
	s, err := disk.OpenShared(dir) // what a gateway makes in its data dir
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	code, out, errOut := runCLI(t, "--data-dir", dir)
	if code != 2 || !strings.Contains(errOut, "PostgreSQL gateway's data dir") || !strings.Contains(errOut, "--meta postgres://") {
		t.Errorf("fsck of a PostgreSQL gateway's data dir: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("jog fsck --data-dir %s: exit %d: %s", dir, code, errOut)
	// An empty dir is no data dir of any kind.
	code, _, errOut = runCLI(t, "--data-dir", filepath.Join(dir, "tmp"))
	if code != 2 || strings.Contains(errOut, "PostgreSQL") || !strings.Contains(errOut, "not a jog data dir") {
		t.Errorf("fsck of an empty dir: exit %d, %s", code, errOut)
	}
}
