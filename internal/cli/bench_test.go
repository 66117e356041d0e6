package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/testutil"
)

// TestBenchCommand runs `jog bench` end to end against a real server, then
// renders and compares its result file.
func TestBenchCommand(t *testing.T) {
	s := testutil.StartServer(t, testutil.WithoutFsync())
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	run := func(args ...string) (string, string, int) {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), args, &stdout, &stderr)
		return stdout.String(), stderr.String(), code
	}
	stdout, stderr, code := run("bench", "mixed", "--endpoint", s.URL, "--access-key", s.Config.AccessKey,
		"--secret-key", s.Config.SecretKey, "--ops", "30", "--objects", "5", "--size", "1KiB-4KiB",
		"--concurrency", "2", "--mix", "get=2,put=1", "--verify", "--label", "jog", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"jog  mixed  1KiB-4KiB objects  concurrency 2", "GET TTFB", "TOTAL"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	// The bucket it made is named when used and when removed.
	if m := regexp.MustCompile(`(?m)^using bucket (jog-bench-[0-9a-f]{8})$`).FindStringSubmatch(stderr); m == nil ||
		!strings.Contains(stderr, "\nremoving bucket "+m[1]+"\n") || !strings.Contains(stderr, "removing the objects under s3://"+m[1]+"/bench/") {
		t.Errorf("stderr does not name the bucket used and removed:\n%s", stderr)
	}
	stdout, stderr, code = run("bench", "compare", out, out)
	// The same file twice: two runs of one cell, shown once as their median.
	if code != 0 || strings.Count(stdout, "| jog | mixed get=2,put=1 | 1KiB-4KiB | 2 |") != 1 || !strings.Contains(stdout, "| 2 (±0%) |") {
		t.Errorf("compare: exit %d\n%s%s", code, stdout, stderr)
	}
	// Another client's traffic shape: recorded in the result file and
	// named in the comparison, apart from the default shape's cells.
	shaped := filepath.Join(dir, "shaped.json")
	stdout, stderr, code = run("bench", "sweep", "--workload", "put", "--endpoint", s.URL, "--access-key", s.Config.AccessKey,
		"--secret-key", s.Config.SecretKey, "--ops", "6", "--sizes", "1KiB,70KiB", "--concurrency", "2",
		"--keys", "warp", "--signing", "streaming", "--label", "jog", "--out", shaped)
	if code != 0 || !strings.Contains(stdout, "keys warp  signing streaming") {
		t.Fatalf("shaped sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(shaped); err != nil || !bytes.Contains(b, []byte(`"keys": "warp"`)) || !bytes.Contains(b, []byte(`"signing": "streaming"`)) {
		t.Errorf("result file lacks the shape (%v):\n%.600s", err, b)
	}
	stdout, stderr, code = run("bench", "compare", out, shaped)
	if code != 0 || !strings.Contains(stdout, "| jog | put (keys warp, signing streaming) | 70KiB | 2 |") {
		t.Errorf("compare with shapes: exit %d\n%s%s", code, stdout, stderr)
	}
	// A versioned bucket prepared once, then listed by a measuring run
	// that leaves it as it was.
	common := []string{"--endpoint", s.URL, "--access-key", s.Config.AccessKey, "--secret-key", s.Config.SecretKey,
		"--bucket", "kept", "--prefix", "v/", "--objects", "4", "--size", "1", "--versions", "2", "--delete-markers", "2"}
	if stdout, stderr, code = run(append([]string{"bench", "list-versions", "--prepare-only"}, common...)...); code != 0 || stdout != "" {
		t.Fatalf("prepare only: exit %d\n%s\n%s", code, stdout, stderr)
	}
	stdout, stderr, code = run(append([]string{"bench", "list-versions", "--prepared", "--ops", "3", "--concurrency", "1", "--list-max-keys", "6"}, common...)...)
	// 4 keys × 2 versions, 2 keys × (a version and a delete marker): 12 entries, two pages of 6.
	if code != 0 || !strings.Contains(stdout, "LIST-VERSIONS: 18 entries listed") {
		t.Errorf("list-versions: exit %d\n%s\n%s", code, stdout, stderr)
	}
	report := filepath.Join(dir, "report")
	stdout, stderr, code = run("bench", "report", "--out", report, out)
	if code != 0 || !strings.Contains(stdout, "index.html") {
		t.Fatalf("report: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(report, "latency.svg")); err != nil {
		t.Error(err)
	}
}

func TestBenchCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "fly"},
		{"bench", "put", "--size", "1XB"},
		{"bench", "put", "--rate", "10:5"},
		{"bench", "put", "--access-key", "", "--secret-key", ""},
		{"bench", "sweep", "--concurrency", "0"},
		{"bench", "compare"},
		{"bench", "put", "--access-key", "a", "--secret-key", "b", "--keys", "random"},
		{"bench", "put", "--access-key", "a", "--secret-key", "b", "--signing", "v2"},
		{"bench", "list", "--access-key", "a", "--secret-key", "b", "--keys", "warp", "--list-prefixes", "4"},
		{"bench", "report"},
		{"bench", "get", "--access-key", "a", "--secret-key", "b", "--versions", "3"},
		{"bench", "list-versions", "--access-key", "a", "--secret-key", "b", "--prepared"},
		{"bench", "sweep", "--workload", "list", "--access-key", "a", "--secret-key", "b", "--bucket", "x", "--prepare-only"},
	} {
		var stdout, stderr bytes.Buffer
		t.Setenv("AWS_ACCESS_KEY_ID", "")
		t.Setenv("JOG_ACCESS_KEY", "")
		if code := Run(context.Background(), args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, stderr.String())
		}
	}
	var stdout bytes.Buffer
	if code := Run(context.Background(), []string{"bench", "-h"}, &stdout, &stdout); code != 0 || !strings.Contains(stdout.String(), "jog bench sweep") {
		t.Errorf("bench -h: %d %s", code, stdout.String())
	}
}
