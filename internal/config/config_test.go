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
