package console

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestThrottle: an address may fail its burst, then one sign-in per
// interval; memory stays bounded: full buckets are forgotten when room
// is needed, and beyond the bound new addresses share one bucket.
func TestThrottle(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	th := newThrottle(3, time.Minute, 2)
	for i := range 3 {
		if _, ok := th.allow("a", t0); !ok {
			t.Fatalf("attempt %d refused", i)
		}
		th.fail("a", t0)
	}
	wait, ok := th.allow("a", t0)
	if ok || wait != time.Minute {
		t.Fatalf("after the burst: ok %v, wait %v", ok, wait)
	}
	if _, ok := th.allow("b", t0); !ok {
		t.Fatal("another address is throttled")
	}
	if _, ok := th.allow("a", t0.Add(time.Minute)); !ok {
		t.Fatal("a minute later, still refused")
	}

	// Bounded: "a" and "b" tracked; "c" and "d" share the overflow.
	th.fail("b", t0)
	for range 3 {
		th.fail("c", t0)
	}
	if len(th.buckets) != 2 {
		t.Fatalf("%d addresses tracked, want the bound 2", len(th.buckets))
	}
	if _, ok := th.allow("d", t0); ok {
		t.Fatal("the overflow bucket is not shared")
	}
	// Once "b" has filled again, it is forgotten for a new address.
	later := t0.Add(time.Hour)
	th.fail("e", later)
	if _, tracked := th.buckets["e"]; !tracked || len(th.buckets) > 2 {
		t.Fatalf("full buckets not forgotten: %v", th.buckets)
	}
}

// TestRevocationsBounded: at its bound the list forgets the expired,
// then the one expiring soonest.
func TestRevocationsBounded(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	v := newRevocations(3)
	for i := range 3 {
		v.add(fmt.Sprint(i), t0.Add(time.Duration(i+1)*time.Hour), t0)
	}
	v.add("3", t0.Add(10*time.Hour), t0)
	if v.has("0") || !v.has("1") || !v.has("3") || len(v.ids) != 3 {
		t.Fatalf("after the bound: %v", v.ids)
	}
	v.add("4", t0.Add(10*time.Hour), t0.Add(200*time.Minute)) // "1" and "2" expired by then
	if v.has("1") || v.has("2") || !v.has("4") {
		t.Fatalf("expired kept: %v", v.ids)
	}
}

// TestThrottleKey: the peer's address, an IPv6 one by its /64; the
// proxy's word only when trusted.
func TestThrottleKey(t *testing.T) {
	for _, tc := range []struct {
		remote, fwd string
		trust       bool
		want        string
	}{
		{"192.0.2.7:5555", "", false, "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", false, "2001:db8:1:2::/64"},
		{"192.0.2.7:5555", "198.51.100.1, 203.0.113.9", false, "192.0.2.7"},
		{"192.0.2.7:5555", "198.51.100.1, 203.0.113.9", true, "203.0.113.9"},
	} {
		h := &Handler{cfg: Config{TrustForwardedFor: tc.trust}}
		r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{}}
		if tc.fwd != "" {
			r.Header.Set("X-Forwarded-For", tc.fwd)
		}
		if got := h.throttleKey(r); got != tc.want {
			t.Errorf("%s %q trust %v: %q, want %q", tc.remote, tc.fwd, tc.trust, got, tc.want)
		}
	}
}

// TestWants: the console takes unsigned requests under /console/ and a
// browser's page request for /console; S3 keeps every signed request
// and everything else.
func TestWants(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		hdr            []string
		want           bool
	}{
		{"GET", "/console/", nil, true},
		{"GET", "/console/b/photos/cat.jpg?details", nil, true},
		{"POST", "/console/api/session", nil, true},
		{"GET", "/console", []string{"Accept", "text/html,application/xhtml+xml"}, true},
		{"GET", "/console", nil, false},                                                            // ListObjects of bucket "console"
		{"GET", "/console?list-type=2", []string{"Accept", "text/html"}, false},                    // a listing
		{"PUT", "/console", []string{"Accept", "text/html"}, false},                                // CreateBucket
		{"GET", "/console/key", []string{"Authorization", "AWS4-HMAC-SHA256 Credential=…"}, false}, // signed
		{"GET", "/console/key?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=a&X-Amz-Signature=b", nil, false},
		{"GET", "/console/key?AWSAccessKeyId=a&Signature=b&Expires=1", nil, false}, // SigV2 presigned
		{"GET", "/consoles/", nil, false},
		{"GET", "/bucket/console/", nil, false},
	} {
		r := httptest.NewRequest(tc.method, tc.target, nil)
		for i := 0; i+1 < len(tc.hdr); i += 2 {
			r.Header.Set(tc.hdr[i], tc.hdr[i+1])
		}
		if got := Wants(r); got != tc.want {
			t.Errorf("%s %s %v: %v, want %v", tc.method, tc.target, tc.hdr, got, tc.want)
		}
	}
}
