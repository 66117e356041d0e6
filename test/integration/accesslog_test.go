package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"

	"github.com/jogstore/jog/internal/accesslog"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// accessLines reads the JSON lines of an access log file.
func accessLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("access log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// waitAccessLine waits (10 s at most) for path to hold the line of
// request id.
func waitAccessLine(t *testing.T, path, id string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		for _, m := range accessLines(t, path) {
			if m["id"] == id {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line of request %s in %s after 10 s", id, path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestAccessLogFile: `jog server --access-log FILE` writes a JSON line
// per request with its fields; after the file is renamed, SIGUSR1 makes
// the server write to a new file at the path (logrotate's postrotate).
func TestAccessLogFile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds jog")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "access.log")
	p := startJog(t, testutil.BuildJog(t, dir), filepath.Join(dir, "data"), "sqlite", "--fsync", "never",
		"--access-log", path, "--access-log-format", "json")
	defer p.stop(t)
	c := p.client(t)
	ctx := context.Background()
	itest.CreateBucket(t, c, "alog")
	put, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("alog"), Key: aws.String("k 1"), Body: strings.NewReader("twelve bytes")})
	putID := requestID(t, put.ResultMetadata, err)
	_, err = c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("alog"), Key: aws.String("nope")})
	missID := requestID(t, middleware.Metadata{}, err)

	for _, want := range []struct {
		id, op, key, code string
		status, in        float64
	}{{putID, "PutObject", "k 1", "", 200, 12}, {missID, "GetObject", "nope", "NoSuchKey", 404, 0}} {
		m := waitAccessLine(t, path, want.id)
		for _, f := range accesslog.Fields {
			if _, ok := m[f]; !ok {
				t.Errorf("line of %s has no %q: %v", want.op, f, m)
			}
		}
		if m["op"] != want.op || m["bucket"] != "alog" || m["key"] != want.key || m["status"] != want.status ||
			m["code"] != want.code || m["bytes_in"] != want.in || m["principal"] != "root" ||
			m["access_key"] != migAccess || !strings.HasPrefix(m["remote"].(string), "127.0.0.1:") {
			t.Errorf("line of %s: %v", want.op, m)
		}
		if _, err := time.Parse(time.RFC3339Nano, m["time"].(string)); err != nil {
			t.Errorf("time %v: %v", m["time"], err)
		}
		if m["duration_ms"].(float64) < m["ttfb_ms"].(float64) {
			t.Errorf("duration %v before first byte %v", m["duration_ms"], m["ttfb_ms"])
		}
	}
	if m := waitAccessLine(t, path, missID); m["bytes_out"].(float64) == 0 {
		t.Errorf("an error's body: %v bytes", m["bytes_out"])
	}

	// Rotation: rename, SIGUSR1, and the server opens a new file there.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no new access log file 10 s after SIGUSR1")
		}
		time.Sleep(20 * time.Millisecond)
	}
	head, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("alog"), Key: aws.String("k 1")})
	headID := requestID(t, head.ResultMetadata, err)
	if m := waitAccessLine(t, path, headID); m["op"] != "HeadObject" {
		t.Errorf("line after rotation: %v", m)
	}
	for _, m := range accessLines(t, path+".1") {
		if m["id"] == headID {
			t.Error("a request after the rotation went to the rotated file")
		}
	}
	if len(accessLines(t, path+".1")) < 3 {
		t.Errorf("rotated file: %d lines, want the bucket, PUT and GET", len(accessLines(t, path+".1")))
	}
}
