package config

import (
	"encoding/base64"
	"flag"
	"io"
	"strings"
	"testing"
	"time"
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

// TestLifecycleSettings: durations from flags and JOG_* variables; a day
// must be positive, an interval of 0 turns the worker off.
func TestLifecycleSettings(t *testing.T) {
	c, err := parse(t, map[string]string{"JOG_LIFECYCLE_DAY": "2s"}, "--lifecycle-interval", "0")
	if err != nil {
		t.Fatal(err)
	}
	if c.LifecycleDay != 2*time.Second || c.LifecycleInterval != 0 {
		t.Errorf("day %v, interval %v", c.LifecycleDay, c.LifecycleInterval)
	}
	if d := Default(); d.LifecycleDay != 24*time.Hour || d.LifecycleInterval != time.Hour {
		t.Errorf("defaults: day %v, interval %v", d.LifecycleDay, d.LifecycleInterval)
	}
	for _, args := range [][]string{{"--lifecycle-day", "0s"}, {"--lifecycle-interval", "-1s"}} {
		if _, err := parse(t, nil, args...); err == nil || !strings.Contains(err.Error(), "lifecycle") {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, err := parse(t, map[string]string{"JOG_LIFECYCLE_DAY": "a day"}); err == nil {
		t.Error("an unparsable JOG_LIFECYCLE_DAY was accepted")
	}
}

// TestIAMKey: JOG_IAM_KEY reaches the config, is checked, and has no flag
// (a flag's value shows in a process listing).
func TestIAMKey(t *testing.T) {
	key := base64.StdEncoding.EncodeToString(make([]byte, 32))
	c, err := parse(t, map[string]string{"JOG_IAM_KEY": key})
	if err != nil || c.IAMKey != key {
		t.Fatalf("IAMKey = %q, %v; want %q", c.IAMKey, err, key)
	}
	for _, bad := range []string{"not base64", base64.StdEncoding.EncodeToString(make([]byte, 16))} {
		_, err = parse(t, map[string]string{"JOG_IAM_KEY": bad})
		if err == nil || !strings.Contains(err.Error(), "JOG_IAM_KEY") {
			t.Errorf("JOG_IAM_KEY=%q gave %v", bad, err)
		}
	}
	c = Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	c.BindFlags(fs, func(string) string { return "" })
	fs.VisitAll(func(f *flag.Flag) {
		if strings.Contains(f.Name, "iam") && f.Name != "iam-bootstrap" {
			t.Errorf("flag --%s: the IAM key must have no flag", f.Name)
		}
	})
}

// TestQoSCapacity: the capacities take units and "/s", from flags or
// JOG_QOS_*; an unparsable one is an error.
func TestQoSCapacity(t *testing.T) {
	c, err := parse(t, map[string]string{"JOG_QOS_WRITE_CAPACITY": "150MB/s"}, "--qos-read-capacity", "300MiB")
	if err != nil {
		t.Fatal(err)
	}
	if c.QoSReadCapacity != 300<<20 || c.QoSWriteCapacity != 150e6 {
		t.Errorf("capacities %d, %d; want %d, %d", c.QoSReadCapacity, c.QoSWriteCapacity, 300<<20, 150_000_000)
	}
	if _, err := parse(t, map[string]string{"JOG_QOS_READ_CAPACITY": "fast"}); err == nil || !strings.Contains(err.Error(), "JOG_QOS_READ_CAPACITY") {
		t.Errorf("an unparsable JOG_QOS_READ_CAPACITY gave %v", err)
	}
}

// TestQoSRequestCapacity: --qos-request-capacity (JOG_QOS_REQUEST_CAPACITY)
// takes a whole number of requests per second, "/s" optional; units,
// fractions and negative numbers are refused, naming the setting.
func TestQoSRequestCapacity(t *testing.T) {
	c, err := parse(t, nil)
	if err != nil || c.QoSRequestCapacity != 0 {
		t.Errorf("default request capacity %d, %v; want 0", c.QoSRequestCapacity, err)
	}
	c, err = parse(t, map[string]string{"JOG_QOS_REQUEST_CAPACITY": "2000/s"})
	if err != nil || c.QoSRequestCapacity != 2000 {
		t.Errorf("JOG_QOS_REQUEST_CAPACITY=2000/s: %d, %v", c.QoSRequestCapacity, err)
	}
	c, err = parse(t, map[string]string{"JOG_QOS_REQUEST_CAPACITY": "2000"}, "--qos-request-capacity", "500")
	if err != nil || c.QoSRequestCapacity != 500 {
		t.Errorf("the flag over the environment: %d, %v; want 500", c.QoSRequestCapacity, err)
	}
	for _, bad := range []string{"-1", "2k", "1.5", "fast"} {
		if _, err := parse(t, map[string]string{"JOG_QOS_REQUEST_CAPACITY": bad}); err == nil || !strings.Contains(err.Error(), "JOG_QOS_REQUEST_CAPACITY") {
			t.Errorf("JOG_QOS_REQUEST_CAPACITY=%q gave %v", bad, err)
		}
	}
	c = Default()
	c.QoSRequestCapacity = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "--qos-request-capacity") {
		t.Errorf("a negative request capacity: %v", err)
	}
}

// TestLogSettings: the access log and bucket log flags, their defaults,
// their JOG_* variables and their checks.
func TestLogSettings(t *testing.T) {
	d := Default()
	if d.AccessLog != "" || d.AccessLogFormat != "json" || d.AccessLogSample != 1 || d.BucketLogInterval != 5*time.Minute ||
		d.BucketLogSpoolMax != 1<<30 {
		t.Errorf("defaults: %q %q %v %v %v", d.AccessLog, d.AccessLogFormat, d.AccessLogSample, d.BucketLogInterval, d.BucketLogSpoolMax)
	}
	c, err := parse(t, map[string]string{"JOG_ACCESS_LOG": "/var/log/jog/access.log", "JOG_ACCESS_LOG_SAMPLE": "0.25",
		"JOG_BUCKET_LOG_SPOOL_MAX": "64MiB"}, "--access-log-format", "text", "--bucket-log-interval", "30s")
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessLog != "/var/log/jog/access.log" || c.AccessLogFormat != "text" || c.AccessLogSample != 0.25 || c.BucketLogInterval != 30*time.Second ||
		c.BucketLogSpoolMax != 64<<20 {
		t.Errorf("parsed: %q %q %v %v %v", c.AccessLog, c.AccessLogFormat, c.AccessLogSample, c.BucketLogInterval, c.BucketLogSpoolMax)
	}
	for _, args := range [][]string{{"--access-log-format", "xml"}, {"--access-log-sample", "0"},
		{"--access-log-sample", "1.5"}, {"--bucket-log-interval", "0s"}, {"--bucket-log-spool-max", "1KiB"}} {
		if _, err := parse(t, nil, args...); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: %v", args, err)
		}
	}
	if _, err := parse(t, map[string]string{"JOG_ACCESS_LOG_SAMPLE": "most"}); err == nil {
		t.Error("an unparsable JOG_ACCESS_LOG_SAMPLE was accepted")
	}
}

// TestSlowBodySettings: --body-idle-timeout, --body-min-rate and
// --anonymous-share, their defaults, their JOG_* variables, their checks,
// and the anonymous bound they give.
func TestSlowBodySettings(t *testing.T) {
	d := Default()
	if d.BodyIdleTimeout != 20*time.Second || d.BodyMinRate != 1024 || d.AnonymousShare != 0.25 || d.MaxAnonymousRequests() != 256 {
		t.Errorf("defaults: %v %d %v (%d requests)", d.BodyIdleTimeout, d.BodyMinRate, d.AnonymousShare, d.MaxAnonymousRequests())
	}
	c, err := parse(t, map[string]string{"JOG_BODY_MIN_RATE": "4KiB/s", "JOG_ANONYMOUS_SHARE": "0.1"},
		"--body-idle-timeout", "5s", "--max-requests", "15")
	if err != nil {
		t.Fatal(err)
	}
	if c.BodyIdleTimeout != 5*time.Second || c.BodyMinRate != 4096 || c.MaxAnonymousRequests() != 2 {
		t.Errorf("parsed: %v %d, %d anonymous requests of 15; want 5s 4096 2", c.BodyIdleTimeout, c.BodyMinRate, c.MaxAnonymousRequests())
	}
	if c, err := parse(t, nil, "--max-requests", "0"); err != nil || c.MaxAnonymousRequests() != 0 {
		t.Errorf("no request bound: %d anonymous requests, %v; want no bound either", c.MaxAnonymousRequests(), err)
	}
	if c, err := parse(t, nil, "--max-requests", "2", "--anonymous-share", "0.01"); err != nil || c.MaxAnonymousRequests() != 1 {
		t.Errorf("a share under one request: %d, %v; want 1", c.MaxAnonymousRequests(), err)
	}
	if _, err := parse(t, nil, "--body-idle-timeout", "0", "--body-min-rate", "0"); err != nil {
		t.Errorf("both off: %v", err)
	}
	for _, args := range [][]string{{"--anonymous-share", "0"}, {"--anonymous-share", "1.5"},
		{"--body-idle-timeout", "-1s"}, {"--body-idle-timeout", "0"}} {
		if _, err := parse(t, nil, args...); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestDefaultObjectOwnership: --default-object-ownership
// (JOG_DEFAULT_OBJECT_OWNERSHIP) is BucketOwnerEnforced unless set, takes
// S3's three settings by their exact names, and refuses anything else
// naming the three.
func TestDefaultObjectOwnership(t *testing.T) {
	c, err := parse(t, nil)
	if err != nil || c.DefaultObjectOwnership != "BucketOwnerEnforced" {
		t.Errorf("default %q, %v; want BucketOwnerEnforced", c.DefaultObjectOwnership, err)
	}
	for _, v := range []string{"ObjectWriter", "BucketOwnerPreferred", "BucketOwnerEnforced"} {
		if c, err := parse(t, nil, "--default-object-ownership", v); err != nil || c.DefaultObjectOwnership != v {
			t.Errorf("--default-object-ownership %s: %q, %v", v, c.DefaultObjectOwnership, err)
		}
	}
	if c, err := parse(t, map[string]string{"JOG_DEFAULT_OBJECT_OWNERSHIP": "ObjectWriter"}); err != nil || c.DefaultObjectOwnership != "ObjectWriter" {
		t.Errorf("JOG_DEFAULT_OBJECT_OWNERSHIP=ObjectWriter: %q, %v", c.DefaultObjectOwnership, err)
	}
	for _, bad := range []string{"objectwriter", "", "Public"} {
		_, err := parse(t, nil, "--default-object-ownership", bad)
		if err == nil || !strings.Contains(err.Error(), `--default-object-ownership "`+bad+`": want BucketOwnerEnforced, BucketOwnerPreferred, ObjectWriter`) {
			t.Errorf("--default-object-ownership %q gave %v", bad, err)
		}
	}
}
