package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// TestIAMAcrossGateways: two stores on one database (two gateways)
// changing IAM at once keep IAM's rules between them: one of two users
// whose names differ only in case is created, a user gets no more than
// MaxAccessKeys keys, and every change advances the generation both see.
func TestIAMAcrossGateways(t *testing.T) {
	url := openURL(t)
	ctx := context.Background()
	var gateways [2]*Store
	for i := range gateways {
		s, err := Open(ctx, url, Options{MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		gateways[i] = s
	}
	before, err := gateways[0].IAMGeneration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	race := func(fn func(g, i int) error) []error {
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, 2*n)
		for g := range gateways {
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errs[g*n+i] = fn(g, i)
				}()
			}
		}
		close(start)
		wg.Wait()
		return errs
	}
	count := func(what string, errs []error, refusal error) int {
		t.Helper()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, refusal):
				t.Errorf("%s: %v, want nil or %v", what, err, refusal)
			}
		}
		return ok
	}

	errs := race(func(g, i int) error {
		name := []string{"alice", "Alice", "ALICE", "aLiCe"}[i%4]
		return gateways[g].CreateEntity(ctx, meta.IAMEntity{Kind: meta.EntityUser, Name: name, Path: "/",
			ID: fmt.Sprintf("AIDA%d%02d", g, i), ARN: "arn:aws:iam::123456789012:user/" + name, Created: time.Now()})
	})
	if ok := count("CreateEntity", errs, meta.ErrEntityAlreadyExists); ok != 1 {
		t.Errorf("%d of %d racing creations of one user passed, want 1", ok, len(errs))
	}
	errs = race(func(g, i int) error {
		return gateways[g].CreateAccessKey(ctx, meta.AccessKey{ID: fmt.Sprintf("AKIA%016d", g*n+i), User: "alice",
			Sealed: []byte("sealed"), Status: meta.AccessKeyActive, Created: time.Now()})
	})
	if ok := count("CreateAccessKey", errs, meta.ErrLimitExceeded); ok != meta.MaxAccessKeys {
		t.Errorf("%d of %d racing key creations passed, want %d", ok, len(errs), meta.MaxAccessKeys)
	}
	keys, err := gateways[1].ListAccessKeys(ctx, "alice")
	if err != nil || len(keys) != meta.MaxAccessKeys {
		t.Errorf("ListAccessKeys = %d keys, %v; want %d", len(keys), err, meta.MaxAccessKeys)
	}
	// One user and two keys made: three changes, each its own generation.
	for _, s := range gateways {
		if g, err := s.IAMGeneration(ctx); err != nil || g != before+1+meta.MaxAccessKeys {
			t.Errorf("IAMGeneration = %d, %v; want %d", g, err, before+1+meta.MaxAccessKeys)
		}
	}
}
