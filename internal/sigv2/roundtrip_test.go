package sigv2

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// oddKeys are object keys whose encoding varies between clients.
var oddKeys = []string{
	"plain.txt", "with space", "a+b", "a//b", "trailing/", "café/日本/😀", "100%", "q?x#y",
	"semi;colon,comma=eq&amp", "tilde~quote'paren()star*!", "lower%c3%a9-literal", " lead and trail ",
}

// roundTripServer verifies every request and checks that the decoded path
// names the expected key; it answers 200 or 403 with the error.
func roundTripServer(t *testing.T, v *Verifier) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := v.Verify(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		if want, _ := url.QueryUnescape(r.Header.Get("X-Test-Key")); want != "" && r.URL.Path != "/jog-bucket/"+want {
			http.Error(w, "decoded path "+r.URL.Path+" is not key "+want, http.StatusBadRequest)
			return
		}
		if res.AccessKey != exampleAK {
			http.Error(w, "access key "+res.AccessKey, http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(r.URL.RawPath + " " + r.RequestURI))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func do(t *testing.T, r *http.Request) {
	t.Helper()
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %d %s", r.Method, r.URL.RequestURI(), resp.StatusCode, body)
	}
}

// newKeyRequest builds a request for key in one of three wire encodings:
// "go" (Go's escaping of URL.Path), "aws" (every byte but unreserved ones
// escaped, uppercase hex, via RawPath) and "raw" (the key's bytes unencoded
// where HTTP allows, via Opaque).
func newKeyRequest(t *testing.T, srv *httptest.Server, method, key, encoding string, body []byte) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, srv.URL, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	path := "/jog-bucket/" + key
	switch encoding {
	case "go":
		r.URL.Path = path
	case "aws":
		r.URL.Path, r.URL.RawPath = path, encodePath(path)
	case "raw":
		var b strings.Builder
		for i := 0; i < len(path); i++ {
			switch c := path[i]; {
			case c <= ' ', c == '?', c == '#', c == '%', c == 0x7f:
				b.WriteString(url.PathEscape(string(c)))
			default:
				b.WriteByte(c)
			}
		}
		r.URL.Opaque = b.String()
	}
	r.Header.Set("X-Test-Key", url.QueryEscape(key))
	return r
}

func TestSignRoundTrip(t *testing.T) {
	v := &Verifier{Credentials: exampleCreds}
	srv := roundTripServer(t, v)
	for _, enc := range []string{"go", "aws", "raw"} {
		for _, key := range oddKeys {
			t.Run(enc+"/"+key, func(t *testing.T) {
				r := newKeyRequest(t, srv, http.MethodPut, key, enc, []byte("hello"))
				r.Header.Set("Content-Type", "text/plain")
				r.Header.Set("Content-MD5", "XUFAKrxLKna5cZ2REBfFkg==")
				r.Header.Add("X-Amz-Meta-Reviewed-By", "joe")
				r.Header.Add("X-Amz-Meta-Reviewed-By", " jane ")
				Sign(r, exampleAK, exampleSecret)
				do(t, r)

				r = newKeyRequest(t, srv, http.MethodGet, key, enc, nil)
				r.URL.RawQuery = "versionId=v1%2B%2F&response-content-type=text%2Fplain%3B%20charset%3Dutf-8&prefix=ignored"
				r.Header.Set("X-Amz-Date", time.Now().UTC().Format(time.RFC1123Z))
				Sign(r, exampleAK, exampleSecret)
				if r.Header.Get("Date") != "" {
					t.Fatal("Sign set Date although x-amz-date was present")
				}
				do(t, r)
			})
		}
	}
}

func TestPresignRoundTrip(t *testing.T) {
	v := &Verifier{Credentials: exampleCreds}
	srv := roundTripServer(t, v)
	for _, enc := range []string{"go", "aws", "raw"} {
		for _, key := range oddKeys {
			t.Run(enc+"/"+key, func(t *testing.T) {
				r := newKeyRequest(t, srv, http.MethodGet, key, enc, nil)
				r.URL.RawQuery = "response-content-disposition=attachment%3B%20filename%3D%22a+b%22&x-amz-meta-from=query"
				Presign(r, exampleAK, exampleSecret, time.Now().Add(time.Hour))
				if !IsV2(r) {
					t.Fatal("IsV2 = false after Presign")
				}
				do(t, r)

				if enc == "raw" {
					return
				}
				// The URL as a string, as it would be handed to a browser.
				r2, err := http.NewRequest(http.MethodGet, r.URL.String(), nil)
				if err != nil {
					t.Fatal(err)
				}
				r2.Header.Set("X-Test-Key", url.QueryEscape(key))
				do(t, r2)
			})
		}
	}
}

func TestPresignPutRoundTrip(t *testing.T) {
	v := &Verifier{Credentials: exampleCreds}
	srv := roundTripServer(t, v)
	r := newKeyRequest(t, srv, http.MethodPut, "up load+", "go", []byte("body"))
	r.Header.Set("Content-Type", "application/octet-stream")
	r.Header.Set("X-Amz-Acl", "private")
	Presign(r, exampleAK, exampleSecret, time.Now().Add(time.Minute))
	do(t, r)
}
