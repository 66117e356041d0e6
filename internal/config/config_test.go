package config

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func parse(t *testing.T, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	c := Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs, func(k string) string { return env[k] })
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return c, c.Validate()
}

// TestEnvAndFlags: JOG_* variables set defaults, flags win over them, and
// a variable the setting cannot parse is an error, not silently ignored.
func TestEnvAndFlags(t *testing.T) {
	c, err := parse(t, map[string]string{"JOG_DATA_DIR": "/srv/jog", "JOG_MAX_REQUESTS": "7", "JOG_INLINE_MAX": "100"},
		"--inline-max", "200")
	if err != nil {
		t.Fatal(err)
	}
	if c.DataDir != "/srv/jog" || c.MaxRequests != 7 || c.InlineMax != 200 {
		t.Errorf("got data dir %q, max requests %d, inline max %d", c.DataDir, c.MaxRequests, c.InlineMax)
	}
	_, err = parse(t, map[string]string{"JOG_MAX_REQUESTS": "many"})
	if err == nil || !strings.Contains(err.Error(), "JOG_MAX_REQUESTS") {
		t.Errorf("an unparsable JOG_MAX_REQUESTS gave %v", err)
	}
	if _, err := parse(t, nil); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestMeta: --meta (JOG_META) defaults to sqlite and refuses a backend
// JOG cannot open, naming the ones it can.
func TestMeta(t *testing.T) {
	c, err := parse(t, nil)
	if err != nil || c.Meta != "sqlite" {
		t.Errorf("default meta %q, %v", c.Meta, err)
	}
	if c, err := parse(t, map[string]string{"JOG_META": "sqlite"}); err != nil || c.Meta != "sqlite" {
		t.Errorf("JOG_META=sqlite: %q, %v", c.Meta, err)
	}
	for _, env := range []map[string]string{{"JOG_META": "postgres"}, nil} {
		args := []string{"--meta", "postgres"}
		if env != nil {
			args = nil
		}
		_, err := parse(t, env, args...)
		if err == nil || !strings.Contains(err.Error(), `--meta "postgres": unknown metadata backend, want sqlite`) {
			t.Errorf("meta postgres (env %v, args %v): %v", env, args, err)
		}
	}
	if _, err := parse(t, nil, "--meta", ""); err == nil {
		t.Error("an empty --meta was accepted")
	}
}
