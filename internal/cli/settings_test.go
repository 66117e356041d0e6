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

// TestHalfAKeyPair: a key pair given in half is refused naming what was
// given, its flag, variable or config-file key, and what is missing.
func TestHalfAKeyPair(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "jog.toml")
	if err := os.WriteFile(file, []byte("secret-key = \"secret-from-file\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{map[string]string{"JOG_SECRET_KEY": "secret-from-env"}, nil,
			"JOG_SECRET_KEY is set but no access key (--access-key or JOG_ACCESS_KEY): give both or neither"},
		{nil, []string{"--secret-key", "secret-from-flag"},
			"--secret-key is set but no access key (--access-key or JOG_ACCESS_KEY): give both or neither"},
		{nil, []string{"--config", file},
			"secret-key (" + file + ":1) is set but no access key (--access-key or JOG_ACCESS_KEY): give both or neither"},
		{map[string]string{"JOG_ACCESS_KEY": "AKIDENV"}, nil,
			"JOG_ACCESS_KEY is set but no secret key (--secret-key or JOG_SECRET_KEY): give both or neither"},
	} {
		t.Setenv("JOG_SECRET_KEY", tc.env["JOG_SECRET_KEY"])
		t.Setenv("JOG_ACCESS_KEY", tc.env["JOG_ACCESS_KEY"])
		args := append([]string{"server", "--data-dir", dir, "--print-config"}, tc.args...)
		var out, errs strings.Builder
		code := Run(context.Background(), args, &out, &errs)
		if code != 2 || !strings.Contains(errs.String(), tc.want) {
			t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tc.env, tc.args, code, errs.String(), tc.want)
		}
		if strings.Contains(errs.String(), "secret-from-") {
			t.Errorf("%v %v: the error shows the secret: %s", tc.env, tc.args, errs.String())
		}
	}
}
