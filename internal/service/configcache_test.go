package service

import (
	"errors"
	"testing"
	"time"
)

func TestConfigCache(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newConfigCache[string](5*time.Second, 3)
	c.now = func() time.Time { return now }
	errMissing := errors.New("missing")
	errOther := errors.New("transient")
	keep := func(err error) bool { return errors.Is(err, errMissing) }
	fetches := 0
	value, fetchErr := "v1", error(nil)
	fetch := func() (string, error) { fetches++; return value, fetchErr }
	load := func(key string) (string, error) { return c.load(key, fetch, keep) }
	want := func(key, v string, err error, n int) {
		t.Helper()
		got, gotErr := load(key)
		if got != v || !errors.Is(gotErr, err) || (err == nil && gotErr != nil) || fetches != n {
			t.Fatalf("load(%q) = %q, %v after %d fetches; want %q, %v after %d", key, got, gotErr, fetches, v, err, n)
		}
	}

	want("a", "v1", nil, 1)
	value = "v2"
	want("a", "v1", nil, 1) // fresh: no fetch
	now = now.Add(5 * time.Second)
	want("a", "v2", nil, 2) // expired: fetched again
	c.drop("a")
	value = "v3"
	want("a", "v3", nil, 3) // dropped: fetched again

	// "No such bucket" is kept; other errors are not.
	fetchErr = errMissing
	want("gone", "v3", errMissing, 4)
	want("gone", "v3", errMissing, 4)
	fetchErr = errOther
	want("flaky", "v3", errOther, 5)
	want("flaky", "v3", errOther, 6)

	// A lookup that raced with a drop is not stored.
	fetchErr = nil
	racing := func() (string, error) { c.drop("r"); fetches++; return "stale", nil }
	if v, _ := c.load("r", racing, keep); v != "stale" {
		t.Fatalf("racing load = %q", v)
	}
	value = "fresh"
	want("r", "fresh", nil, 8)

	// While one caller fetches an expired entry again, the others get the
	// old value rather than all fetching.
	now = now.Add(5 * time.Second)
	var during string
	refetch := func() (string, error) {
		during, _ = c.load("r", func() (string, error) { t.Error("a second fetch while one is in flight"); return "", nil }, keep)
		fetches++
		return "newest", nil
	}
	if v, _ := c.load("r", refetch, keep); v != "newest" || during != "fresh" {
		t.Fatalf("refresh: %q, meanwhile %q", v, during)
	}
	want("r", "newest", nil, 9)

	// Full: starts over rather than growing.
	for _, k := range []string{"x", "y", "z"} {
		_, _ = load(k)
	}
	if len(c.m) > c.max {
		t.Errorf("%d entries, max %d", len(c.m), c.max)
	}
}
