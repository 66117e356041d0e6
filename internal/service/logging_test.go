package service

import (
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/meta"
)

// TestLogDeliveryAllowed: a target takes a source's logs when its policy
// names the logging service for that source and prefix, or (ACLs
// enabled) its ACL grants the log delivery group; a configuration of the
// root's needs neither, but a Deny refuses it too.
func TestLogDeliveryAllowed(t *testing.T) {
	s, _ := newTestService(t, 0)
	ctx := t.Context()
	if err := s.CreateBucket(ctx, "logs", "r", "owner"); err != nil {
		t.Fatal(err)
	}
	a := authz.New("111122223333", authz.Options{})
	user := BucketLogging{TargetBucket: "logs", TargetPrefix: "b/"}
	root := user
	root.ByRoot = true
	ask := func(l BucketLogging, source string) bool {
		t.Helper()
		ok, err := s.LogDeliveryAllowed(ctx, a, source, l, LogObjectKey(l.TargetPrefix, meta.Now(), "0123456789ABCDEF"))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if ask(user, "b") || !ask(root, "b") {
		t.Fatal("without a policy: a user's configuration allowed, or the root's refused")
	}
	if err := s.PutBucketPolicy(ctx, "logs", []byte(`{"Version":"2012-10-17","Statement":[
		{"Effect":"Allow","Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/b/*",
		 "Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:s3:::b"}}},
		{"Effect":"Deny","Principal":{"Service":"logging.s3.amazonaws.com"},"Action":"s3:PutObject","Resource":"arn:aws:s3:::logs/no/*"}]}`)); err != nil {
		t.Fatal(err)
	}
	if !ask(user, "b") || ask(user, "other") {
		t.Error("the policy's grant is not the source's alone")
	}
	other := user
	other.TargetPrefix = "c/"
	if ask(other, "b") {
		t.Error("the policy's grant is not the prefix's alone")
	}
	denied := root
	denied.TargetPrefix = "no/"
	if ask(denied, "b") {
		t.Error("a Deny of the logging service does not refuse the root's configuration")
	}
	if err := s.DeleteBucketPolicy(ctx, "logs"); err != nil {
		t.Fatal(err)
	}
	// The legacy grant counts only where ACLs are enabled.
	grants, _ := acl.Canned("log-delivery-write", "owner")
	if err := s.PutBucketACL(ctx, "logs", acl.Encode(grants, "owner")); err != nil {
		t.Fatal(err)
	}
	if ask(user, "b") {
		t.Error("the log delivery group's grant counts under BucketOwnerEnforced")
	}
	if err := s.PutBucketOwnership(ctx, "logs", acl.ObjectWriter); err != nil {
		t.Fatal(err)
	}
	if !ask(user, "b") {
		t.Error("the log delivery group's grant does not count with ACLs enabled")
	}
	gone := user
	gone.TargetBucket = "gone"
	if _, err := s.LogDeliveryAllowed(ctx, a, "b", gone, "k"); !errors.Is(err, meta.ErrBucketNotFound) {
		t.Errorf("a target that does not exist: %v", err)
	}
}
