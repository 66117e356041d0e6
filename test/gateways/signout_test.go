package gateways

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// signOutLimit is how long the test waits for a gateway to refuse a
// session signed out on another: generous (the machine may be busy); the
// bound the gateways keep (a notification, or the one-second poll of
// console.RevocationPoll) is logged, not asserted.
const signOutLimit = 30 * time.Second

// TestConsoleSignOutEverywhere: a console session signed in on gateway A
// works on gateway B (the cookie is sealed with the shared server key);
// signed out on A, it is refused by A at once and by B soon after — while
// the database announces sign-outs, and with the announcement silenced
// (B's poll of the store).
func TestConsoleSignOutEverywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("gateways over PostgreSQL")
	}
	for _, silenced := range []bool{false, true} {
		name := map[bool]string{false: "notified", true: "silenced"}[silenced]
		t.Run(name, func(t *testing.T) {
			gws, db := startGatewaysOn(t, 2)
			if silenced {
				if err := queryRow(t, db, "ALTER TABLE session_revocations DISABLE TRIGGER session_revocations_notify", nil); err != nil {
					t.Fatal(err)
				}
			}
			a, b := gws[0].url(), gws[1].url()
			cookie, csrf := consoleSignIn(t, a)
			if code := consoleCall(t, b, http.MethodGet, "/console/api/s3/", cookie, csrf); code != http.StatusOK {
				t.Fatalf("ListBuckets through gateway B's console with A's session: %d, want 200", code)
			}
			if code := consoleCall(t, a, http.MethodDelete, "/console/api/session", cookie, csrf); code != http.StatusNoContent {
				t.Fatalf("sign-out on A: %d, want 204", code)
			}
			if code := consoleCall(t, a, http.MethodGet, "/console/api/s3/", cookie, csrf); code != http.StatusUnauthorized {
				t.Fatalf("A after its sign-out: %d, want 401", code)
			}
			eventually(t, "gateway B refuses the session signed out on A", signOutLimit, func() bool {
				return consoleCall(t, b, http.MethodGet, "/console/api/s3/", cookie, csrf) == http.StatusUnauthorized
			})
		})
	}
}

// consoleSignIn signs in to the console at base as the root, as a
// browser does, and returns the session's cookie and CSRF value.
func consoleSignIn(t *testing.T, base string) (*http.Cookie, string) {
	t.Helper()
	body := `{"accessKey":"` + accessKey + `","secretKey":"` + secretKey + `"}`
	resp, err := http.Post(base+"/console/api/session", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var s struct{ CSRF string }
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &s) != nil || s.CSRF == "" {
		t.Fatalf("console sign-in: %s %s", resp.Status, b)
	}
	for _, c := range resp.Cookies() {
		if c.Name == "jog_console" {
			return c, s.CSRF
		}
	}
	t.Fatalf("console sign-in set no cookie: %v", resp.Header["Set-Cookie"])
	return nil, ""
}

// consoleCall makes a console API request with the session's cookie and
// CSRF header and returns the status.
func consoleCall(t *testing.T, base, method, path string, cookie *http.Cookie, csrf string) int {
	t.Helper()
	req, err := http.NewRequest(method, base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	req.Header.Set("X-Jog-Csrf", csrf)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}
