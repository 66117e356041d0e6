package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/iam"

	"github.com/jogstore/jog/internal/testutil"
)

// TestJogAdmin drives a server with jog admin end to end: a user, a key,
// policies, a group, a role, listed and deleted; the SDK checks each step.
func TestJogAdmin(t *testing.T) {
	srv := testutil.StartServer(t)
	c := iamClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey)
	ctx := context.Background()
	dir := t.TempDir()
	polFile := filepath.Join(dir, "p.json")
	trustFile := filepath.Join(dir, "trust.json")
	_ = os.WriteFile(polFile, []byte(allowGet), 0o600)
	_ = os.WriteFile(trustFile, []byte(trustEC2), 0o600)
	admin := func(args ...string) (string, int) { return jogAdmin(srv, args...) }
	must := func(args ...string) string {
		t.Helper()
		out, code := admin(args...)
		if code != 0 {
			t.Fatalf("jog admin %s: exit %d: %s", strings.Join(args, " "), code, out)
		}
		return out
	}

	if out := must("user", "list"); out != "no users\n" {
		t.Fatalf("user list of none: %q", out)
	}
	if out := must("user", "create", "alice"); !strings.HasPrefix(out, "UserName: alice\nArn: arn:aws:iam::") {
		t.Fatalf("user create: %q", out)
	}
	// Labelled for people, the secret's once said; by name with --json.
	out := must("key", "create", "alice")
	f := strings.Fields(out)
	if len(f) < 4 || f[0] != "AccessKeyId:" || !strings.HasPrefix(f[1], "AKIA") || f[2] != "SecretAccessKey:" || len(f[3]) != 40 ||
		!strings.Contains(out, "shown only this once") {
		t.Fatalf("key create: %q", out)
	}
	keyID := f[1]
	var key struct{ AccessKeyId, SecretAccessKey string }
	if err := json.Unmarshal([]byte(must("key", "create", "alice", "--json")), &key); err != nil || !strings.HasPrefix(key.AccessKeyId, "AKIA") || len(key.SecretAccessKey) != 40 {
		t.Fatalf("key create --json: %+v, %v", key, err)
	}
	must("key", "delete", "alice", key.AccessKeyId)
	if out := must("key", "disable", "alice", keyID); out != "access key "+keyID+" of user alice is now Inactive\n" {
		t.Fatalf("key disable: %q", out)
	}
	if out := must("key", "list", "alice"); !strings.HasPrefix(out, "AccessKeyId\tStatus\tCreateDate\n"+keyID+"\tInactive\t") {
		t.Fatalf("key list: %q", out)
	}
	var keys []map[string]string
	if err := json.Unmarshal([]byte(must("--json", "key", "list", "alice")), &keys); err != nil || len(keys) != 1 || keys[0]["AccessKeyId"] != keyID || keys[0]["Status"] != "Inactive" {
		t.Fatalf("key list --json: %v, %v", keys, err)
	}
	must("key", "enable", "alice", keyID)
	if out := must("user-policy", "put", "alice", "read", polFile); out != "put policy read of user alice\n" {
		t.Fatalf("user-policy put: %q", out)
	}
	if out := must("user-policy", "get", "alice", "read"); strings.TrimSpace(out) != allowGet {
		t.Fatalf("user-policy get: %q", out)
	}
	must("policy", "create", "readers", polFile)
	must("policy", "attach", "alice", "readers")
	ap, err := c.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")})
	if err != nil || len(ap.AttachedPolicies) != 1 || aws.ToString(ap.AttachedPolicies[0].PolicyName) != "readers" {
		t.Fatalf("after policy attach: %+v, %v", ap, err)
	}
	if out := must("policy", "list"); !strings.HasPrefix(out, "PolicyName\tArn\tAttachmentCount\nreaders\tarn:aws:iam::") || !strings.HasSuffix(out, "\t1\n") {
		t.Fatalf("policy list: %q", out)
	}
	must("group", "create", "devs")
	must("group", "add", "devs", "alice")
	if out := must("group", "list"); !strings.HasPrefix(out, "GroupName\tArn\ndevs\t") {
		t.Fatalf("group list: %q", out)
	}
	must("role", "create", "app", trustFile)
	if out := must("role", "list"); !strings.HasPrefix(out, "RoleName\tArn\napp\t") {
		t.Fatalf("role list: %q", out)
	}
	if out, code := admin("user", "delete", "alice"); code != 1 || !strings.Contains(out, "DeleteConflict") {
		t.Fatalf("user delete in use: exit %d %q", code, out)
	}
	if out, code := admin("user", "create", "alice"); code != 1 || !strings.Contains(out, "EntityAlreadyExists") {
		t.Fatalf("user create again: exit %d %q", code, out)
	}
	for _, args := range [][]string{
		{"role", "delete", "app"}, {"group", "remove", "devs", "alice"}, {"group", "delete", "devs"},
		{"policy", "detach", "alice", "readers"}, {"policy", "delete", "readers"},
		{"user-policy", "delete", "alice", "read"}, {"key", "delete", "alice", keyID}, {"user", "delete", "alice"},
	} {
		must(args...)
	}
	if out := must("user", "list"); out != "no users\n" {
		t.Fatalf("user list after delete: %q", out)
	}
	if _, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}); err == nil {
		t.Fatal("alice still exists")
	}
	if _, code := admin("user", "frobnicate"); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
}
