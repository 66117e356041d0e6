package s3api

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestConcurrencyLimit(t *testing.T) {
	ctx := context.Background()
	l := NewConcurrencyLimit(2)
	r1, err1 := l.Admit(ctx, Route{Op: OpPutObject})
	r2, err2 := l.Admit(ctx, Route{Op: OpGetObject})
	if err1 != nil || err2 != nil {
		t.Fatalf("within the limit: %v, %v", err1, err2)
	}
	if _, err := l.Admit(ctx, Route{Op: OpListObjectsV2}); err != ErrSlowDown {
		t.Fatalf("beyond the limit: %v, want SlowDown", err)
	}
	r1()
	r3, err := l.Admit(ctx, Route{Op: OpListObjectsV2})
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	r2()
	r3()
	rt := Route{Op: OpGetObject, Bucket: "b", Key: "k"}
	if n := testing.AllocsPerRun(100, func() {
		release, _ := l.Admit(ctx, rt)
		release()
	}); n != 0 {
		t.Errorf("Admit and release allocate %v times", n)
	}
}

// recordingAdmitter refuses with err (nil: admits) and records what it saw.
type recordingAdmitter struct {
	err      error
	routes   []Route
	released int
}

func (a *recordingAdmitter) Admit(_ context.Context, rt Route) (func(), error) {
	a.routes = append(a.routes, rt)
	if a.err != nil {
		return nil, a.err
	}
	return func() { a.released++ }, nil
}

// The Admitter sees every request, routed, before authentication: an
// unsigned request is refused by it, not by the signature check. An
// admitted request is released once, whatever its outcome.
func TestAdmitterBeforeAuthentication(t *testing.T) {
	serve := func(a Admitter) *httptest.ResponseRecorder {
		h := New(nil, Config{Logger: slog.New(slog.DiscardHandler), Admitter: a, MaxRequests: 1,
			Credentials: StaticCredentials{"AKID": "secret"}})
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/bkt/some/key", nil))
		return w
	}
	want := Route{Op: OpGetObject, Bucket: "bkt", Key: "some/key"}

	refuse := &recordingAdmitter{err: ErrSlowDown}
	if w := serve(refuse); w.Code != http.StatusServiceUnavailable {
		t.Errorf("refused: %d, want 503 SlowDown", w.Code)
	}
	if len(refuse.routes) != 1 || refuse.routes[0] != want {
		t.Errorf("refusing admitter saw %+v, want [%+v]", refuse.routes, want)
	}

	admit := &recordingAdmitter{}
	if w := serve(admit); w.Code != http.StatusForbidden {
		t.Errorf("admitted, unsigned: %d, want 403", w.Code)
	}
	if len(admit.routes) != 1 || admit.released != 1 {
		t.Errorf("admitted %d requests, released %d; want 1, 1", len(admit.routes), admit.released)
	}
}

// TestAnonymousShare: at most max places at once, given back by Release,
// with no allocation; a nil share bounds nothing.
func TestAnonymousShare(t *testing.T) {
	s := NewAnonymousShare(2)
	for i := range 2 {
		if !s.Take() {
			t.Fatalf("the share refused place %d of 2", i+1)
		}
	}
	if s.Take() {
		t.Fatal("the share took a third place of two")
	}
	s.Release()
	if !s.Take() {
		t.Fatal("the share refused after a release")
	}
	s.Release()
	s.Release()
	if n := testing.AllocsPerRun(100, func() { s.Take(); s.Release() }); n != 0 {
		t.Errorf("Take and Release allocate %v times", n)
	}
	var none *AnonymousShare = NewAnonymousShare(0)
	for range 3 {
		if !none.Take() {
			t.Fatal("a nil share refused")
		}
	}
	none.Release()
}
