package iamapi

import (
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/iamtest"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/queryapi/queryapitest"
	"github.com/jogstore/jog/internal/sts"
	"github.com/jogstore/jog/internal/testutil/golden"
)

type creds map[string]string

func (c creds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

// newHandler returns a Handler over a real SQLite store, whose root key is
// "root".
func newHandler(t *testing.T, authorize func(*http.Request, authz.Principal, string, string, policy.Context) policy.Decision) (*Handler, *iam.Service) {
	t.Helper()
	svc, _ := iamtest.Open(t)
	keys := sts.Keys{Root: creds{"root": "rootsecret"}, IAM: svc}
	return New(svc, Config{Keys: keys, Authorize: authorize}), svc
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

// newUser creates user name under path with an access key, returned.
func newUser(t *testing.T, svc *iam.Service, name, path string) (string, string) {
	t.Helper()
	if _, err := svc.CreateUser(t.Context(), name, path); err != nil {
		t.Fatal(err)
	}
	k, err := svc.CreateAccessKey(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return k.ID, k.Secret.Reveal()
}

// TestAuthorizeUsers: a user's key is refused unless Authorize allows the
// action, which it is asked about by its IAM action name and the ARN it
// acts on: the entity's stored ARN (with its path), the one a Create
// would give, the caller's own when UserName is absent, "*" for a
// listing.
func TestAuthorizeUsers(t *testing.T) {
	h, svc := newHandler(t, nil)
	id, secret := newUser(t, svc, "other", "/")
	wantCode(t, "user key, no Authorize", do(h, "iam", id, secret, "Action=ListUsers"), 403, "AccessDenied")

	var asked []string
	h, svc = newHandler(t, func(_ *http.Request, who authz.Principal, action, resource string, keys policy.Context) policy.Decision {
		asked = append(asked, who.User.UserName+" "+action+" "+resource)
		for _, k := range []string{"iam:PolicyARN", "iam:PermissionsBoundary"} {
			if v := keys.Get(k); v != nil {
				asked = append(asked, k+"="+strings.Join(v, "|"))
			}
		}
		if action == "iam:ListUsers" || action == "iam:ListAccessKeys" {
			return policy.Allowed
		}
		return policy.ImplicitDeny
	})
	id, secret = newUser(t, svc, "bob", "/team/")
	if w := do(h, "iam", id, secret, "Action=ListUsers"); w.Code != 200 {
		t.Fatalf("allowed ListUsers: %d %s", w.Code, w.Body)
	}
	if w := do(h, "iam", id, secret, "Action=ListAccessKeys"); w.Code != 200 || !strings.Contains(w.Body.String(), id) {
		t.Fatalf("allowed ListAccessKeys of itself: %d %s", w.Code, w.Body)
	}
	w := do(h, "iam", id, secret, "Action=CreateUser&UserName=x&Path=/p/")
	wantCode(t, "denied CreateUser", w, 403, "AccessDenied")
	if want := "User: arn:aws:iam::" + svc.Account() + ":user/team/bob is not authorized to perform: iam:CreateUser on resource: arn:aws:iam::" + svc.Account() + ":user/p/x"; !strings.Contains(w.Body.String(), want) {
		t.Fatalf("denial message: %s", w.Body)
	}
	wantCode(t, "denied GetPolicy", do(h, "iam", id, secret, "Action=GetPolicy&PolicyArn=arn:aws:iam::1:policy/p"), 403, "AccessDenied")
	wantCode(t, "denied AddUserToGroup", do(h, "iam", id, secret, "Action=AddUserToGroup&GroupName=g&UserName=bob"), 403, "AccessDenied")
	wantCode(t, "denied CreatePolicy", do(h, "iam", id, secret, "Action=CreatePolicy&PolicyName=p&Path=/x/&PolicyDocument=x"), 403, "AccessDenied")
	// IAM's own condition keys: the policy attached, the boundary set,
	// the target's current boundary.
	bound, err := svc.CreatePolicy(t.Context(), "Bound", "", "", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateUser(t.Context(), "carol", ""); err != nil {
		t.Fatal(err)
	}
	if err := svc.SetBoundary(t.Context(), meta.EntityUser, "carol", bound.ARN); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "denied AttachUserPolicy", do(h, "iam", id, secret, "Action=AttachUserPolicy&UserName=carol&PolicyArn=arn:aws:iam::1:policy/p"), 403, "AccessDenied")
	wantCode(t, "denied PutUserPermissionsBoundary", do(h, "iam", id, secret, "Action=PutUserPermissionsBoundary&UserName=bob&PermissionsBoundary=arn:aws:iam::1:policy/b"), 403, "AccessDenied")
	wantCode(t, "denied AttachGroupPolicy", do(h, "iam", id, secret, "Action=AttachGroupPolicy&GroupName=g&PolicyArn=arn:aws:iam::1:policy/p"), 403, "AccessDenied")
	if _, err := svc.GetUser(t.Context(), "x"); err == nil {
		t.Fatal("a denied CreateUser created x")
	}
	acct := svc.Account()
	want := []string{
		"bob iam:ListUsers *",
		"bob iam:ListAccessKeys arn:aws:iam::" + acct + ":user/team/bob",
		"bob iam:CreateUser arn:aws:iam::" + acct + ":user/p/x",
		"bob iam:GetPolicy arn:aws:iam::1:policy/p",
		"bob iam:AddUserToGroup arn:aws:iam::" + acct + ":group/g",
		"bob iam:CreatePolicy arn:aws:iam::" + acct + ":policy/x/p",
		"bob iam:AttachUserPolicy arn:aws:iam::" + acct + ":user/carol", "iam:PolicyARN=arn:aws:iam::1:policy/p", "iam:PermissionsBoundary=" + bound.ARN,
		"bob iam:PutUserPermissionsBoundary arn:aws:iam::" + acct + ":user/team/bob", "iam:PermissionsBoundary=arn:aws:iam::1:policy/b",
		"bob iam:AttachGroupPolicy arn:aws:iam::" + acct + ":group/g", "iam:PolicyARN=arn:aws:iam::1:policy/p",
	}
	if strings.Join(asked, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Authorize asked\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(want, "\n"))
	}
}

// TestActionTable: every action the table serves has its IAM action
// name, and the brief's subset is all there.
func TestActionTable(t *testing.T) {
	for name, a := range actions {
		if a.iamAction != "iam:"+name || a.serve == nil || a.resource == nil {
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
