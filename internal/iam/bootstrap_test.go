package iam

import (
	"testing"
)

const bootstrapDoc = `{
 "groups": [{"name": "readers", "policies": {"read": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"*"}]}}}],
 "users": [{"name": "alice", "groups": ["readers"],
   "policies": {"own": {"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:PutObject","Resource":"arn:aws:s3:::a/*"}]}},
   "accessKeys": [{"accessKeyId": "AKIAALICE00000000000", "secretAccessKey": "alice-secret-0000000000000000000000000000"}]}]}`

// TestBootstrap: a bootstrap file creates its users, groups, policies and
// keys; applied again (every restart) it changes nothing and fails not.
func TestBootstrap(t *testing.T) {
	s := open(t)
	b, err := ParseBootstrap([]byte(bootstrapDoc))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.ApplyBootstrap(t.Context(), b); err != nil {
			t.Fatal(err)
		}
	}
	if secret, ok := s.SecretKey("AKIAALICE00000000000"); !ok || secret != "alice-secret-0000000000000000000000000000" {
		t.Errorf("SecretKey = %q, %v", secret, ok)
	}
	p, err := s.Principal(t.Context(), "AKIAALICE00000000000")
	if err != nil {
		t.Fatal(err)
	}
	if p.UserName != "alice" || len(p.Policies) != 2 {
		t.Errorf("principal %s with %d policies, want alice with her own and her group's", p.UserName, len(p.Policies))
	}
	keys, err := s.ListAccessKeys(t.Context(), "alice")
	if err != nil || len(keys) != 1 {
		t.Errorf("alice has %d keys (%v), want 1", len(keys), err)
	}
}

func TestBootstrapRefuses(t *testing.T) {
	for _, doc := range []string{
		`{"users": [{"name": "a", "colour": "red"}]}`, // unknown field
		`{"users": [`,
	} {
		if _, err := ParseBootstrap([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", doc)
		}
	}
	s := open(t)
	for _, doc := range []string{
		`{"users": [{"name": "a", "policies": {"p": {"Statement": "nope"}}}]}`,                         // malformed policy
		`{"users": [{"name": "a", "accessKeys": [{"accessKeyId": "SHORT", "secretAccessKey": "x"}]}]}`, // key too short
		`{"users": [{"name": "a", "groups": ["missing"]}]}`,                                            // no such group
	} {
		b, err := ParseBootstrap([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.ApplyBootstrap(t.Context(), b); err == nil {
			t.Errorf("%s: applied", doc)
		}
	}
}
