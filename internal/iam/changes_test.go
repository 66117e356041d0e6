package iam

import (
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// TestStoreChanged: a change made through another Service over the same
// store (another gateway) is seen at once once StoreChanged says so, long
// before the poll interval.
func TestStoreChanged(t *testing.T) {
	st := openStore(t)
	a := newService(t, st, Options{PollInterval: time.Hour})
	b := newService(t, st, Options{PollInterval: time.Hour})
	ctx := t.Context()
	must(a.CreateUser(ctx, "alice", ""))
	k := must(a.CreateAccessKey(ctx, "alice"))
	if _, found := b.SecretKey(k.ID); !found {
		t.Fatal("b does not know the key")
	}
	ok(t, a.UpdateAccessKey(ctx, "alice", k.ID, meta.AccessKeyInactive))
	if _, found := b.SecretKey(k.ID); !found {
		t.Fatal("b no longer accepts the key before being told: the test no longer shows the cache")
	}
	b.StoreChanged()
	if _, found := b.SecretKey(k.ID); found {
		t.Error("b accepts the disabled key after StoreChanged")
	}
}
