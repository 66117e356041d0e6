package metatest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// RunIAM runs the cases of meta.IAMStore (IAM/...).
func RunIAM(t *testing.T, open Opener) { run(t, open, iamCases) }

var iamCases = []testCase{
	{"IAM/Account", testIAMAccount},
	{"IAM/Generation", testIAMGeneration},
	{"IAM/Entities", testIAMEntities},
	{"IAM/EntityList", testIAMEntityList},
	{"IAM/AccessKeys", testIAMAccessKeys},
	{"IAM/Groups", testIAMGroups},
	{"IAM/Policies", testIAMPolicies},
	{"IAM/Inline", testIAMInline},
	{"IAM/Attach", testIAMAttach},
	{"IAM/DeleteConflict", testIAMDeleteConflict},
	{"IAM/Boundary", testIAMBoundary},
}

func entity(kind meta.EntityKind, name string) meta.IAMEntity {
	return meta.IAMEntity{
		Kind: kind, Name: name, Path: "/",
		ID:      fmt.Sprintf("ID%d%s", kind, name),
		ARN:     fmt.Sprintf("arn:aws:iam::123456789012:%s/%s", kind, name),
		Created: t0,
	}
}

func mkEntity(t *testing.T, s meta.Store, kind meta.EntityKind, name string) {
	t.Helper()
	if err := s.CreateEntity(t.Context(), entity(kind, name)); err != nil {
		t.Fatalf("CreateEntity(%v %q): %v", kind, name, err)
	}
}

func mkPolicy(t *testing.T, s meta.Store, name string) string {
	t.Helper()
	p := meta.ManagedPolicy{
		Name: name, Path: "/", ID: "ANPA" + name,
		ARN:      "arn:aws:iam::123456789012:policy/" + name,
		Document: []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`),
		Created:  t0, Updated: t0, DefaultVersion: "v1",
	}
	if err := s.CreatePolicy(t.Context(), p); err != nil {
		t.Fatalf("CreatePolicy(%q): %v", name, err)
	}
	return p.ARN
}

func accessKey(user, id string) meta.AccessKey {
	return meta.AccessKey{ID: id, User: user, Sealed: []byte("sealed-" + id), Status: meta.AccessKeyActive, Created: t0}
}

func entityNames(es []meta.IAMEntity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}

func wantNames(t *testing.T, what string, got []meta.IAMEntity, err error, want ...string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if g := entityNames(got); !slices.Equal(g, want) {
		t.Errorf("%s = %q, want %q", what, g, want)
	}
}

func testIAMAccount(t *testing.T, s meta.Store) {
	a, err := s.IAMAccount(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^[0-9]{12}$`).MatchString(a) {
		t.Errorf("IAMAccount = %q, want 12 digits", a)
	}
	mkEntity(t, s, meta.EntityUser, "alice")
	if b, err := s.IAMAccount(t.Context()); err != nil || b != a {
		t.Errorf("IAMAccount again = %q, %v; want %q", b, err, a)
	}
}

func testIAMGeneration(t *testing.T, s meta.Store) {
	ctx := t.Context()
	last, err := s.IAMGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	step := func(what string, changes bool, fn func() error) {
		t.Helper()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		g, err := s.IAMGeneration(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if changes && g == last {
			t.Errorf("%s: generation stayed %d", what, g)
		}
		if !changes && g != last {
			t.Errorf("%s: generation moved %d → %d", what, last, g)
		}
		last = g
	}
	doc := []byte(`{}`)
	step("CreateEntity", true, func() error { return s.CreateEntity(ctx, entity(meta.EntityUser, "alice")) })
	step("GetEntity", false, func() error { _, err := s.GetEntity(ctx, meta.EntityUser, "alice"); return err })
	step("CreateAccessKey", true, func() error { return s.CreateAccessKey(ctx, accessKey("alice", "AKIAAAAAAAAAAAAAAAA1")) })
	step("SetAccessKeyStatus", true, func() error {
		return s.SetAccessKeyStatus(ctx, "alice", "AKIAAAAAAAAAAAAAAAA1", meta.AccessKeyInactive)
	})
	step("SetAccessKeyLastUsed", false, func() error { return s.SetAccessKeyLastUsed(ctx, "AKIAAAAAAAAAAAAAAAA1", t0) })
	step("PutInlinePolicy", true, func() error { return s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "p", doc) })
	step("CreateGroup", true, func() error { return s.CreateEntity(ctx, entity(meta.EntityGroup, "devs")) })
	step("AddGroupMember", true, func() error { return s.AddGroupMember(ctx, "devs", "alice") })
	var arn string
	step("CreatePolicy", true, func() error { arn = mkPolicy(t, s, "pol"); return nil })
	step("AttachPolicy", true, func() error { return s.AttachPolicy(ctx, meta.EntityGroup, "devs", arn) })
	step("DetachPolicy", true, func() error { return s.DetachPolicy(ctx, meta.EntityGroup, "devs", arn) })
	step("RemoveGroupMember", true, func() error { return s.RemoveGroupMember(ctx, "devs", "alice") })
	step("DeleteInlinePolicy", true, func() error { return s.DeleteInlinePolicy(ctx, meta.EntityUser, "alice", "p") })
	step("DeleteAccessKey", true, func() error { return s.DeleteAccessKey(ctx, "alice", "AKIAAAAAAAAAAAAAAAA1") })
	step("DeletePolicy", true, func() error { return s.DeletePolicy(ctx, arn) })
	step("DeleteEntity", true, func() error { return s.DeleteEntity(ctx, meta.EntityUser, "alice") })
	// A refused change changes nothing.
	step("refused", false, func() error {
		if err := s.DeleteEntity(ctx, meta.EntityUser, "alice"); !errors.Is(err, meta.ErrNoSuchEntity) {
			return fmt.Errorf("DeleteEntity of a deleted user: %v", err)
		}
		return nil
	})
}

func testIAMEntities(t *testing.T, s meta.Store) {
	ctx := t.Context()
	role := entity(meta.EntityRole, "app")
	role.Path, role.Description = "/svc/", "the app"
	role.TrustPolicy = []byte(`{"Statement":[]}`)
	role.MaxSessionDuration = 2 * time.Hour
	if err := s.CreateEntity(ctx, role); err != nil {
		t.Fatal(err)
	}
	mkEntity(t, s, meta.EntityUser, "Alice")
	mkEntity(t, s, meta.EntityGroup, "alice") // another kind: another namespace

	got, err := s.GetEntity(ctx, meta.EntityRole, "app")
	if err != nil {
		t.Fatal(err)
	}
	if got.Kind != role.Kind || got.Name != role.Name || got.Path != role.Path || got.ID != role.ID ||
		got.ARN != role.ARN || !got.Created.Equal(role.Created) || got.Description != role.Description ||
		!bytes.Equal(got.TrustPolicy, role.TrustPolicy) || got.MaxSessionDuration != role.MaxSessionDuration {
		t.Errorf("GetEntity(role) = %+v, want %+v", got, role)
	}
	// Names ignore case: the lookup finds the user as created.
	u, err := s.GetEntity(ctx, meta.EntityUser, "ALICE")
	if err != nil || u.Name != "Alice" {
		t.Errorf("GetEntity(ALICE) = %q, %v; want Alice", u.Name, err)
	}
	wantErr(t, "CreateEntity(alice) again", s.CreateEntity(ctx, entity(meta.EntityUser, "alice")), meta.ErrEntityAlreadyExists)
	_, err = s.GetEntity(ctx, meta.EntityUser, "bob")
	wantErr(t, "GetEntity(bob)", err, meta.ErrNoSuchEntity)
	_, err = s.GetEntity(ctx, meta.EntityRole, "alice")
	wantErr(t, "GetEntity(role alice)", err, meta.ErrNoSuchEntity)

	if err := s.DeleteEntity(ctx, meta.EntityUser, "alice"); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetEntity(ctx, meta.EntityUser, "Alice")
	wantErr(t, "GetEntity after delete", err, meta.ErrNoSuchEntity)
	if _, err := s.GetEntity(ctx, meta.EntityGroup, "alice"); err != nil {
		t.Errorf("the group of the same name: %v", err)
	}
	wantErr(t, "DeleteEntity again", s.DeleteEntity(ctx, meta.EntityUser, "alice"), meta.ErrNoSuchEntity)
}

func testIAMEntityList(t *testing.T, s meta.Store) {
	ctx := t.Context()
	for _, n := range []struct{ name, path string }{
		{"carol", "/"}, {"Bob", "/eng/"}, {"alice", "/eng/ops/"}, {"dave", "/sales/"},
	} {
		e := entity(meta.EntityUser, n.name)
		e.Path = n.path
		if err := s.CreateEntity(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	mkEntity(t, s, meta.EntityGroup, "aaa")
	list := func(opts meta.IAMListOptions) ([]meta.IAMEntity, error) {
		return s.ListEntities(ctx, meta.EntityUser, opts)
	}
	got, err := list(meta.IAMListOptions{})
	wantNames(t, "all users", got, err, "alice", "Bob", "carol", "dave")
	got, err = list(meta.IAMListOptions{PathPrefix: "/"})
	wantNames(t, "prefix /", got, err, "alice", "Bob", "carol", "dave")
	got, err = list(meta.IAMListOptions{PathPrefix: "/eng/"})
	wantNames(t, "prefix /eng/", got, err, "alice", "Bob")
	got, err = list(meta.IAMListOptions{PathPrefix: "/eng/ops/"})
	wantNames(t, "prefix /eng/ops/", got, err, "alice")
	got, err = list(meta.IAMListOptions{Limit: 2})
	wantNames(t, "page 1", got, err, "alice", "Bob")
	got, err = list(meta.IAMListOptions{After: "bob", Limit: 2})
	wantNames(t, "page 2", got, err, "carol", "dave")
	got, err = list(meta.IAMListOptions{After: "dave"})
	wantNames(t, "after the last", got, err)
	got, err = s.ListEntities(ctx, meta.EntityRole, meta.IAMListOptions{})
	wantNames(t, "no roles", got, err)
}

func testIAMAccessKeys(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkEntity(t, s, meta.EntityUser, "alice")
	mkEntity(t, s, meta.EntityUser, "bob")
	k1, k2 := accessKey("alice", "AKIAAAAAAAAAAAAAAAA1"), accessKey("alice", "AKIAAAAAAAAAAAAAAAA2")
	k2.Created = t0.Add(time.Second)
	for _, k := range []meta.AccessKey{k2, k1} {
		if err := s.CreateAccessKey(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	wantErr(t, "third key", s.CreateAccessKey(ctx, accessKey("alice", "AKIAAAAAAAAAAAAAAAA3")), meta.ErrLimitExceeded)
	wantErr(t, "key of nobody", s.CreateAccessKey(ctx, accessKey("carol", "AKIAAAAAAAAAAAAAAAA4")), meta.ErrNoSuchEntity)
	wantErr(t, "same key ID", s.CreateAccessKey(ctx, accessKey("bob", k1.ID)), meta.ErrEntityAlreadyExists)

	got, err := s.GetAccessKey(ctx, k1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != k1.ID || got.User != "alice" || !bytes.Equal(got.Sealed, k1.Sealed) || got.Status != meta.AccessKeyActive ||
		!got.Created.Equal(k1.Created) || !got.LastUsed.IsZero() {
		t.Errorf("GetAccessKey = %+v, want %+v", got, k1)
	}
	keys, err := s.ListAccessKeys(ctx, "alice")
	if err != nil || len(keys) != 2 || keys[0].ID != k1.ID || keys[1].ID != k2.ID {
		t.Errorf("ListAccessKeys = %+v, %v; want k1, k2 (oldest first)", keys, err)
	}
	if keys, err := s.ListAccessKeys(ctx, "bob"); err != nil || len(keys) != 0 {
		t.Errorf("ListAccessKeys(bob) = %+v, %v; want none", keys, err)
	}
	_, err = s.ListAccessKeys(ctx, "carol")
	wantErr(t, "ListAccessKeys(carol)", err, meta.ErrNoSuchEntity)

	if err := s.SetAccessKeyStatus(ctx, "alice", k1.ID, meta.AccessKeyInactive); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "status of another's key", s.SetAccessKeyStatus(ctx, "bob", k1.ID, meta.AccessKeyActive), meta.ErrNoSuchEntity)
	used := t0.Add(time.Hour)
	if err := s.SetAccessKeyLastUsed(ctx, k1.ID, used); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "last used of no key", s.SetAccessKeyLastUsed(ctx, "AKIAAAAAAAAAAAAAAAA9", used), meta.ErrNoSuchEntity)
	if got, err := s.GetAccessKey(ctx, k1.ID); err != nil || got.Status != meta.AccessKeyInactive || !got.LastUsed.Equal(used) {
		t.Errorf("after updates: %+v, %v", got, err)
	}

	wantErr(t, "delete another's key", s.DeleteAccessKey(ctx, "bob", k1.ID), meta.ErrNoSuchEntity)
	if err := s.DeleteAccessKey(ctx, "alice", k1.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetAccessKey(ctx, k1.ID)
	wantErr(t, "GetAccessKey after delete", err, meta.ErrNoSuchEntity)
	wantErr(t, "delete again", s.DeleteAccessKey(ctx, "alice", k1.ID), meta.ErrNoSuchEntity)
	if err := s.CreateAccessKey(ctx, accessKey("alice", "AKIAAAAAAAAAAAAAAAA3")); err != nil {
		t.Errorf("a key in the freed slot: %v", err)
	}
}

func testIAMGroups(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkEntity(t, s, meta.EntityGroup, "devs")
	mkEntity(t, s, meta.EntityGroup, "admins")
	mkEntity(t, s, meta.EntityUser, "bob")
	mkEntity(t, s, meta.EntityUser, "alice")
	for _, m := range [][2]string{{"devs", "bob"}, {"devs", "alice"}, {"admins", "alice"}, {"devs", "Alice"}} {
		if err := s.AddGroupMember(ctx, m[0], m[1]); err != nil {
			t.Fatalf("AddGroupMember(%q, %q): %v", m[0], m[1], err)
		}
	}
	wantErr(t, "add to no group", s.AddGroupMember(ctx, "ops", "bob"), meta.ErrNoSuchEntity)
	wantErr(t, "add nobody", s.AddGroupMember(ctx, "devs", "carol"), meta.ErrNoSuchEntity)
	got, err := s.GroupMembers(ctx, "devs")
	wantNames(t, "GroupMembers(devs)", got, err, "alice", "bob")
	got, err = s.UserGroups(ctx, "alice")
	wantNames(t, "UserGroups(alice)", got, err, "admins", "devs")
	_, err = s.GroupMembers(ctx, "ops")
	wantErr(t, "GroupMembers(ops)", err, meta.ErrNoSuchEntity)
	_, err = s.UserGroups(ctx, "carol")
	wantErr(t, "UserGroups(carol)", err, meta.ErrNoSuchEntity)

	if err := s.RemoveGroupMember(ctx, "devs", "alice"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "remove a non-member", s.RemoveGroupMember(ctx, "devs", "alice"), meta.ErrNoSuchEntity)
	got, err = s.GroupMembers(ctx, "devs")
	wantNames(t, "GroupMembers(devs) after removal", got, err, "bob")
	got, err = s.UserGroups(ctx, "alice")
	wantNames(t, "UserGroups(alice) after removal", got, err, "admins")
}

func testIAMPolicies(t *testing.T, s meta.Store) {
	ctx := t.Context()
	p := meta.ManagedPolicy{
		Name: "ReadAll", Path: "/team/", ID: "ANPAREADALL", ARN: "arn:aws:iam::123456789012:policy/team/ReadAll",
		Description: "read", Document: []byte(`{"Statement":[]}`), DefaultVersion: "v1",
		Created: t0, Updated: t0.Add(time.Second),
	}
	if err := s.CreatePolicy(ctx, p); err != nil {
		t.Fatal(err)
	}
	other := mkPolicy(t, s, "another")
	dup := p
	dup.Name, dup.ARN, dup.ID = "readall", "arn:aws:iam::123456789012:policy/readall", "ANPAOTHER"
	wantErr(t, "CreatePolicy of a name in use", s.CreatePolicy(ctx, dup), meta.ErrEntityAlreadyExists)

	got, err := s.GetPolicy(ctx, p.ARN)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != p.Name || got.Path != p.Path || got.ID != p.ID || got.ARN != p.ARN || got.Description != p.Description ||
		!bytes.Equal(got.Document, p.Document) || got.DefaultVersion != "v1" || !got.Created.Equal(p.Created) ||
		!got.Updated.Equal(p.Updated) || got.AttachmentCount != 0 {
		t.Errorf("GetPolicy = %+v, want %+v", got, p)
	}
	_, err = s.GetPolicy(ctx, "arn:aws:iam::123456789012:policy/none")
	wantErr(t, "GetPolicy(none)", err, meta.ErrNoSuchEntity)

	all, err := s.ListPolicies(ctx, meta.IAMListOptions{})
	if err != nil || len(all) != 2 || all[0].ARN != other || all[1].ARN != p.ARN {
		t.Errorf("ListPolicies = %+v, %v", all, err)
	}
	team, err := s.ListPolicies(ctx, meta.IAMListOptions{PathPrefix: "/team/"})
	if err != nil || len(team) != 1 || team[0].ARN != p.ARN {
		t.Errorf("ListPolicies(/team/) = %+v, %v", team, err)
	}
	page, err := s.ListPolicies(ctx, meta.IAMListOptions{After: "another", Limit: 1})
	if err != nil || len(page) != 1 || page[0].ARN != p.ARN {
		t.Errorf("ListPolicies(after another) = %+v, %v", page, err)
	}

	if err := s.DeletePolicy(ctx, p.ARN); err != nil {
		t.Fatal(err)
	}
	_, err = s.GetPolicy(ctx, p.ARN)
	wantErr(t, "GetPolicy after delete", err, meta.ErrNoSuchEntity)
	wantErr(t, "DeletePolicy again", s.DeletePolicy(ctx, p.ARN), meta.ErrNoSuchEntity)
}

func testIAMInline(t *testing.T, s meta.Store) {
	ctx := t.Context()
	for _, kind := range []meta.EntityKind{meta.EntityUser, meta.EntityGroup, meta.EntityRole} {
		mkEntity(t, s, kind, "x")
		put := func(name, doc string) {
			t.Helper()
			if err := s.PutInlinePolicy(ctx, kind, "x", name, []byte(doc)); err != nil {
				t.Fatalf("PutInlinePolicy(%v, %q): %v", kind, name, err)
			}
		}
		put("b", "doc-b")
		put("a", "doc-a1")
		put("A", "doc-a2") // the same policy: names ignore case
		got, err := s.GetInlinePolicy(ctx, kind, "x", "a")
		if err != nil || got.Name != "a" || string(got.Document) != "doc-a2" {
			t.Errorf("%v GetInlinePolicy(a) = %q %q, %v; want a doc-a2", kind, got.Name, got.Document, err)
		}
		all, err := s.InlinePolicies(ctx, kind, "x")
		if err != nil || len(all) != 2 || all[0].Name != "a" || all[1].Name != "b" || string(all[1].Document) != "doc-b" {
			t.Errorf("%v InlinePolicies = %q, %v", kind, all, err)
		}
		_, err = s.GetInlinePolicy(ctx, kind, "x", "c")
		wantErr(t, "GetInlinePolicy(c)", err, meta.ErrNoSuchEntity)
		_, err = s.InlinePolicies(ctx, kind, "y")
		wantErr(t, "InlinePolicies of nobody", err, meta.ErrNoSuchEntity)
		wantErr(t, "PutInlinePolicy on nobody", s.PutInlinePolicy(ctx, kind, "y", "a", []byte("d")), meta.ErrNoSuchEntity)
		if err := s.DeleteInlinePolicy(ctx, kind, "x", "a"); err != nil {
			t.Fatal(err)
		}
		wantErr(t, "DeleteInlinePolicy again", s.DeleteInlinePolicy(ctx, kind, "x", "a"), meta.ErrNoSuchEntity)
		if all, err := s.InlinePolicies(ctx, kind, "x"); err != nil || len(all) != 1 {
			t.Errorf("%v InlinePolicies after delete = %q, %v", kind, all, err)
		}
	}
}

func testIAMAttach(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkEntity(t, s, meta.EntityUser, "alice")
	mkEntity(t, s, meta.EntityRole, "alice")
	var arns []string
	for i := range meta.MaxAttachedPolicies + 1 {
		arns = append(arns, mkPolicy(t, s, fmt.Sprintf("p%02d", i)))
	}
	for _, arn := range arns[:meta.MaxAttachedPolicies] {
		if err := s.AttachPolicy(ctx, meta.EntityUser, "alice", arn); err != nil {
			t.Fatalf("AttachPolicy(%s): %v", arn, err)
		}
	}
	if err := s.AttachPolicy(ctx, meta.EntityUser, "alice", arns[0]); err != nil {
		t.Errorf("attaching again: %v", err)
	}
	wantErr(t, "one too many", s.AttachPolicy(ctx, meta.EntityUser, "alice", arns[meta.MaxAttachedPolicies]), meta.ErrLimitExceeded)
	wantErr(t, "attach no policy", s.AttachPolicy(ctx, meta.EntityRole, "alice", "arn:aws:iam::123456789012:policy/none"), meta.ErrNoSuchEntity)
	wantErr(t, "attach to nobody", s.AttachPolicy(ctx, meta.EntityGroup, "alice", arns[0]), meta.ErrNoSuchEntity)
	if err := s.AttachPolicy(ctx, meta.EntityRole, "alice", arns[0]); err != nil {
		t.Fatal(err)
	}
	if p, err := s.GetPolicy(ctx, arns[0]); err != nil || p.AttachmentCount != 2 {
		t.Errorf("AttachmentCount = %d, %v; want 2", p.AttachmentCount, err)
	}
	got, err := s.AttachedPolicies(ctx, meta.EntityUser, "alice")
	if err != nil || len(got) != meta.MaxAttachedPolicies || got[0].ARN != arns[0] || len(got[0].Document) == 0 {
		t.Errorf("AttachedPolicies = %d policies, %v", len(got), err)
	}
	wantErr(t, "DeletePolicy attached", s.DeletePolicy(ctx, arns[0]), meta.ErrDeleteConflict)
	if err := s.DetachPolicy(ctx, meta.EntityUser, "alice", arns[0]); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "detach again", s.DetachPolicy(ctx, meta.EntityUser, "alice", arns[0]), meta.ErrNoSuchEntity)
	if err := s.AttachPolicy(ctx, meta.EntityUser, "alice", arns[meta.MaxAttachedPolicies]); err != nil {
		t.Errorf("attach in the freed slot: %v", err)
	}
	if err := s.DetachPolicy(ctx, meta.EntityRole, "alice", arns[0]); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePolicy(ctx, arns[0]); err != nil {
		t.Errorf("DeletePolicy once detached: %v", err)
	}
}

// blocker is something that keeps an entity from being deleted.
type blocker struct {
	name       string
	kind       meta.EntityKind
	entity     string
	add, clear func() error
}

func testIAMDeleteConflict(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkEntity(t, s, meta.EntityUser, "alice")
	mkEntity(t, s, meta.EntityGroup, "devs")
	mkEntity(t, s, meta.EntityRole, "app")
	arn := mkPolicy(t, s, "pol")
	doc := []byte("{}")
	// Each dependent in turn blocks the delete until it is removed.
	blockers := []blocker{
		{"access key", meta.EntityUser, "alice",
			func() error { return s.CreateAccessKey(ctx, accessKey("alice", "AKIAAAAAAAAAAAAAAAA1")) },
			func() error { return s.DeleteAccessKey(ctx, "alice", "AKIAAAAAAAAAAAAAAAA1") }},
		{"membership (user)", meta.EntityUser, "alice",
			func() error { return s.AddGroupMember(ctx, "devs", "alice") },
			func() error { return s.RemoveGroupMember(ctx, "devs", "alice") }},
		{"membership (group)", meta.EntityGroup, "devs",
			func() error { return s.AddGroupMember(ctx, "devs", "alice") },
			func() error { return s.RemoveGroupMember(ctx, "devs", "alice") }},
	}
	for _, k := range []struct {
		kind meta.EntityKind
		name string
	}{{meta.EntityUser, "alice"}, {meta.EntityGroup, "devs"}, {meta.EntityRole, "app"}} {
		blockers = append(blockers,
			blocker{"inline policy", k.kind, k.name,
				func() error { return s.PutInlinePolicy(ctx, k.kind, k.name, "p", doc) },
				func() error { return s.DeleteInlinePolicy(ctx, k.kind, k.name, "p") }},
			blocker{"attached policy", k.kind, k.name,
				func() error { return s.AttachPolicy(ctx, k.kind, k.name, arn) },
				func() error { return s.DetachPolicy(ctx, k.kind, k.name, arn) }})
	}
	for _, b := range blockers {
		if err := b.add(); err != nil {
			t.Fatalf("%s: add: %v", b.name, err)
		}
		wantErr(t, fmt.Sprintf("delete %v with %s", b.kind, b.name), s.DeleteEntity(ctx, b.kind, b.entity), meta.ErrDeleteConflict)
		if err := b.clear(); err != nil {
			t.Fatalf("%s: clear: %v", b.name, err)
		}
	}
	for _, k := range []meta.EntityKind{meta.EntityUser, meta.EntityGroup, meta.EntityRole} {
		if err := s.DeleteEntity(ctx, k, map[meta.EntityKind]string{meta.EntityUser: "alice", meta.EntityGroup: "devs", meta.EntityRole: "app"}[k]); err != nil {
			t.Errorf("delete %v once clear: %v", k, err)
		}
	}
}

// testIAMBoundary: a user's or role's permissions boundary is set,
// read back, replaced and removed; it names an existing managed policy,
// which cannot be deleted while it is one; each change advances the
// generation and a refused one changes nothing.
func testIAMBoundary(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkEntity(t, s, meta.EntityUser, "alice")
	mkEntity(t, s, meta.EntityRole, "ops")
	a, b := mkPolicy(t, s, "boundA"), mkPolicy(t, s, "boundB")
	wantBoundary := func(kind meta.EntityKind, name, want string) {
		t.Helper()
		e, err := s.GetEntity(ctx, kind, name)
		if err != nil || e.Boundary != want {
			t.Fatalf("%v %s: boundary %q, %v; want %q", kind, name, e.Boundary, err, want)
		}
	}
	wantBoundary(meta.EntityUser, "alice", "")
	gen, err := s.IAMGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetBoundary(ctx, meta.EntityUser, "Alice", a); err != nil {
		t.Fatal(err)
	}
	if g, _ := s.IAMGeneration(ctx); g == gen {
		t.Error("SetBoundary: generation stayed")
	}
	wantBoundary(meta.EntityUser, "alice", a)
	if err := s.SetBoundary(ctx, meta.EntityRole, "ops", b); err != nil {
		t.Fatal(err)
	}
	wantBoundary(meta.EntityRole, "ops", b)
	us, err := s.ListEntities(ctx, meta.EntityUser, meta.IAMListOptions{})
	if err != nil || len(us) != 1 || us[0].Boundary != a {
		t.Fatalf("ListEntities: %+v, %v", us, err)
	}

	gen, _ = s.IAMGeneration(ctx)
	if err := s.SetBoundary(ctx, meta.EntityUser, "alice", "arn:aws:iam::123456789012:policy/none"); !errors.Is(err, meta.ErrNoSuchEntity) {
		t.Fatalf("SetBoundary to a missing policy: %v", err)
	}
	if err := s.SetBoundary(ctx, meta.EntityUser, "nobody", a); !errors.Is(err, meta.ErrNoSuchEntity) {
		t.Fatalf("SetBoundary of a missing user: %v", err)
	}
	if err := s.DeletePolicy(ctx, a); !errors.Is(err, meta.ErrDeleteConflict) {
		t.Fatalf("DeletePolicy of a boundary in use: %v", err)
	}
	if g, _ := s.IAMGeneration(ctx); g != gen {
		t.Error("refused changes moved the generation")
	}
	wantBoundary(meta.EntityUser, "alice", a)

	if err := s.SetBoundary(ctx, meta.EntityUser, "alice", b); err != nil {
		t.Fatal(err)
	}
	wantBoundary(meta.EntityUser, "alice", b)
	if err := s.DeletePolicy(ctx, a); err != nil {
		t.Fatalf("DeletePolicy of a boundary no longer in use: %v", err)
	}
	if err := s.SetBoundary(ctx, meta.EntityUser, "alice", ""); err != nil {
		t.Fatal(err)
	}
	wantBoundary(meta.EntityUser, "alice", "")
	if p, err := s.GetPolicy(ctx, b); err != nil || p.BoundaryCount != 1 {
		t.Fatalf("GetPolicy of the role's boundary: BoundaryCount %d, %v; want 1", p.BoundaryCount, err)
	}
	// Created with a boundary; one that does not exist creates nothing.
	bob := entity(meta.EntityUser, "bob")
	bob.Boundary = "arn:aws:iam::123456789012:policy/none"
	if err := s.CreateEntity(ctx, bob); !errors.Is(err, meta.ErrNoSuchEntity) {
		t.Fatalf("CreateEntity with a missing boundary: %v", err)
	}
	if _, err := s.GetEntity(ctx, meta.EntityUser, "bob"); !errors.Is(err, meta.ErrNoSuchEntity) {
		t.Fatalf("bob after a refused CreateEntity: %v", err)
	}
	bob.Boundary = b
	if err := s.CreateEntity(ctx, bob); err != nil {
		t.Fatal(err)
	}
	wantBoundary(meta.EntityUser, "bob", b)
	if p, err := s.GetPolicy(ctx, b); err != nil || p.BoundaryCount != 2 || p.AttachmentCount != 0 {
		t.Fatalf("GetPolicy: BoundaryCount %d, AttachmentCount %d, %v; want 2, 0", p.BoundaryCount, p.AttachmentCount, err)
	}
	if err := s.DeleteEntity(ctx, meta.EntityUser, "bob"); err != nil {
		t.Fatal(err)
	}
	// A boundary does not keep its entity from being deleted.
	if err := s.DeleteEntity(ctx, meta.EntityRole, "ops"); err != nil {
		t.Fatalf("DeleteEntity of a role with a boundary: %v", err)
	}
	if err := s.DeletePolicy(ctx, b); err != nil {
		t.Fatalf("DeletePolicy once its role is gone: %v", err)
	}
}
