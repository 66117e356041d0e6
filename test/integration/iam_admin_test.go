package integration

import (
	"context"
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

	if out := must("user", "create", "alice"); !strings.HasPrefix(out, "alice\tarn:aws:iam::") {
		t.Fatalf("user create: %q", out)
	}
	out := must("key", "create", "alice")
	f := strings.Fields(out)
	if len(f) != 2 || !strings.HasPrefix(f[0], "AKIA") || len(f[1]) != 40 {
		t.Fatalf("key create: %q", out)
	}
	keyID := f[0]
	must("key", "disable", "alice", keyID)
	if out := must("key", "list", "alice"); !strings.HasPrefix(out, keyID+"\tInactive\t") {
		t.Fatalf("key list: %q", out)
	}
	must("key", "enable", "alice", keyID)
	must("user-policy", "put", "alice", "read", polFile)
	if out := must("user-policy", "get", "alice", "read"); strings.TrimSpace(out) != allowGet {
		t.Fatalf("user-policy get: %q", out)
	}
	must("policy", "create", "readers", polFile)
	must("policy", "attach", "alice", "readers")
	ap, err := c.ListAttachedUserPolicies(ctx, &iam.ListAttachedUserPoliciesInput{UserName: aws.String("alice")})
	if err != nil || len(ap.AttachedPolicies) != 1 || aws.ToString(ap.AttachedPolicies[0].PolicyName) != "readers" {
		t.Fatalf("after policy attach: %+v, %v", ap, err)
	}
	if out := must("policy", "list"); !strings.HasPrefix(out, "readers\tarn:aws:iam::") || !strings.HasSuffix(out, "\t1\n") {
		t.Fatalf("policy list: %q", out)
	}
	must("group", "create", "devs")
	must("group", "add", "devs", "alice")
	if out := must("group", "list"); !strings.HasPrefix(out, "devs\t") {
		t.Fatalf("group list: %q", out)
	}
	must("role", "create", "app", trustFile)
	if out := must("role", "list"); !strings.HasPrefix(out, "app\t") {
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
	if out := must("user", "list"); out != "" {
		t.Fatalf("user list after delete: %q", out)
	}
	if _, err := c.GetUser(ctx, &iam.GetUserInput{UserName: aws.String("alice")}); err == nil {
		t.Fatal("alice still exists")
	}
	if _, code := admin("user", "frobnicate"); code != 2 {
		t.Fatalf("unknown command: exit %d", code)
	}
}
