package postgres

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// race runs fn per times on each of the gateways gws at once (released
// together) and returns the errors, gateway by gateway.
func race(gws []*Store, per int, fn func(s *Store, g, i int) error) []error {
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make([]error, len(gws)*per)
	for g, s := range gws {
		for i := range per {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs[g*per+i] = fn(s, g, i)
			}()
		}
	}
	close(start)
	wg.Wait()
	return errs
}

// passed counts the nil errors of a race, failing t for any error that is
// not a refusal.
func passed(t *testing.T, what string, errs []error, refusal func(error) bool) int {
	t.Helper()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
		case !refusal(err):
			t.Errorf("%s %d: %v, want nil or a refusal", what, i, err)
		}
	}
	return ok
}

// is is the refusal of errors wrapping target.
func is(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// TestIAMAcrossGateways: two stores on one database (two gateways)
// changing IAM at once keep IAM's rules between them: one of two users
// whose names differ only in case is created, a user gets no more than
// MaxAccessKeys keys, and every change advances the generation both see.
func TestIAMAcrossGateways(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	before, err := gws[0].IAMGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const per = 8
	errs := race(gws, per, func(s *Store, g, i int) error {
		name := []string{"alice", "Alice", "ALICE", "aLiCe"}[i%4]
		return s.CreateEntity(ctx, meta.IAMEntity{Kind: meta.EntityUser, Name: name, Path: "/",
			ID: fmt.Sprintf("AIDA%d%02d", g, i), ARN: "arn:aws:iam::123456789012:user/" + name, Created: time.Now()})
	})
	if ok := passed(t, "CreateEntity", errs, is(meta.ErrEntityAlreadyExists)); ok != 1 {
		t.Errorf("%d of %d racing creations of one user passed, want 1", ok, len(errs))
	}
	errs = race(gws, per, func(s *Store, g, i int) error {
		return s.CreateAccessKey(ctx, meta.AccessKey{ID: fmt.Sprintf("AKIA%016d", g*per+i), User: "alice",
			Sealed: []byte("sealed"), Status: meta.AccessKeyActive, Created: time.Now()})
	})
	if ok := passed(t, "CreateAccessKey", errs, is(meta.ErrLimitExceeded)); ok != meta.MaxAccessKeys {
		t.Errorf("%d of %d racing key creations passed, want %d", ok, len(errs), meta.MaxAccessKeys)
	}
	keys, err := gws[1].ListAccessKeys(ctx, "alice")
	if err != nil || len(keys) != meta.MaxAccessKeys {
		t.Errorf("ListAccessKeys = %d keys, %v; want %d", len(keys), err, meta.MaxAccessKeys)
	}
	// One user and two keys made: three changes, each its own generation;
	// the refused ones moved nothing.
	for _, s := range gws {
		if g, err := s.IAMGeneration(ctx); err != nil || g != before+1+meta.MaxAccessKeys {
			t.Errorf("IAMGeneration = %d, %v; want %d", g, err, before+1+meta.MaxAccessKeys)
		}
	}
}
