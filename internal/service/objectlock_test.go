package service

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// countingMeta counts the reads of bucket configuration documents.
type countingMeta struct {
	meta.Store
	configReads atomic.Int64
}

func (c *countingMeta) GetBucketConfig(ctx context.Context, bucket, name string) ([]byte, error) {
	c.configReads.Add(1)
	return c.Store.GetBucketConfig(ctx, bucket, name)
}

// TestLockDefaultsCached: writes to a bucket with object lock read its
// default retention from the cache, and a write that starts after
// PutObjectLockConfiguration answered gets the new default retention,
// however many writes load the cache meanwhile.
func TestLockDefaultsCached(t *testing.T) {
	base, _ := newTestService(t, 0)
	cm := &countingMeta{Store: base.meta}
	s := NewWith(cm, base.blobs, base.log, Options{})
	ctx := t.Context()
	if err := s.CreateObjectLockBucket(ctx, "lockb", "r", "o"); err != nil {
		t.Fatal(err)
	}
	put := func(key string) meta.ObjectLock {
		t.Helper()
		_, err := s.PutObject(ctx, PutInput{Bucket: "lockb", Key: key, Body: strings.NewReader("x"), Size: 1, Integrity: true})
		if err != nil {
			t.Fatalf("PutObject(%s): %v", key, err)
		}
		l, _, err := cm.GetObjectLock(ctx, "lockb", key, "")
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	setDays := func(days int) {
		t.Helper()
		if err := s.PutObjectLockConfiguration(ctx, "lockb", LockConfig{Mode: meta.LockGovernance, Days: days}); err != nil {
			t.Fatal(err)
		}
	}

	setDays(1)
	put("warm")
	before := cm.configReads.Load()
	for range 5 {
		put("again")
	}
	if n := cm.configReads.Load() - before; n != 0 {
		t.Errorf("5 writes read the default retention %d times, want 0 (cached)", n)
	}

	// Writers keep loading the cache while the default retention grows;
	// each write after a change answered must get at least the new one.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				body := bytes.Repeat([]byte{'w'}, 1+w)
				if _, err := s.PutObject(ctx, PutInput{Bucket: "lockb", Key: "bg", Body: bytes.NewReader(body), Size: int64(len(body)), Integrity: true}); err != nil {
					t.Errorf("background PutObject: %v", err)
					return
				}
			}
		})
	}
	for days := 2; days <= 30; days++ {
		setDays(days)
		started := time.Now()
		l := put("check")
		if min := started.AddDate(0, 0, days).Add(-time.Second); l.Mode != meta.LockGovernance || l.RetainUntil.Before(min) {
			t.Fatalf("after the default became %d days: lock %+v, want GOVERNANCE until at least %v", days, l, min)
		}
	}
	close(stop)
	wg.Wait()
}
