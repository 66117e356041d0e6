package console

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

// refusalLimit bounds how long a test waits for a gateway to refuse a
// signed-out session: generous, as the machine may be loaded; the bound
// itself (RevocationPoll, or a notification) is not asserted.
const refusalLimit = 30 * time.Second

// gateway is a console handler over the shared store, as a gateway's is,
// with only what signing out and authenticating use.
func gateway(keys *keyring.Keyring, store meta.SessionRevoker) *Handler {
	return &Handler{cfg: Config{Sealer: keys, Revoker: store, Now: time.Now}, log: slog.New(slog.DiscardHandler),
		revoked: newRevocations(maxRevoked)}
}

// syncing runs h.SyncRevocations until the test ends.
func syncing(t *testing.T, h *Handler, changed <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.SyncRevocations(ctx, changed) }()
	t.Cleanup(func() { cancel(); <-done })
}

// accepts reports whether h takes the cookie as signed in.
func accepts(h *Handler, cookie string) bool {
	r := httptest.NewRequest(http.MethodGet, "/console/api/s3/", nil)
	r.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
	_, ok := h.authenticateNoCSRF(httptest.NewRecorder(), r)
	return ok
}

// signOutOn signs s out through h and returns the answer's status.
func signOutOn(h *Handler, cookie string, s *Session) int {
	r := httptest.NewRequest(http.MethodDelete, "/console/api/session", nil)
	r.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
	r.Header.Set(CSRFHeader, s.CSRF())
	w := httptest.NewRecorder()
	h.signOut(w, r)
	return w.Code
}

// TestSignOutShared: a sign-out on gateway A is recorded in the store
// before it is answered, and gateway B, which shares the store, refuses
// the session soon after (its sync reads the record); a gateway started
// afterwards refuses it from the start. A sign-out the store cannot
// record is answered 500 and revokes nothing, so the page can retry.
func TestSignOutShared(t *testing.T) {
	keys, err := keyring.New(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.OpenWith(t.Context(), filepath.Join(t.TempDir(), "meta.db"), sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := gateway(keys, store), gateway(keys, store)
	changed := make(chan struct{}, 1)
	syncing(t, b, changed)

	now := time.Now().Truncate(time.Second)
	s := &Session{AccessKeyID: "ASIASHAREDSIGNOUT001", Secret: keyring.NewSecret("secret"), Issued: now, Expires: now.Add(time.Hour)}
	cookie := Seal(keys, s)
	if !accepts(a, cookie) || !accepts(b, cookie) {
		t.Fatal("a live session is refused before signing out")
	}
	if code := signOutOn(a, cookie, s); code != http.StatusNoContent {
		t.Fatalf("sign-out on A: %d", code)
	}
	if accepts(a, cookie) {
		t.Error("A accepts the session it signed out")
	}
	revoked, _, err := store.RevokedSessions(t.Context(), 0)
	if err != nil || len(revoked) != 1 || revoked[0].ID != s.AccessKeyID {
		t.Fatalf("the store holds %v, %v after the sign-out was answered", revoked, err)
	}
	changed <- struct{}{} // as the server relays PostgreSQL's NOTIFY
	for deadline := time.Now().Add(refusalLimit); accepts(b, cookie); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gateway B still accepts the session %v after A signed it out", refusalLimit)
		}
	}
	c := gateway(keys, store)
	syncing(t, c, nil)
	for deadline := time.Now().Add(refusalLimit); accepts(c, cookie); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a gateway started after the sign-out accepts the session %v on", refusalLimit)
		}
	}

	// The store fails: the sign-out is not answered 204.
	s2 := &Session{AccessKeyID: "ASIASHAREDSIGNOUT002", Secret: keyring.NewSecret("secret"), Issued: now, Expires: now.Add(time.Hour)}
	cookie2 := Seal(keys, s2)
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if code := signOutOn(a, cookie2, s2); code != http.StatusInternalServerError {
		t.Errorf("sign-out the store could not record: %d, want 500", code)
	}
	if !accepts(a, cookie2) {
		t.Error("a sign-out that failed revoked the session on A")
	}
}
