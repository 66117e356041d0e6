package config

import (
	"strings"
	"testing"
)

// TestReplicate: --replicate-to takes its keys from the environment only,
// leaves checkpoints to Litestream as --sqlite-checkpoints=false does, and
// is refused with PostgreSQL metadata and without an s3:// URL.
func TestReplicate(t *testing.T) {
	c, err := parse(t, nil)
	if err != nil || c.LeaveCheckpoints() {
		t.Fatalf("defaults: %v, leave checkpoints %v; want the server's own checkpoints", err, c.LeaveCheckpoints())
	}
	c, err = parse(t, map[string]string{"JOG_REPLICATE_ACCESS_KEY": "ak", "JOG_REPLICATE_SECRET_KEY": "sk", "JOG_REPLICATE_ENDPOINT": "http://m:9000"},
		"--replicate-to", "s3://backups/jog")
	if err != nil {
		t.Fatal(err)
	}
	if c.Replicate.URL != "s3://backups/jog" || c.Replicate.Endpoint != "http://m:9000" || c.Replicate.AccessKey != "ak" || c.Replicate.SecretKey != "sk" {
		t.Errorf("got %+v", c)
	}
	if !c.LeaveCheckpoints() {
		t.Error("--replicate-to: the server still runs its own checkpoints")
	}
	if c, err = parse(t, map[string]string{"JOG_SQLITE_CHECKPOINTS": "false"}); err != nil || !c.LeaveCheckpoints() {
		t.Errorf("JOG_SQLITE_CHECKPOINTS=false: %v, leave checkpoints %v", err, c.LeaveCheckpoints())
	}
	for _, args := range [][]string{
		{"--replicate-to", "s3://b/p", "--meta", "postgres://u@h/db"},
		{"--replicate-to", "b/p"},
	} {
		if _, err := parse(t, nil, args...); err == nil || !strings.Contains(err.Error(), "--replicate-to") {
			t.Errorf("%v: %v, want an error naming --replicate-to", args, err)
		}
	}
}
