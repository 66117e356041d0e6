package replicate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	for _, c := range []struct{ in, bucket, path, err string }{
		{"s3://backups/jog-1", "backups", "jog-1", ""},
		{"s3://backups/a/b/", "backups", "a/b", ""},
		{"s3://backups", "backups", "", ""},
		{"https://backups/jog", "", "", "want s3://"},
		{"s3:///jog", "", "", "want s3://"},
		{"s3://backups/jog?endpoint=x", "", "", "no user or query"},
		{"s3://key:secret@backups/jog", "", "", "no user or query"},
	} {
		b, p, err := ParseURL(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseURL(%q) = %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || b != c.bucket || p != c.path {
			t.Errorf("ParseURL(%q) = %q, %q, %v; want %q, %q", c.in, b, p, err, c.bucket, c.path)
		}
	}
}

func TestTargetValidate(t *testing.T) {
	ok := Target{URL: "s3://b/p", Endpoint: "http://127.0.0.1:9000", AccessKey: "k", SecretKey: "s"}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]Target{
		"key without secret": {URL: "s3://b/p", AccessKey: "k"},
		"endpoint scheme":    {URL: "s3://b/p", Endpoint: "127.0.0.1:9000"},
		"url":                {URL: "b/p"},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, bad)
		}
	}
}

// TestRestoreRefusesExisting: without Replace a database or a WAL at the
// path is never touched, and nothing is contacted.
func TestRestoreRefusesExisting(t *testing.T) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		dir := t.TempDir()
		db := filepath.Join(dir, "jog.db")
		if err := os.WriteFile(db+suffix, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		// An endpoint nothing listens on: reaching it would fail otherwise.
		target := Target{URL: "s3://b/p", Endpoint: "http://127.0.0.1:1"}
		err := Restore(t.Context(), db, target, RestoreOptions{}, nil)
		if !errors.Is(err, ErrExists) {
			t.Errorf("%q there: Restore = %v, want ErrExists", "jog.db"+suffix, err)
		}
		if b, _ := os.ReadFile(db + suffix); string(b) != "old" {
			t.Errorf("%q changed", "jog.db"+suffix)
		}
	}
}

// TestCABundle: AWS_CA_BUNDLE, which Litestream's S3 client cannot take,
// is hidden from it: an http:// endpoint's client starts whatever the
// variable names; for an https:// endpoint a bundle that cannot be read
// or holds no certificate is an error naming the variable. The variable
// is set again after.
func TestCABundle(t *testing.T) {
	bundle := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(bundle, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		bundle, endpoint, want string
	}{
		{bundle, "http://127.0.0.1:1", ""},
		{bundle + ".missing", "http://127.0.0.1:1", ""},
		{bundle, "https://127.0.0.1:1", "AWS_CA_BUNDLE=" + bundle + ": no PEM certificate"},
		{bundle + ".missing", "https://127.0.0.1:1", "AWS_CA_BUNDLE: open " + bundle + ".missing"},
	} {
		t.Setenv("AWS_CA_BUNDLE", tc.bundle)
		target := Target{URL: "s3://b/p", Endpoint: tc.endpoint, Region: "us-east-1"}
		c, err := target.client()
		if err != nil {
			t.Fatal(err)
		}
		err = initClient(t.Context(), c, target)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || !strings.Contains(got, tc.want) {
			t.Errorf("AWS_CA_BUNDLE=%s, endpoint %s: %v, want %q", tc.bundle, tc.endpoint, err, tc.want)
		}
		if v := os.Getenv("AWS_CA_BUNDLE"); v != tc.bundle {
			t.Errorf("AWS_CA_BUNDLE after: %q, want %q", v, tc.bundle)
		}
	}
}
