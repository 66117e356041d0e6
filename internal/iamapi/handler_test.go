package iamapi

import (
	"context"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/iamtest"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/queryapi/queryapitest"
	"github.com/jogstore/jog/internal/testutil/golden"
)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

// newHandler returns a Handler over a real SQLite store, whose root key is
// "root"; "other" authenticates too but is not the root.
func newHandler(t *testing.T, authorize func(context.Context, string, string) error) (*Handler, *iam.Service) {
	t.Helper()
	svc, _ := iamtest.Open(t)
	return New(svc, Config{Credentials: creds{"root": "rootsecret", "other": "othersecret"}, Root: "root", Authorize: authorize}), svc
}

// do sends a form signed for service by key.
func do(h http.Handler, service, key, secret, form string) *httptest.ResponseRecorder {
	return queryapitest.Do(h, service, key, secret, "", form)
}

var wantCode = queryapitest.WantCode

// TestScopeMustBeIAM: the handler serves only requests signed for iam.
func TestScopeMustBeIAM(t *testing.T) {
	h, svc := newHandler(t, nil)
	wantCode(t, "signed for s3", do(h, "s3", "root", "rootsecret", "Action=CreateUser&UserName=eve"), 400, "IncompleteSignature")
	wantCode(t, "unknown key", do(h, "iam", "nokey", "x", "Action=CreateUser&UserName=eve"), 403, "InvalidClientTokenId")
	if _, err := svc.GetUser(t.Context(), "eve"); err == nil {
		t.Fatal("eve was created by a refused request")
	}
	if w := do(h, "iam", "root", "rootsecret", "Action=CreateUser&UserName=eve&Version=2010-05-08"); w.Code != 200 {
		t.Fatalf("signed for iam by the root: %d %s", w.Code, w.Body)
	}
	wantCode(t, "another version", do(h, "iam", "root", "rootsecret", "Action=ListUsers&Version=2011-01-01"), 400, "InvalidAction")
	wantCode(t, "missing UserName", do(h, "iam", "root", "rootsecret", "Action=DeleteUser"), 400, "ValidationError")
	wantCode(t, "bad MaxItems", do(h, "iam", "root", "rootsecret", "Action=ListUsers&MaxItems=0"), 400, "ValidationError")
}

// TestOnlyRoot: a key other than the root's is refused unless Authorize
// allows the action, which it is asked about by its IAM action name.
func TestOnlyRoot(t *testing.T) {
	h, _ := newHandler(t, nil)
	wantCode(t, "other key", do(h, "iam", "other", "othersecret", "Action=ListUsers"), 403, "AccessDenied")

	var asked []string
	h, _ = newHandler(t, func(_ context.Context, key, action string) error {
		asked = append(asked, key+" "+action)
		if action == "iam:ListUsers" {
			return nil
		}
		return errAccessDenied(key, action)
	})
	if w := do(h, "iam", "other", "othersecret", "Action=ListUsers"); w.Code != 200 {
		t.Fatalf("allowed ListUsers: %d %s", w.Code, w.Body)
	}
	wantCode(t, "denied CreateUser", do(h, "iam", "other", "othersecret", "Action=CreateUser&UserName=x"), 403, "AccessDenied")
	if strings.Join(asked, ",") != "other iam:ListUsers,other iam:CreateUser" {
		t.Fatalf("Authorize asked %v", asked)
	}
}

// TestActionTable: every action the table serves has its IAM action
// name, and the brief's subset is all there.
func TestActionTable(t *testing.T) {
	for name, a := range actions {
		if a.iamAction != "iam:"+name || a.serve == nil {
			t.Errorf("%s: %+v", name, a)
		}
	}
	for _, name := range strings.Fields(`CreateUser GetUser ListUsers DeleteUser CreateAccessKey ListAccessKeys
		UpdateAccessKey DeleteAccessKey PutUserPolicy GetUserPolicy ListUserPolicies DeleteUserPolicy CreatePolicy
		GetPolicy ListPolicies DeletePolicy AttachUserPolicy DetachUserPolicy ListAttachedUserPolicies CreateGroup
		DeleteGroup GetGroup AddUserToGroup RemoveUserFromGroup PutGroupPolicy AttachGroupPolicy CreateRole GetRole
		ListRoles DeleteRole`) {
		if got, ok := IAMAction(name); !ok || got != "iam:"+name {
			t.Errorf("IAMAction(%s) = %q, %v", name, got, ok)
		}
	}
}

// The golden tests pin the bytes of IAM responses built from fixed
// inputs. After a deliberate change: go test ./internal/iamapi -run Golden -update
var update = flag.Bool("update", false, "rewrite testdata/golden/*.xml")

func TestGoldenXML(t *testing.T) {
	at := time.Date(2026, 11, 24, 9, 30, 15, 0, time.UTC)
	alice := meta.IAMEntity{Kind: meta.EntityUser, Name: "alice", Path: "/", ID: "AIDAEXAMPLE0000000001", ARN: "arn:aws:iam::123456789012:user/alice", Created: at}
	doc := []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/a b"}]}`)
	cases := []struct {
		name, action string
		result       any
	}{
		{"create-user", "CreateUser", struct{ User userXML }{user(alice)}},
		{"list-users-truncated", "ListUsers", struct {
			Users members[userXML]
			truncation
		}{members[userXML]{[]userXML{user(alice)}}, truncated("alice")}},
		{"list-users-empty", "ListUsers", struct {
			Users members[userXML]
			truncation
		}{members[userXML]{}, truncation{}}},
		{"get-user-policy", "GetUserPolicy", inlinePolicyResult{"User", "alice", meta.InlinePolicy{Name: "read", Document: doc}}},
		{"delete-user", "DeleteUser", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			queryapitest.CheckResponse(t, "internal/iamapi", xmlns, c.name, c.action, c.result, *update)
		})
	}
	h := &Handler{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
	w := httptest.NewRecorder()
	h.writeError(w, &request{ctx: t.Context(), id: "00000000-0000-0000-0000-000000000000", action: "GetUser"},
		meta.IAMErrorf(meta.ErrNoSuchEntity, "The user with name bob cannot be found."))
	if w.Code != http.StatusNotFound {
		t.Fatalf("NoSuchEntity: status %d", w.Code)
	}
	checkGolden(t, "error-no-such-entity", w.Body.Bytes())
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, "internal/iamapi", name, got, *update)
}
