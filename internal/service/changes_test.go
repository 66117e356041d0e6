package service

import (
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestStoreChanged: two Services over one store stand for two gateways.
// What one changes, the other keeps serving from its cache until
// StoreChanged names the bucket (or says ChangedAll); a change of another
// bucket leaves the entry alone.
func TestStoreChanged(t *testing.T) {
	a, _ := newTestService(t, 0)
	b := NewWith(a.meta, a.blobs, a.log, Options{})
	ctx := t.Context()
	hasPolicy := func() bool {
		t.Helper()
		acc, err := b.BucketAccess(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		return acc.Policy(false) != nil
	}
	if hasPolicy() {
		t.Fatal("a policy before any was put")
	}
	doc := []byte(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::b/*"}]}`)
	if err := a.PutBucketPolicy(ctx, "b", doc); err != nil {
		t.Fatal(err)
	}
	if hasPolicy() {
		t.Fatal("the other Service saw the policy before being told: the test no longer shows the cache")
	}
	b.StoreChanged(meta.Change{Kind: meta.ChangedBucket, Bucket: "other"})
	if hasPolicy() {
		t.Fatal("a change of another bucket dropped this one's entry")
	}
	b.StoreChanged(meta.Change{Kind: meta.ChangedBucket, Bucket: "b"})
	if !hasPolicy() {
		t.Fatal("the policy not seen after ChangedBucket")
	}
	if err := a.DeleteBucketPolicy(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	b.StoreChanged(meta.Change{Kind: meta.ChangedIAM})
	if !hasPolicy() {
		t.Fatal("ChangedIAM dropped a bucket's entry")
	}
	b.StoreChanged(meta.Change{Kind: meta.ChangedAll})
	if hasPolicy() {
		t.Fatal("the deleted policy still seen after ChangedAll")
	}
}
