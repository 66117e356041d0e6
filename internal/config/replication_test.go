package config

import (
	"strings"
	"testing"
)

// TestReplicationTargets: --replication-target entries get their keys from
// JOG_REPLICATION_<NAME>_* or else --replication-target-credentials; a
// target without both keys, a bad URL or credentials for no target are
// refused, naming the setting and never the secret.
func TestReplicationTargets(t *testing.T) {
	c, err := parse(t, map[string]string{
		"JOG_REPLICATION_TARGET":             "dr-1=https://backup:9000",
		"JOG_REPLICATION_DR_1_ACCESS_KEY":    "env-ak",
		"JOG_REPLICATION_DR_1_SECRET_KEY":    "env-sk",
		"JOG_REPLICATION_TARGET_CREDENTIALS": "dr-1=file-ak:file-sk arch=arch-ak:arch-sk",
	}, "--replication-target", "dr-1=https://backup:9000", "--replication-target", "arch=http://m:9000/archive")
	if err != nil {
		t.Fatal(err)
	}
	ts, err := c.ReplicationTargets()
	if err != nil || len(ts) != 2 {
		t.Fatalf("%v %v", ts, err)
	}
	if ts[0].Name != "dr-1" || ts[0].AccessKey != "env-ak" || ts[0].SecretKey.Reveal() != "env-sk" {
		t.Errorf("dr-1: %+v, want the variables' keys", ts[0])
	}
	if ts[1].Bucket != "archive" || ts[1].AccessKey != "arch-ak" || ts[1].SecretKey.Reveal() != "arch-sk" {
		t.Errorf("arch: %+v, want the credentials setting's keys", ts[1])
	}
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, []string{"--replication-target", "dr=https://h"}, "JOG_REPLICATION_DR_ACCESS_KEY"},
		{map[string]string{"JOG_REPLICATION_DR_ACCESS_KEY": "a"}, []string{"--replication-target", "dr=https://h"}, "needs keys"},
		{nil, []string{"--replication-target", "dr=ftp://h"}, "want http(s)"},
		{nil, []string{"--replication-target-credentials", "dr=a:topsecret"}, "is no --replication-target"},
		{nil, []string{"--replication-target", "dr=https://h", "--replication-target-credentials", "dr=topsecret"}, "not NAME=ACCESS_KEY:SECRET_KEY"},
	} {
		_, err := parse(t, tc.env, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%v %v: %v, want an error with %q", tc.env, tc.args, err, tc.want)
		}
	}
}
