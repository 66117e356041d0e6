package bucketrepl

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/iam/keyring"
)

func TestParseTarget(t *testing.T) {
	for spec, want := range map[string]Target{
		"dr=https://backup.example.com:9000":         {Name: "dr", Endpoint: "https://backup.example.com:9000"},
		"dr-2=http://10.0.0.2:9000/archive/":         {Name: "dr-2", Endpoint: "http://10.0.0.2:9000", Bucket: "archive"},
		"aws=https://s3.eu-west-1.amazonaws.com/b-1": {Name: "aws", Endpoint: "https://s3.eu-west-1.amazonaws.com", Bucket: "b-1"},
	} {
		got, err := ParseTarget(spec)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", spec, got, err, want)
		}
	}
	for _, spec := range []string{
		"https://host", "=https://host", "DR=https://host", "d_r=https://host", "dr=ftp://host", "dr=https://",
		"dr=https://key:secret@host", "dr=https://host/a/b", "dr=https://host/B", "dr=https://host?x=1", "dr=host:9000",
	} {
		if _, err := ParseTarget(spec); err == nil {
			t.Errorf("ParseTarget(%q) accepted", spec)
		}
	}
	if _, err := ParseTargets([]string{"a=http://h1", "a=http://h2"}); err == nil {
		t.Error("a name given twice accepted")
	}
}

func TestResolve(t *testing.T) {
	ts, err := ParseTargets([]string{"any=http://h1:9000", "arch=http://h2:9000/archive", "arch2=http://h3:9000/archive", "logs=http://h4:9000/logs"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		arn, target, bucket string
		refused             string // part of the refusal's message
	}{
		{arn: "arn:aws:s3:::logs", target: "logs", bucket: "logs"},    // the target naming the bucket
		{arn: "arn:aws:s3:::photos", target: "any", bucket: "photos"}, // the one target naming none
		{arn: "arn:aws:s3:::archive", refused: "more than one"},       // two name it
		{arn: "arn:jog:replication::arch2:archive", target: "arch2", bucket: "archive"},
		{arn: "arn:jog:replication::any:logs", target: "any", bucket: "logs"}, // named: no ambiguity
		{arn: "arn:jog:replication::logs:other", refused: "serves bucket logs alone"},
		{arn: "arn:jog:replication::nope:b12", refused: "any (http://h1:9000), arch (http://h2:9000/archive)"},
	} {
		tg, bucket, err := ts.Resolve(c.arn)
		switch {
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || code(err) != "InvalidRequest"):
			t.Errorf("Resolve(%s) = %s %s %v, want a refusal with %q", c.arn, tg.Name, bucket, err, c.refused)
		case c.refused == "" && (err != nil || tg.Name != c.target || bucket != c.bucket):
			t.Errorf("Resolve(%s) = %s %s %v, want %s %s", c.arn, tg.Name, bucket, err, c.target, c.bucket)
		}
	}
	// Without a target that serves any bucket, an unnamed bucket is refused.
	if _, _, err := ts[1:].Resolve("arn:aws:s3:::photos"); err == nil || !strings.Contains(err.Error(), "served by no replication target") {
		t.Errorf("unserved bucket: %v", err)
	}
	if _, _, err := Targets(nil).Resolve("arn:aws:s3:::photos"); err == nil || !strings.Contains(err.Error(), "--replication-target") {
		t.Errorf("no targets: %v", err)
	}
}

func TestBindRecordsTargets(t *testing.T) {
	ts, _ := ParseTargets([]string{"dr=http://h1:9000"})
	c, err := ParseXML(doc(v2("a", 1, "", "")))
	if err != nil {
		t.Fatal(err)
	}
	if err := ts.Bind(&c); err != nil {
		t.Fatal(err)
	}
	if d := c.Rules[0].Destination; d.Target != "dr" || d.TargetBucket != "dst" {
		t.Errorf("bound %+v", d)
	}
	if err := Targets(nil).Bind(&c); err == nil {
		t.Error("Bind without targets accepted")
	}
}

// TestTargetShowsNoSecret: neither fmt nor a JSON or text log shows a
// target's secret key.
func TestTargetShowsNoSecret(t *testing.T) {
	tg := Target{Name: "dr", Endpoint: "http://h", AccessKey: "AK", SecretKey: keyring.NewSecret("SUPERSECRET")}
	if s := tg.String(); s != "dr=http://h" {
		t.Errorf("String() = %q", s)
	}
	var out bytes.Buffer
	for _, log := range []*slog.Logger{slog.New(slog.NewJSONHandler(&out, nil)), slog.New(slog.NewTextHandler(&out, nil))} {
		log.Info("targets", "targets", Targets{tg}, "target", tg)
	}
	out.WriteString(fmt.Sprintf("%v %+v %#v %v %#v", tg, tg, tg, Targets{tg}, Targets{tg}))
	if strings.Contains(out.String(), "SUPERSECRET") || !strings.Contains(out.String(), "dr=http://h") {
		t.Errorf("shown: %s", out.String())
	}
}
