package config

import (
	"flag"
	"io"
	"strings"
	"testing"
)

// TestMetaPostgres: --meta takes a PostgreSQL URL (postgres:// or
// postgresql://) or a libpq key=value string; a URL that does not parse
// is refused without showing its password.
func TestMetaPostgres(t *testing.T) {
	for _, tc := range []struct {
		meta, backend string
		ok            bool
	}{
		{"sqlite", "sqlite", true},
		{"postgres://jog:pw@db.example:5432/jog?sslmode=require", "postgres", true},
		{"postgresql://db.example/jog", "postgres", true},
		{"postgres:///jog?host=/run/postgresql", "postgres", true},
		{"host=db.example dbname=jog user=jog password='a b'", "postgres", true},
		{" dbname = jog", "postgres", true},
		{"postgres", "", false},
		{"mysql://db/jog", "", false},
		{"db.example:5432", "", false},
		{"", "", false},
	} {
		if got := MetaBackend(tc.meta); got != tc.backend {
			t.Errorf("MetaBackend(%q) = %q, want %q", tc.meta, got, tc.backend)
		}
		_, err := parse(t, nil, "--meta", tc.meta)
		if (err == nil) != tc.ok {
			t.Errorf("--meta %q: %v, want ok %v", tc.meta, err, tc.ok)
		}
	}
	_, err := parse(t, nil, "--meta", "postgres://jog:s3cr%2Ft@db.example:port/jog")
	if err == nil || !strings.Contains(err.Error(), "not a valid URL") {
		t.Errorf("a URL with a bad port: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "s3cr") {
		t.Errorf("the error shows the password: %v", err)
	}
}

// TestRedactMeta: every form of password is hidden, and nothing else.
func TestRedactMeta(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sqlite", "sqlite"},
		{"postgres://jog:s3cret@db:5432/jog", "postgres://jog:xxxxx@db:5432/jog"},
		{"postgres://jog@db/jog", "postgres://jog@db/jog"},
		{"postgres://db:5432/jog", "postgres://db:5432/jog"},
		{"postgresql://jog:p%40ss@db/jog?sslmode=disable", "postgresql://jog:xxxxx@db/jog?sslmode=disable"},
		{"postgres://jog:p@ss@db/jog", "postgres://jog:xxxxx@db/jog"},
		{"postgres:///jog?user=jog&password=s3cret&sslmode=disable", "postgres:///jog?user=jog&password=xxxxx&sslmode=disable"},
		{"host=db password=s3cret dbname=jog", "host=db password=xxxxx dbname=jog"},
		{"host=db password = 'it\\'s secret' dbname=jog", "host=db password = xxxxx dbname=jog"},
		{"host=db PASSWORD=s3cret", "host=db PASSWORD=xxxxx"},
	} {
		if got := RedactMeta(tc.in); got != tc.want {
			t.Errorf("RedactMeta(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	meta := "postgres://jog:p%40ss@db/jog"
	msg := RedactIn(`connect to "postgres://jog:p%40ss@db/jog" as jog with password p@ss: refused`, meta)
	if strings.Contains(msg, "p@ss") || strings.Contains(msg, "p%40ss") {
		t.Errorf("RedactIn left the password: %s", msg)
	}
	msg = RedactIn("password 'it's secret' refused", "host=db password='it\\'s secret'")
	if strings.Contains(msg, "secret") {
		t.Errorf("RedactIn left a quoted password: %s", msg)
	}
}

// TestMetaHelpDefault: -h shows JOG_META's value as the default, without
// its password.
func TestMetaHelpDefault(t *testing.T) {
	c := Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs, func(k string) string {
		if k == "JOG_META" {
			return "postgres://jog:s3cret@db/jog"
		}
		return ""
	})
	if d := fs.Lookup("meta").DefValue; d != "postgres://jog:xxxxx@db/jog" {
		t.Errorf("-h default %q", d)
	}
	if c.Meta != "postgres://jog:s3cret@db/jog" {
		t.Errorf("Meta %q: the value itself must be kept", c.Meta)
	}
}
