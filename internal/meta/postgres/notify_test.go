package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// changeBound is how long a test waits for an announcement: a
// correctness bound (it is delivered at all), not a measure of speed.
const changeBound = 10 * time.Second

// nextChange is the next Change on ch; it fails the test when none comes
// within changeBound or the channel closed.
func nextChange(t *testing.T, ch <-chan meta.Change, what string) meta.Change {
	t.Helper()
	select {
	case c, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the channel closed", what)
		}
		return c
	case <-time.After(changeBound):
		t.Fatalf("%s: nothing announced within %v", what, changeBound)
	}
	return meta.Change{}
}

func wantChange(t *testing.T, ch <-chan meta.Change, what string, want meta.Change) {
	t.Helper()
	if got := nextChange(t, ch, what); got != want {
		t.Fatalf("%s: announced %v %q, want %v %q", what, got.Kind, got.Bucket, want.Kind, want.Bucket)
	}
}

// TestChangesAcrossGateways: what one gateway (one pool) changes is
// announced to another's listener — a bucket created and deleted, its
// configuration documents, IAM, reservations, sign-outs — and object writes are not;
// a listener whose backend is terminated listens again and announces
// ChangedAll; ending its context closes the channel and its connection.
func TestChangesAcrossGateways(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	lctx, stop := context.WithCancel(ctx)
	defer stop()
	ch := gws[1].Changes(lctx)
	wantChange(t, ch, "listening", meta.Change{Kind: meta.ChangedAll})

	a := gws[0]
	bucket := func(name string) meta.Change { return meta.Change{Kind: meta.ChangedBucket, Bucket: name} }
	if err := a.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "CreateBucket", bucket("b"))
	// An object write announces nothing: the next announcement is IAM's.
	if _, err := a.PutObject(ctx, meta.Object{Bucket: "b", Key: "k", BlobID: "x", Size: 1, ETag: "e", LastModified: meta.Now()}, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	if err := a.CreateEntity(ctx, meta.IAMEntity{Kind: meta.EntityUser, Name: "alice", Path: "/", ID: "AIDAALICE",
		ARN: "arn:aws:iam::123456789012:user/alice", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "PutObject then CreateEntity", meta.Change{Kind: meta.ChangedIAM})
	if err := a.PutBucketConfig(ctx, "b", "policy", []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "PutBucketConfig", bucket("b"))
	start := time.Now().Truncate(time.Second)
	if err := a.CreateReservation(ctx, meta.Reservation{ID: "r1", Bucket: "b", ReadBPS: 1, Start: start, End: start.Add(time.Hour),
		Owner: "arn:aws:iam::123456789012:root", CreatedAt: start}, meta.Capacity{Read: 100}); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "CreateReservation", meta.Change{Kind: meta.ChangedReservations})
	if err := a.RevokeSession(ctx, "ASIASESSION", start.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "RevokeSession", meta.Change{Kind: meta.ChangedSessions})
	if err := a.DeleteBucketConfig(ctx, "b", "policy"); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "DeleteBucketConfig", bucket("b"))

	// The listener's backend terminated: it listens again, and says that
	// anything may have changed meanwhile.
	var killed int
	if err := a.pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, listenerName).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("%d listener backends terminated, want 1", killed)
	}
	wantChange(t, ch, "listening again", meta.Change{Kind: meta.ChangedAll})
	if err := a.CreateBucket(ctx, meta.Bucket{Name: "c", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "CreateBucket after reconnecting", bucket("c"))
	if _, err := a.DeleteBucket(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	wantChange(t, ch, "DeleteBucket", bucket("c"))

	// Ending the context closes the channel and the connection.
	stop()
	for range ch {
	}
	deadline := time.Now().Add(changeBound)
	for {
		var left int
		if err := a.pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = $1 AND datname = current_database()`, listenerName).Scan(&left); err != nil {
			t.Fatal(err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d listener connections left %v after the context ended", left, changeBound)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestParseChange(t *testing.T) {
	for payload, want := range map[string]meta.Change{
		"b:my-bucket": {Kind: meta.ChangedBucket, Bucket: "my-bucket"},
		"iam":         {Kind: meta.ChangedIAM},
		"r":           {Kind: meta.ChangedReservations},
		"s":           {Kind: meta.ChangedSessions},
		"unknown":     {Kind: meta.ChangedAll},
	} {
		if got := parseChange(payload); got != want {
			t.Errorf("parseChange(%q) = %+v, want %+v", payload, got, want)
		}
	}
}
