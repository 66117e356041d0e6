package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// load runs the layers as jog server does: defaults, JOG_* variables
// (env), the command line (args), then the config file holding text (none
// when empty), then Validate.
func load(t *testing.T, text string, env map[string]string, args ...string) (Config, *Layers, error) {
	t.Helper()
	if text != "" {
		path := filepath.Join(t.TempDir(), "jog.toml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"--config", path}, args...)
	}
	c := Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	getenv := func(k string) string { return env[k] }
	c.BindFlags(fs, getenv)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	l, err := c.ApplyFile(fs, getenv)
	return c, l, errors.Join(err, l.Explain(c.Validate()))
}

// TestPrecedence: flag > JOG_* variable > config file > default, for
// settings of each kind (number, string, duration, boolean, rate), and
// Source names the layer that won.
func TestPrecedence(t *testing.T) {
	const file = `max-requests = 30
region = "file-region"
lifecycle-interval = "30m"
trust-forwarded-for = true
qos-read-capacity = "300MB/s"
`
	type want struct {
		maxRequests int
		region      string
		interval    time.Duration
		trust       bool
		read        Rate
		source      string // of max-requests
	}
	def := Default()
	for _, tc := range []struct {
		name string
		file string
		env  map[string]string
		args []string
		want want
	}{
		{"default", "", nil, nil, want{def.MaxRequests, def.Region, def.LifecycleInterval, false, 0, ""}},
		{"file over default", file, nil, nil, want{30, "file-region", 30 * time.Minute, true, 300e6, ":1"}},
		{"env over default", "", map[string]string{"JOG_MAX_REQUESTS": "20", "JOG_REGION": "env-region", "JOG_LIFECYCLE_INTERVAL": "20m", "JOG_TRUST_FORWARDED_FOR": "true", "JOG_QOS_READ_CAPACITY": "200MB/s"}, nil,
			want{20, "env-region", 20 * time.Minute, true, 200e6, "JOG_MAX_REQUESTS"}},
		{"env over file", file, map[string]string{"JOG_MAX_REQUESTS": "20", "JOG_REGION": "env-region", "JOG_LIFECYCLE_INTERVAL": "20m", "JOG_QOS_READ_CAPACITY": "200MB/s"}, nil,
			want{20, "env-region", 20 * time.Minute, true, 200e6, "JOG_MAX_REQUESTS"}},
		{"flag over file", file, nil, []string{"--max-requests", "10", "--region", "flag-region", "--lifecycle-interval", "10m", "--trust-forwarded-for=false", "--qos-read-capacity", "100MB/s"},
			want{10, "flag-region", 10 * time.Minute, false, 100e6, "--max-requests"}},
		{"flag over env over file", file, map[string]string{"JOG_MAX_REQUESTS": "20", "JOG_REGION": "env-region"}, []string{"--max-requests", "10"},
			want{10, "env-region", 30 * time.Minute, true, 300e6, "--max-requests"}},
		{"flag over default", "", nil, []string{"--max-requests", "10"}, want{10, def.Region, def.LifecycleInterval, false, 0, "--max-requests"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, l, err := load(t, tc.file, tc.env, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			got := want{c.MaxRequests, c.Region, c.LifecycleInterval, c.TrustForwardedFor, c.QoSReadCapacity, l.Source("max-requests")}
			if strings.HasPrefix(tc.want.source, ":") { // the file, at a line
				tc.want.source = c.ConfigFile + tc.want.source
			}
			if got != tc.want {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestConfigFromEnv: JOG_CONFIG names the file, like --config.
func TestConfigFromEnv(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jog.toml")
	if err := os.WriteFile(path, []byte("data-dir = \"/srv/jog\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, _, err := load(t, "", map[string]string{"JOG_CONFIG": path})
	if err != nil || c.DataDir != "/srv/jog" {
		t.Errorf("JOG_CONFIG: data dir %q, %v", c.DataDir, err)
	}
}

// TestFileErrors: each mistake in a file is reported with the file, the
// line and the key; all of them at once.
func TestFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		want       []string // each a regexp, "FILE" for the file's path
	}{
		{"unknown key", "addr = \":9000\"\n\n# comment\nbogus = 1\n", []string{`FILE:4: bogus: unknown key`}},
		{"snake case", "inline_max = 10\n", []string{`FILE:1: inline_max: unknown key, did you mean "inline-max"\?`}},
		{"not a setting", "print-config = true\nconfig = \"other.toml\"\n", []string{`FILE:1: print-config: unknown key`, `FILE:2: config: a config file cannot name another`}},
		{"table", "region = \"x\"\n[server]\naddr = \":9000\"\n", []string{`FILE:2: server: unknown key`}},
		{"wrong types", "max-requests = \"7\"\nregion = 5\ntrust-forwarded-for = \"yes\"\nlifecycle-day = 86400\nqos-read-capacity = 1.5\n",
			[]string{`FILE:1: max-requests: want an integer, got string "7"`, `FILE:2: region: want a string, got integer 5`,
				`FILE:3: trust-forwarded-for: want true or false, got string "yes"`, `FILE:4: lifecycle-day: want a duration as a string, e.g. "1h30m", got integer 86400`,
				`FILE:5: qos-read-capacity: want a string or an integer, got float 1.5`}},
		{"bad value", "\nlifecycle-day = \"a day\"\n", []string{`FILE:2: lifecycle-day: invalid value "a day": parse error`}},
		{"Validate", "addr = \":9000\"\ninline-max = 99999999\nlog-format = \"xml\"\n",
			[]string{`FILE:2: inline-max: --inline-max must be between`, `FILE:3: log-format: --log-format "xml": want text or json`}},
		{"all at once", "bogus = 1\nlog-format = \"xml\"\n", []string{`FILE:1: bogus: unknown key`, `FILE:2: log-format: --log-format "xml"`}},
		{"syntax", "addr = \":9000\"\nregion = us-east-1\n", []string{`FILE:2:\d+: `}},
		{"duplicate", "addr = \":9000\"\naddr = \":9001\"\n", []string{`FILE:2:\d+: .*addr`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, err := load(t, tc.file, nil)
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tc.want {
				re := regexp.MustCompile(strings.ReplaceAll(w, "FILE", regexp.QuoteMeta(c.ConfigFile)))
				if !re.MatchString(err.Error()) {
					t.Errorf("error\n%v\nwant %s", err, w)
				}
			}
		})
	}
	if _, _, err := load(t, "", nil, "--config", filepath.Join(t.TempDir(), "missing.toml")); err == nil || !strings.Contains(err.Error(), "--config") {
		t.Errorf("a missing file: %v", err)
	}
	// A Validate error about a setting the file did not set names no line.
	_, _, err := load(t, "region = \"x\"\n", nil, "--log-format", "xml")
	if err == nil || strings.Contains(err.Error(), ".toml:") {
		t.Errorf("a flag's error blamed on the file: %v", err)
	}
}

// TestFileNotAppliedUnderHigherLayer: a file value overridden by a flag
// or a variable does not touch the setting even when it would fail Set.
func TestFileKeyTypesCheckedUnderHigherLayer(t *testing.T) {
	_, _, err := load(t, "max-requests = \"many\"\n", nil, "--max-requests", "3")
	if err == nil || !strings.Contains(err.Error(), "max-requests: want an integer") {
		t.Errorf("a file value of the wrong type under a flag: %v", err)
	}
}

// TestPrintConfigRoundTrip: --print-config's output, read back as a
// config file, gives the same settings; a setting's source is noted.
func TestPrintConfigRoundTrip(t *testing.T) {
	c, l, err := load(t, "region = \"eu-west-3\"\n", map[string]string{"JOG_MAX_REQUESTS": "77"},
		"--lifecycle-interval", "90m", "--trust-forwarded-for", "--qos-write-capacity", "150MB/s", "--inline-max", "0")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := l.WriteTOML(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"region = \"eu-west-3\" # from " + c.ConfigFile + ":1", "max-requests = 77 # from JOG_MAX_REQUESTS",
		"lifecycle-interval = \"1h30m0s\" # from --lifecycle-interval", "trust-forwarded-for = true", "inline-max = 0", "\n# listen address",
		// Sizes and rates in units, read back exactly.
		"qos-write-capacity = \"150MB/s\" # from --qos-write-capacity", "bucket-log-spool-max = \"1GiB\"\n", "body-min-rate = \"1KiB/s\"\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	back, _, err := load(t, out.String(), nil)
	if err != nil {
		t.Fatalf("printed config does not load: %v\n%s", err, out.String())
	}
	back.ConfigFile, c.ConfigFile = "", ""
	back.table, c.table = nil, nil
	back.layers, c.layers = nil, nil
	if !equalConfig(back, c) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back, c)
	}
}

func equalConfig(a, b Config) bool {
	a.envErrs, b.envErrs = nil, nil
	return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b)
}

// TestSecretsMasked: --print-config never shows a secret. Every string
// setting gets a distinct value; a setting whose usage speaks of a secret,
// a password or a token must not show its value, whatever its name (so a
// new secret row not marked secret in the settings table fails here), and
// the others must show theirs.
func TestSecretsMasked(t *testing.T) {
	c := Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	c.BindFlags(fs, func(string) string { return "" })
	secretUsage := regexp.MustCompile(`(?i)secret|password|token|credential`)
	values := map[string]string{} // flag → the part of its value that must (not) show
	var args []string
	fs.VisitAll(func(f *flag.Flag) {
		if _, ok := f.Value.(flag.Getter); !ok || f.Name == fileFlag {
			return
		}
		if _, isString := f.Value.(flag.Getter).Get().(string); !isString {
			return
		}
		mark := "value-of-" + f.Name
		v := mark
		if strings.Contains(strings.ToLower(f.Usage), "password") {
			mark = "pw-of-" + f.Name
			v = "postgres://user:" + mark + "@db.example/jog"
		}
		values[f.Name] = mark
		args = append(args, "--"+f.Name, v)
	})
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	l, err := c.ApplyFile(fs, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := l.WriteTOML(&out); err != nil {
		t.Fatal(err)
	}
	secrets := 0
	for name, mark := range values {
		usage := strings.SplitN(fs.Lookup(name).Usage, " (env ", 2)[0]
		shown := strings.Contains(out.String(), mark)
		switch {
		case secretUsage.MatchString(usage) && shown:
			t.Errorf("--%s (%s): its secret %q is printed", name, usage, mark)
		case secretUsage.MatchString(usage):
			secrets++
		case !shown:
			t.Errorf("--%s is not secret, yet %q is not printed", name, mark)
		}
	}
	if secrets < 2 { // secret-key and meta at least
		t.Errorf("only %d secret settings checked", secrets)
	}
	if !strings.Contains(out.String(), "# secret-key = \"xxxxx\" # masked, from --secret-key") {
		t.Errorf("secret-key not masked and commented out:\n%s", out.String())
	}
}

// TestEverySettingIsAKey: each setting BindFlags registers is a file key,
// and BindFlags' order is kept by --print-config.
func TestEverySettingIsAKey(t *testing.T) {
	c := Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	c.BindFlags(fs, func(string) string { return "" })
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	keys := 0
	for _, s := range c.table {
		if s.name != "" {
			keys++
		}
	}
	if keys != n {
		t.Errorf("BindFlags registered %d flags but the table lists %d settings with a flag: add a flag as a row of the settings table", n, keys)
	}
}

// TestSecretsInArgv: the flags of the command line that carry a secret,
// by the setting's name or a password in a connection string; the same
// values from the environment or the file are not listed.
func TestSecretsInArgv(t *testing.T) {
	_, l, _ := load(t, "metrics-token = \"from-file\"\n", map[string]string{"JOG_NOTIFY_WEBHOOK_TOKEN": "w=from-env"},
		"--meta", "host=db user=jog password=pw dbname=jog", "--access-key", "AKID", "--secret-key", "secret-secret",
		"--notify-nats", "n=nats://u:pw@nats:4222/events", "--notify-webhook", "w=http://hook/in", "--region", "password-less")
	if got, want := strings.Join(l.SecretsInArgv(), " "), "--meta --secret-key --notify-nats"; got != want {
		t.Errorf("SecretsInArgv = %q, want %q", got, want)
	}
	_, l, _ = load(t, "", nil, "--meta", "postgres://jog@db/jog")
	if got := l.SecretsInArgv(); len(got) != 0 {
		t.Errorf("a password-less --meta: SecretsInArgv = %q", got)
	}
}
