package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateUsage: what jog migrate refuses before it touches anything.
func TestMigrateUsage(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", dir, "--from", "sqlite"}, "--from and --to are required"},
		{[]string{"--data-dir", dir, "--from", "sqlite", "--to", "sqlite"}, "the same store"},
		{[]string{"--data-dir", dir, "--from", "mysql://x", "--to", "sqlite"}, "unknown metadata store"},
		{[]string{"--data-dir", dir, "--from", "sqlite", "--to", "postgres://u:pw-secret@127.0.0.1:1/db"}, "source"},
	} {
		var out, errb bytes.Buffer
		code := Run(t.Context(), append([]string{"migrate"}, c.args...), &out, &errb)
		if code != migrateError || !strings.Contains(errb.String(), c.want) {
			t.Errorf("jog migrate %v: exit %d, stderr %q; want %d and %q", c.args, code, errb.String(), migrateError, c.want)
		}
		if strings.Contains(out.String()+errb.String(), "pw-secret") {
			t.Errorf("jog migrate %v printed the password", c.args)
		}
	}
	// The source store was not there: nothing was created in its place.
	if _, err := os.Stat(filepath.Join(dir, "jog.db")); err == nil {
		t.Errorf("a missing source made a jog.db")
	}
}
