package iam

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/keyring/keyringtest"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/sigv4"
)

var _ sigv4.Credentials = (*Service)(nil)

// openStore opens a real SQLite store in a temporary directory.
func openStore(t *testing.T) *sqlite.Store {
	t.Helper()
	st, err := sqlite.OpenWith(t.Context(), filepath.Join(t.TempDir(), "jog.db"), sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func newService(t *testing.T, st meta.IAMStore, opts Options) *Service {
	t.Helper()
	s, err := New(t.Context(), st, keyringtest.New(t, 1), opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// open returns a Service over a fresh store.
func open(t *testing.T) *Service { return newService(t, openStore(t), Options{}) }

// must returns v of a call that must succeed; it panics (failing the
// test, with the stack) otherwise.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func ok(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

const allowGet = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`

func TestUsers(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	if !regexp.MustCompile(`^[0-9]{12}$`).MatchString(s.Account()) {
		t.Errorf("Account = %q", s.Account())
	}
	u := must(s.CreateUser(ctx, "alice", ""))
	if u.Path != "/" || u.ARN != "arn:aws:iam::"+s.Account()+":user/alice" ||
		!regexp.MustCompile(`^AIDA[A-Z2-7]{17}$`).MatchString(u.ID) || u.Created.IsZero() {
		t.Errorf("CreateUser = %+v", u)
	}
	eng := must(s.CreateUser(ctx, "bob", "/eng/"))
	if eng.ARN != "arn:aws:iam::"+s.Account()+":user/eng/bob" {
		t.Errorf("ARN with a path = %q", eng.ARN)
	}
	if got := must(s.GetUser(ctx, "alice")); got.ID != u.ID || got.ARN != u.ARN {
		t.Errorf("GetUser = %+v, want %+v", got, u)
	}
	_, err := s.CreateUser(ctx, "ALICE", "")
	wantErr(t, "CreateUser(ALICE)", err, meta.ErrEntityAlreadyExists)
	for _, bad := range []struct{ name, path string }{
		{"", "/"}, {"a b", "/"}, {"a/b", "/"}, {strings.Repeat("a", 65), "/"}, {"ok", "eng"}, {"ok", "/eng"}, {"ok", "/a b/"},
	} {
		_, err := s.CreateUser(ctx, bad.name, bad.path)
		wantErr(t, fmt.Sprintf("CreateUser(%q, %q)", bad.name, bad.path), err, ErrValidation)
	}
	if _, err := s.CreateUser(ctx, strings.Repeat("a", 64), "/"); err != nil {
		t.Errorf("a 64-character name: %v", err)
	}
	if _, err := s.CreateUser(ctx, "x+=,.@_-9", "/"); err != nil {
		t.Errorf("every allowed character: %v", err)
	}
	_, err = s.GetUser(ctx, "carol")
	wantErr(t, "GetUser(carol)", err, meta.ErrNoSuchEntity)
	var iamErr *meta.IAMError
	if !errors.As(err, &iamErr) || iamErr.Message != "The user with name carol cannot be found." {
		t.Errorf("GetUser(carol) message = %v", err)
	}

	ok(t, s.DeleteUser(ctx, "alice"))
	wantErr(t, "DeleteUser again", s.DeleteUser(ctx, "alice"), meta.ErrNoSuchEntity)
}

func TestListUsersPages(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	for i := range 5 {
		path := "/"
		if i%2 == 1 {
			path = "/odd/"
		}
		must(s.CreateUser(ctx, fmt.Sprintf("u%d", i), path))
	}
	var got []string
	marker := ""
	for pages := 0; ; pages++ {
		us, next, err := s.ListUsers(ctx, Page{Marker: marker, MaxItems: 2})
		ok(t, err)
		for _, u := range us {
			got = append(got, u.Name)
		}
		if next == "" {
			if pages != 2 {
				t.Errorf("%d pages, want 3", pages+1)
			}
			break
		}
		marker = next
	}
	if strings.Join(got, ",") != "u0,u1,u2,u3,u4" {
		t.Errorf("pages gave %q", got)
	}
	odd, next, err := s.ListUsers(ctx, Page{PathPrefix: "/odd/"})
	if err != nil || next != "" || len(odd) != 2 || odd[0].Name != "u1" || odd[1].Name != "u3" {
		t.Errorf("ListUsers(/odd/) = %+v, %q, %v", odd, next, err)
	}
	for _, p := range []Page{{MaxItems: -1}, {MaxItems: 1001}, {PathPrefix: "odd"}} {
		_, _, err := s.ListUsers(ctx, p)
		wantErr(t, fmt.Sprintf("ListUsers(%+v)", p), err, ErrValidation)
	}
}

func TestAccessKeys(t *testing.T) {
	st := openStore(t)
	s := newService(t, st, Options{})
	ctx := t.Context()
	must(s.CreateUser(ctx, "alice", ""))
	k := must(s.CreateAccessKey(ctx, "ALICE"))
	secret := k.Secret.Reveal()
	if !regexp.MustCompile(`^AKIA[A-Z2-7]{16}$`).MatchString(k.ID) || len(secret) != 40 ||
		k.User != "alice" || k.Status != meta.AccessKeyActive || k.Sealed != nil {
		t.Errorf("CreateAccessKey = %+v (secret %d characters)", k.AccessKey, len(secret))
	}
	// The store holds the secret sealed, never in plain text.
	stored := must(st.GetAccessKey(ctx, k.ID))
	if len(stored.Sealed) == 0 || bytes.Contains(stored.Sealed, []byte(secret)) {
		t.Errorf("stored secret %q holds the plain text", stored.Sealed)
	}
	// Nor does anything that prints the new key.
	for _, out := range []string{fmt.Sprintf("%v", k), fmt.Sprintf("%+v", k), fmt.Sprintf("%#v", k), fmt.Sprint(k.Secret)} {
		if strings.Contains(out, secret) {
			t.Errorf("printing the key shows its secret: %s", out)
		}
	}
	if got, found := s.SecretKey(k.ID); !found || got != secret {
		t.Errorf("SecretKey = %q, %v; want the secret", got, found)
	}
	if _, found := s.SecretKey("AKIANOSUCHKEY0000000"); found {
		t.Error("SecretKey found a key that does not exist")
	}

	k2 := must(s.CreateAccessKey(ctx, "alice"))
	_, err := s.CreateAccessKey(ctx, "alice")
	wantErr(t, "third key", err, meta.ErrLimitExceeded)
	_, err = s.CreateAccessKey(ctx, "bob")
	wantErr(t, "key for nobody", err, meta.ErrNoSuchEntity)
	keys := must(s.ListAccessKeys(ctx, "alice"))
	if len(keys) != 2 || keys[0].Sealed != nil || keys[1].Sealed != nil {
		t.Errorf("ListAccessKeys = %+v", keys)
	}

	wantErr(t, "status Disabled", s.UpdateAccessKey(ctx, "alice", k.ID, "Disabled"), ErrValidation)
	ok(t, s.UpdateAccessKey(ctx, "alice", k.ID, meta.AccessKeyInactive))
	if _, found := s.SecretKey(k.ID); found {
		t.Error("SecretKey found an inactive key")
	}
	_, err = s.Principal(ctx, k.ID)
	wantErr(t, "Principal of an inactive key", err, ErrNoSuchKey)
	ok(t, s.UpdateAccessKey(ctx, "alice", k.ID, meta.AccessKeyActive))
	if _, found := s.SecretKey(k.ID); !found {
		t.Error("SecretKey did not find the key made active again")
	}

	wantErr(t, "DeleteUser with keys", s.DeleteUser(ctx, "alice"), meta.ErrDeleteConflict)
	ok(t, s.DeleteAccessKey(ctx, "alice", k.ID))
	ok(t, s.DeleteAccessKey(ctx, "alice", k2.ID))
	if _, found := s.SecretKey(k.ID); found {
		t.Error("SecretKey found a deleted key")
	}
	ok(t, s.DeleteUser(ctx, "alice"))
}

// TestWrongServerKey: a store read under another server key (iam.key lost
// and recreated) signs nothing.
func TestWrongServerKey(t *testing.T) {
	st := openStore(t)
	s := newService(t, st, Options{})
	must(s.CreateUser(t.Context(), "alice", ""))
	k := must(s.CreateAccessKey(t.Context(), "alice"))
	other, err := New(t.Context(), st, keyringtest.New(t, 2), Options{})
	ok(t, err)
	if _, found := other.SecretKey(k.ID); found {
		t.Error("SecretKey opened a secret under another server key")
	}
	_, err = other.Principal(t.Context(), k.ID)
	wantErr(t, "Principal under another server key", err, keyring.ErrOpen)
}

func TestInlinePolicies(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	must(s.CreateUser(ctx, "alice", ""))
	ok(t, s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "get", []byte(allowGet)))
	got := must(s.GetInlinePolicy(ctx, meta.EntityUser, "alice", "get"))
	if string(got.Document) != allowGet {
		t.Errorf("GetInlinePolicy = %s", got.Document)
	}
	if names := must(s.ListInlinePolicies(ctx, meta.EntityUser, "alice")); len(names) != 1 || names[0] != "get" {
		t.Errorf("ListInlinePolicies = %q", names)
	}
	// Refused with the parser's reason: no Principal in an identity policy,
	// a missing Effect, not JSON.
	for _, doc := range []string{
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Action":"s3:*","Resource":"*"}]}`,
		`not json`,
	} {
		err := s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "bad", []byte(doc))
		wantErr(t, "PutInlinePolicy("+doc+")", err, ErrMalformedPolicyDocument)
		_, perr := policy.Parse([]byte(doc), policy.Identity)
		if err == nil || perr == nil || err.Error() != perr.Error() {
			t.Errorf("message %q, want the parser's %q", err, perr)
		}
	}
	_, err := s.GetInlinePolicy(ctx, meta.EntityUser, "alice", "bad")
	wantErr(t, "a refused policy was stored", err, meta.ErrNoSuchEntity)
	wantErr(t, "bad policy name", s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "a b", []byte(allowGet)), ErrValidation)
	wantErr(t, "no user", s.PutInlinePolicy(ctx, meta.EntityUser, "bob", "p", []byte(allowGet)), meta.ErrNoSuchEntity)

	// A user's inline policies together are bounded (2,048 characters).
	big := bigPolicy(policy.MaxUserInline - policy.Size([]byte(allowGet)) + 1)
	if policy.Size([]byte(big)) > policy.MaxUserInline {
		t.Fatalf("the test policy alone is over the quota")
	}
	wantErr(t, "over the user quota", s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "big", []byte(big)), meta.ErrLimitExceeded)
	// Replacing a policy counts its new size only.
	ok(t, s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "GET", []byte(big)))

	wantErr(t, "DeleteUser with a policy", s.DeleteUser(ctx, "alice"), meta.ErrDeleteConflict)
	ok(t, s.DeleteInlinePolicy(ctx, meta.EntityUser, "alice", "get"))
	wantErr(t, "delete again", s.DeleteInlinePolicy(ctx, meta.EntityUser, "alice", "get"), meta.ErrNoSuchEntity)
	ok(t, s.DeleteUser(ctx, "alice"))
}

// bigPolicy returns a valid identity policy of at least n characters
// other than white space.
func bigPolicy(n int) string {
	var actions []string
	for i := 0; ; i++ {
		doc := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["` + strings.Join(actions, `","`) + `"],"Resource":"*"}]}`
		if len(actions) > 0 && policy.Size([]byte(doc)) >= n {
			return doc
		}
		actions = append(actions, fmt.Sprintf("s3:GetObject%04d", i))
	}
}
