package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServerConfigFile: jog server reads --config, --print-config prints
// the settings in effect (the secret from JOG_SECRET_KEY masked) and
// exits 0 without serving, and a bad file exits 2 naming its lines.
func TestServerConfigFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "jog.toml")
	text := "data-dir = \"" + filepath.Join(dir, "data") + "\"\naccess-key = \"AKIDFROMFILE\"\nmax-requests = 12\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("JOG_SECRET_KEY", "secret-from-env-123")
	var out, errs strings.Builder
	if code := Run(context.Background(), []string{"server", "--config", path, "--print-config", "--max-requests", "34"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, want := range []string{`access-key = "AKIDFROMFILE" # from ` + path + ":2", "max-requests = 34 # from --max-requests",
		`# secret-key = "xxxxx" # masked, from JOG_SECRET_KEY`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--print-config lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "secret-from-env-123") {
		t.Error("--print-config shows the secret key")
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err == nil {
		t.Error("--print-config opened the data dir")
	}

	if err := os.WriteFile(path, []byte(text+"fsync = \"sometimes\"\nmax_requests = 3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	errs.Reset()
	if code := Run(context.Background(), []string{"server", "--config", path}, &out, &errs); code != 2 {
		t.Errorf("a bad config file: exit %d, want 2", code)
	}
	for _, want := range []string{path + `:4: fsync: --fsync "sometimes"`, path + `:5: max_requests: unknown key, did you mean "max-requests"?`} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("errors lack %q:\n%s", want, errs.String())
		}
	}
}
