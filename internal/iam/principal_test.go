package iam

import (
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

const (
	allowPut   = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::b/*"}]}`
	allowList  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:ListBucket","Resource":"arn:aws:s3:::b"}]}`
	denySecret = `{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"s3:*","Resource":"arn:aws:s3:::b/secret/*"}]}`
	trustUser  = `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::123456789012:user/alice"},"Action":"sts:AssumeRole"}]}`
)

func TestManagedPolicies(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	p := must(s.CreatePolicy(ctx, "Put", "", "puts", []byte(allowPut)))
	if p.ARN != "arn:aws:iam::"+s.Account()+":policy/Put" || p.DefaultVersion != "v1" ||
		!regexp.MustCompile(`^ANPA[A-Z2-7]{17}$`).MatchString(p.ID) {
		t.Errorf("CreatePolicy = %+v", p)
	}
	team := must(s.CreatePolicy(ctx, "List", "/team/", "", []byte(allowList)))
	if team.ARN != "arn:aws:iam::"+s.Account()+":policy/team/List" {
		t.Errorf("ARN with a path = %q", team.ARN)
	}
	_, err := s.CreatePolicy(ctx, "put", "", "", []byte(allowPut))
	wantErr(t, "CreatePolicy of a name in use", err, meta.ErrEntityAlreadyExists)
	_, err = s.CreatePolicy(ctx, "Bad", "", "", []byte(`{"Statement":[{"Effect":"Allow"}]}`))
	wantErr(t, "malformed managed policy", err, ErrMalformedPolicyDocument)
	_, err = s.CreatePolicy(ctx, "Big", "", "", []byte(bigPolicy(policy.MaxManagedPolicy+1)))
	wantErr(t, "managed policy over PolicySize", err, meta.ErrLimitExceeded)

	ps, next, err := s.ListPolicies(ctx, Page{MaxItems: 1})
	if err != nil || len(ps) != 1 || ps[0].Name != "List" || next != "List" {
		t.Errorf("ListPolicies page 1 = %+v, %q, %v", ps, next, err)
	}
	ps, next, err = s.ListPolicies(ctx, Page{MaxItems: 1, Marker: next})
	if err != nil || len(ps) != 1 || ps[0].Name != "Put" || next != "" {
		t.Errorf("ListPolicies page 2 = %+v, %q, %v", ps, next, err)
	}

	must(s.CreateUser(ctx, "alice", ""))
	ok(t, s.AttachPolicy(ctx, meta.EntityUser, "alice", p.ARN))
	attached := must(s.ListAttachedPolicies(ctx, meta.EntityUser, "alice"))
	if len(attached) != 1 || attached[0].ARN != p.ARN {
		t.Errorf("ListAttachedPolicies = %+v", attached)
	}
	if got := must(s.GetPolicy(ctx, p.ARN)); got.AttachmentCount != 1 {
		t.Errorf("AttachmentCount = %d", got.AttachmentCount)
	}
	wantErr(t, "attach an AWS managed policy", s.AttachPolicy(ctx, meta.EntityUser, "alice", "arn:aws:iam::aws:policy/ReadOnlyAccess"), meta.ErrNoSuchEntity)
	wantErr(t, "attach not an ARN", s.AttachPolicy(ctx, meta.EntityUser, "alice", "Put"), ErrInvalidInput)
	wantErr(t, "DeletePolicy attached", s.DeletePolicy(ctx, p.ARN), meta.ErrDeleteConflict)
	wantErr(t, "DeleteUser attached", s.DeleteUser(ctx, "alice"), meta.ErrDeleteConflict)
	ok(t, s.DetachPolicy(ctx, meta.EntityUser, "alice", p.ARN))
	ok(t, s.DeletePolicy(ctx, p.ARN))
	_, err = s.GetPolicy(ctx, p.ARN)
	wantErr(t, "GetPolicy deleted", err, meta.ErrNoSuchEntity)
}

func TestGroups(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	g := must(s.CreateGroup(ctx, "devs", "/eng/"))
	if g.ARN != "arn:aws:iam::"+s.Account()+":group/eng/devs" || !regexp.MustCompile(`^AGPA`).MatchString(g.ID) {
		t.Errorf("CreateGroup = %+v", g)
	}
	must(s.CreateUser(ctx, "bob", ""))
	must(s.CreateUser(ctx, "alice", ""))
	ok(t, s.AddUserToGroup(ctx, "devs", "bob"))
	ok(t, s.AddUserToGroup(ctx, "devs", "alice"))
	got, members, err := s.GetGroup(ctx, "devs")
	if err != nil || got.ID != g.ID || len(members) != 2 || members[0].Name != "alice" || members[1].Name != "bob" {
		t.Errorf("GetGroup = %+v, %+v, %v", got, members, err)
	}
	if gs := must(s.ListGroupsForUser(ctx, "bob")); len(gs) != 1 || gs[0].Name != "devs" {
		t.Errorf("ListGroupsForUser = %+v", gs)
	}
	ok(t, s.PutInlinePolicy(ctx, meta.EntityGroup, "devs", "get", []byte(allowGet)))
	wantErr(t, "DeleteGroup with members", s.DeleteGroup(ctx, "devs"), meta.ErrDeleteConflict)
	wantErr(t, "DeleteUser in a group", s.DeleteUser(ctx, "bob"), meta.ErrDeleteConflict)
	ok(t, s.RemoveUserFromGroup(ctx, "devs", "bob"))
	ok(t, s.RemoveUserFromGroup(ctx, "devs", "alice"))
	wantErr(t, "remove again", s.RemoveUserFromGroup(ctx, "devs", "alice"), meta.ErrNoSuchEntity)
	wantErr(t, "DeleteGroup with a policy", s.DeleteGroup(ctx, "devs"), meta.ErrDeleteConflict)
	ok(t, s.DeleteInlinePolicy(ctx, meta.EntityGroup, "devs", "get"))
	ok(t, s.DeleteGroup(ctx, "devs"))
	if gs, _, err := s.ListGroups(ctx, Page{}); err != nil || len(gs) != 0 {
		t.Errorf("ListGroups after delete = %+v, %v", gs, err)
	}
}

func TestRoles(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	r := must(s.CreateRole(ctx, RoleInput{Name: "app", TrustPolicy: []byte(trustUser), Description: "the app"}))
	if r.ARN != "arn:aws:iam::"+s.Account()+":role/app" || r.MaxSessionDuration != time.Hour ||
		!regexp.MustCompile(`^AROA`).MatchString(r.ID) {
		t.Errorf("CreateRole = %+v", r)
	}
	got := must(s.GetRole(ctx, "app"))
	if string(got.TrustPolicy) != trustUser || got.Description != "the app" {
		t.Errorf("GetRole = %+v", got)
	}
	for name, in := range map[string]RoleInput{
		"identity policy as trust": {Name: "x", TrustPolicy: []byte(allowGet)},
		"no trust policy":          {Name: "x"},
	} {
		_, err := s.CreateRole(ctx, in)
		wantErr(t, name, err, ErrMalformedPolicyDocument)
	}
	for _, d := range []time.Duration{time.Minute, 13 * time.Hour, time.Hour + time.Millisecond} {
		_, err := s.CreateRole(ctx, RoleInput{Name: "x", TrustPolicy: []byte(trustUser), MaxSessionDuration: d})
		wantErr(t, "MaxSessionDuration "+d.String(), err, ErrValidation)
	}
	ok(t, s.PutInlinePolicy(ctx, meta.EntityRole, "app", "get", []byte(allowGet)))
	wantErr(t, "DeleteRole with a policy", s.DeleteRole(ctx, "app"), meta.ErrDeleteConflict)
	ok(t, s.DeleteInlinePolicy(ctx, meta.EntityRole, "app", "get"))
	ok(t, s.DeleteRole(ctx, "app"))
	_, err := s.GetRole(ctx, "app")
	wantErr(t, "GetRole deleted", err, meta.ErrNoSuchEntity)
}

// decide evaluates action on resource for p's identity policies.
func decide(p *Principal, action, resource string) policy.Decision {
	r := &policy.Request{Type: policy.User, Account: p.Account, ARN: p.ARN, Action: action, Resource: resource, Context: policy.Context{}}
	return policy.Evaluate(r, &policy.Set{Identity: p.Policies})
}

// TestPrincipal: a user's policies are its inline and attached ones and
// its groups'; together they decide as AWS does.
func TestPrincipal(t *testing.T) {
	s := open(t)
	ctx := t.Context()
	u := must(s.CreateUser(ctx, "alice", "/eng/"))
	k := must(s.CreateAccessKey(ctx, "alice"))
	put := must(s.CreatePolicy(ctx, "Put", "", "", []byte(allowPut)))
	list := must(s.CreatePolicy(ctx, "List", "", "", []byte(allowList)))
	must(s.CreateGroup(ctx, "devs", ""))
	ok(t, s.AddUserToGroup(ctx, "devs", "alice"))
	ok(t, s.PutInlinePolicy(ctx, meta.EntityUser, "alice", "get", []byte(allowGet)))
	ok(t, s.AttachPolicy(ctx, meta.EntityUser, "alice", put.ARN))
	ok(t, s.PutInlinePolicy(ctx, meta.EntityGroup, "devs", "deny", []byte(denySecret)))
	ok(t, s.AttachPolicy(ctx, meta.EntityGroup, "devs", list.ARN))
	ok(t, s.AttachPolicy(ctx, meta.EntityGroup, "devs", put.ARN)) // the user's too: counted once

	p := must(s.Principal(ctx, k.ID))
	if p.ARN != u.ARN || p.UserID != u.ID || p.UserName != "alice" || p.Account != s.Account() || len(p.Policies) != 4 {
		t.Fatalf("Principal = %+v (%d policies), want alice's 4", p, len(p.Policies))
	}
	for _, c := range []struct {
		action, resource string
		want             policy.Decision
	}{
		{"s3:GetObject", "arn:aws:s3:::b/k", policy.Allowed},             // user inline
		{"s3:PutObject", "arn:aws:s3:::b/k", policy.Allowed},             // user attached
		{"s3:ListBucket", "arn:aws:s3:::b", policy.Allowed},              // group attached
		{"s3:GetObject", "arn:aws:s3:::b/secret/k", policy.ExplicitDeny}, // group inline
		{"s3:DeleteObject", "arn:aws:s3:::b/k", policy.ImplicitDeny},
	} {
		if got := decide(p, c.action, c.resource); got != c.want {
			t.Errorf("%s %s = %v, want %v", c.action, c.resource, got, c.want)
		}
	}
	// KeyHolder finds the same secret and user in one look-up.
	secret, held, found := s.KeyHolder(k.ID)
	if want, _ := s.SecretKey(k.ID); !found || secret != want || held != p {
		t.Errorf("KeyHolder = %q, %p, %v; want SecretKey's %q and Principal's %p", secret, held, found, want, p)
	}
	_, err := s.Principal(ctx, "AKIANOSUCHKEY0000000")
	wantErr(t, "Principal of no key", err, ErrNoSuchKey)
	if _, held, found := s.KeyHolder("AKIANOSUCHKEY0000000"); found || held != nil {
		t.Errorf("KeyHolder of no key = %p, %v", held, found)
	}
}

// TestPrincipalInvalidation: a change is seen at once through the Service
// that made it, and by another Service over the same store (another
// gateway) once it polls the change counter.
func TestPrincipalInvalidation(t *testing.T) {
	st := openStore(t)
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	advance := func(d time.Duration) { mu.Lock(); clock = clock.Add(d); mu.Unlock() }
	a := newService(t, st, Options{Now: now, PollInterval: time.Minute})
	b := newService(t, st, Options{Now: now, PollInterval: time.Minute})
	ctx := t.Context()
	must(a.CreateUser(ctx, "alice", ""))
	k := must(a.CreateAccessKey(ctx, "alice"))
	ok(t, a.PutInlinePolicy(ctx, meta.EntityUser, "alice", "get", []byte(allowGet)))

	count := func(s *Service) int {
		t.Helper()
		n := len(must(s.Principal(ctx, k.ID)).Policies)
		if _, p, found := s.KeyHolder(k.ID); !found || p == nil || len(p.Policies) != n {
			t.Errorf("KeyHolder disagrees with Principal's %d policies: %+v, %v", n, p, found)
		}
		return n
	}
	if count(a) != 1 || count(b) != 1 {
		t.Fatal("alice should have one policy")
	}
	ok(t, a.PutInlinePolicy(ctx, meta.EntityUser, "alice", "put", []byte(allowPut)))
	if n := count(a); n != 2 {
		t.Errorf("the writer sees %d policies, want 2 at once", n)
	}
	if n := count(b); n != 1 {
		t.Errorf("the other gateway sees %d policies before it polls, want its cached 1", n)
	}
	advance(time.Minute)
	if n := count(b); n != 2 {
		t.Errorf("the other gateway sees %d policies after its poll interval, want 2", n)
	}

	// Disabling the key: the other gateway stops accepting it after a poll.
	if _, found := b.SecretKey(k.ID); !found {
		t.Fatal("b does not know the key")
	}
	ok(t, a.UpdateAccessKey(ctx, "alice", k.ID, meta.AccessKeyInactive))
	if _, found := a.SecretKey(k.ID); found {
		t.Error("the writer still accepts the disabled key")
	}
	if _, _, found := a.KeyHolder(k.ID); found {
		t.Error("the writer's KeyHolder still finds the disabled key")
	}
	advance(time.Minute)
	if _, found := b.SecretKey(k.ID); found {
		t.Error("the other gateway accepts the disabled key after its poll interval")
	}
	if _, _, found := b.KeyHolder(k.ID); found {
		t.Error("the other gateway's KeyHolder finds the disabled key after its poll interval")
	}

	// Group membership changes what applies, too.
	ok(t, a.UpdateAccessKey(ctx, "alice", k.ID, meta.AccessKeyActive))
	must(a.CreateGroup(ctx, "devs", ""))
	ok(t, a.PutInlinePolicy(ctx, meta.EntityGroup, "devs", "deny", []byte(denySecret)))
	ok(t, a.AddUserToGroup(ctx, "devs", "alice"))
	if n := count(a); n != 3 {
		t.Errorf("after joining a group: %d policies, want 3", n)
	}
	ok(t, a.RemoveUserFromGroup(ctx, "devs", "alice"))
	if n := count(a); n != 2 {
		t.Errorf("after leaving the group: %d policies, want 2", n)
	}
}

// TestPrincipalRacingWrites runs lookups beside writes (go test -race):
// once the writes are done, every Service sees their result.
func TestPrincipalRacingWrites(t *testing.T) {
	st := openStore(t)
	a := newService(t, st, Options{})
	ctx := t.Context()
	must(a.CreateUser(ctx, "alice", ""))
	k := must(a.CreateAccessKey(ctx, "alice"))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if _, err := a.Principal(ctx, k.ID); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	names := []string{"p0", "p1", "p2", "p3", "p4"}
	for _, n := range names {
		ok(t, a.PutInlinePolicy(ctx, meta.EntityUser, "alice", n, []byte(allowGet)))
	}
	wg.Wait()
	if n := len(must(a.Principal(ctx, k.ID)).Policies); n != len(names) {
		t.Errorf("%d policies after the writes, want %d", n, len(names))
	}
}

// TestPrincipalBoundary: a user's permissions boundary is compiled into
// its Principal; setting, replacing and removing it reach the writer's
// cache at once and another gateway's after its poll; a policy in use as
// a boundary cannot be deleted.
func TestPrincipalBoundary(t *testing.T) {
	st := openStore(t)
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	a := newService(t, st, Options{Now: now, PollInterval: time.Minute})
	b := newService(t, st, Options{Now: now, PollInterval: time.Minute})
	ctx := t.Context()
	must(a.CreateUser(ctx, "alice", ""))
	k := must(a.CreateAccessKey(ctx, "alice"))
	ok(t, a.PutInlinePolicy(ctx, meta.EntityUser, "alice", "all", []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)))
	getOnly := must(a.CreatePolicy(ctx, "GetOnly", "", "", []byte(allowGet)))
	putOnly := must(a.CreatePolicy(ctx, "PutOnly", "", "", []byte(allowPut)))

	allowed := func(s *Service, action string) bool {
		t.Helper()
		p := must(s.Principal(ctx, k.ID))
		r := &policy.Request{Type: policy.User, ARN: p.ARN, Account: p.Account, Action: action, Resource: "arn:aws:s3:::b/k", Context: policy.Context{}}
		return policy.Evaluate(r, &policy.Set{Identity: p.Policies, Boundary: p.Boundary}) == policy.Allowed
	}
	if !allowed(a, "s3:PutObject") || !allowed(b, "s3:PutObject") {
		t.Fatal("without a boundary s3:* allows PutObject")
	}
	wantErr(t, "a boundary that does not exist", a.SetBoundary(ctx, meta.EntityUser, "alice", "arn:aws:iam::"+a.Account()+":policy/None"), meta.ErrNoSuchEntity)
	wantErr(t, "a boundary that is not an ARN", a.SetBoundary(ctx, meta.EntityUser, "alice", "GetOnly"), ErrInvalidInput)
	ok(t, a.SetBoundary(ctx, meta.EntityUser, "alice", getOnly.ARN))
	if allowed(a, "s3:PutObject") || !allowed(a, "s3:GetObject") {
		t.Error("the writer: the GetOnly boundary should allow GetObject only")
	}
	if !allowed(b, "s3:PutObject") {
		t.Error("the other gateway changed before its poll")
	}
	mu.Lock()
	clock = clock.Add(time.Minute)
	mu.Unlock()
	if allowed(b, "s3:PutObject") || !allowed(b, "s3:GetObject") {
		t.Error("the other gateway after its poll: the GetOnly boundary should allow GetObject only")
	}
	wantErr(t, "DeletePolicy of a boundary in use", a.DeletePolicy(ctx, getOnly.ARN), meta.ErrDeleteConflict)
	ok(t, a.SetBoundary(ctx, meta.EntityUser, "alice", putOnly.ARN))
	if !allowed(a, "s3:PutObject") || allowed(a, "s3:GetObject") {
		t.Error("after replacing the boundary by PutOnly")
	}
	ok(t, a.SetBoundary(ctx, meta.EntityUser, "alice", ""))
	if !allowed(a, "s3:PutObject") || !allowed(a, "s3:GetObject") || must(a.Principal(ctx, k.ID)).Boundary != nil {
		t.Error("after removing the boundary s3:* should allow both")
	}
	ok(t, a.DeletePolicy(ctx, getOnly.ARN))
}
