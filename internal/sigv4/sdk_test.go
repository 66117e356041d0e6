package sigv4

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/smithy-go/encoding/httpbinding"
)

// Round trips through a real client signer (aws-sdk-go-v2) and a real
// net/http server, so Verify sees requests exactly as Go's server hands them
// over: decoded path, Host moved to r.Host, Transfer-Encoding moved out of
// r.Header.

const (
	sdkAccessKey = "AKIDJOGTEST"
	sdkSecret    = "s3cr3t/with+odd=chars"
	sdkRegion    = "us-east-1"
)

var sdkTime = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

// sdkReport is what the test server returns for each request.
type sdkReport struct {
	Err         string
	Path        string
	Presigned   bool
	PayloadHash string
	BodyErr     string
	ContentLen  []string
}

func sdkServer(t *testing.T) *httptest.Server {
	t.Helper()
	v := &Verifier{
		Region:      sdkRegion,
		Credentials: staticCreds{sdkAccessKey: sdkSecret},
		Now:         fixedNow(sdkTime.Add(time.Minute)),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rep := sdkReport{Path: r.URL.Path, ContentLen: r.Header.Values("Content-Length")}
		res, err := v.Verify(r)
		if err != nil {
			rep.Err = err.Error()
		} else {
			rep.Presigned, rep.PayloadHash = res.Presigned, res.PayloadHash
			if validContentSHA256(res.PayloadHash) && len(res.PayloadHash) == 64 {
				if _, err := io.Copy(io.Discard, NewPayloadVerifier(r.Body, res.PayloadHash)); err != nil {
					rep.BodyErr = err.Error()
				}
			}
		}
		_ = json.NewEncoder(w).Encode(rep)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func send(t *testing.T, req *http.Request) sdkReport {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("send: %v", err)
	}
	defer resp.Body.Close()
	var rep sdkReport
	if err := json.NewDecoder(resp.Body).Decode(&rep); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return rep
}

// objectURL builds the URL an S3 SDK would: the key AWS-encoded with '/'
// kept, by smithy-go's encoder (not ours).
func objectURL(base, key, rawQuery string) string {
	u := base + "/bucket/" + httpbinding.EscapePath(key, false)
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	return u
}

func sdkSigner() *v4.Signer {
	return v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true })
}

var sdkCreds = aws.Credentials{AccessKeyID: sdkAccessKey, SecretAccessKey: sdkSecret}

var oddKeys = []string{
	"plain.txt",
	"a//b",
	"../x",
	"./",
	"a/./b/../c",
	"dir/",
	"//leading",
	"with space",
	"  two  spaces  ",
	"plus+sign",
	"unicode/日本語/ключ/é",
	"percent%20literal%",
	"question?mark",
	"hash#mark",
	"amp&eq=semi;colon:at@",
	"sub-delims!$'()*,",
	"tilde~under_score-dash.dot",
	"brackets[]{}<>|^`\\\"",
	strings.Repeat("k", 1024),
	strings.Repeat("é/", 300),
}

var oddQueries = []string{
	"",
	"uploads",
	"uploadId=abc&partNumber=3",
	"prefix=a%20b&delimiter=%2F",
	"prefix=a+b",
	"prefix=a%2Bb",
	"k=2&k=1&k=10",
	"list-type=2&start-after=%E6%97%A5%E6%9C%AC&max-keys=5",
	"x-id=GetObject&versionId=null",
	"empty=&novalue",
	"a%2Fb=c%2Fd&a-b=c",
	"response-content-disposition=attachment%3B%20filename%3D%22x%20y.txt%22",
}

func TestSDKHeaderSigned(t *testing.T) {
	srv := sdkServer(t)
	for _, key := range oddKeys {
		for _, q := range oddQueries {
			for _, method := range []string{http.MethodGet, http.MethodPut} {
				var body []byte
				if method == http.MethodPut {
					body = []byte("payload for " + key)
				}
				req, err := http.NewRequest(method, objectURL(srv.URL, key, q), bytes.NewReader(body))
				if err != nil {
					t.Fatalf("%q %q: %v", key, q, err)
				}
				sum := sha256.Sum256(body)
				hash := hex.EncodeToString(sum[:])
				req.Header.Set("X-Amz-Content-Sha256", hash)
				req.Header.Set("X-Amz-Meta-Spaced", "  a   b  ")
				req.Header.Add("X-Amz-Meta-Multi", "one")
				req.Header.Add("X-Amz-Meta-Multi", "two")
				if err := sdkSigner().SignHTTP(context.Background(), sdkCreds, req, hash, "s3", sdkRegion, sdkTime); err != nil {
					t.Fatal(err)
				}
				req.Header.Set("X-Amz-Meta-Added-Later", "unsigned") // allowed by S3
				rep := send(t, req)
				if rep.Err != "" || rep.BodyErr != "" {
					t.Errorf("%s key %q query %q: %s%s", method, key, q, rep.Err, rep.BodyErr)
					continue
				}
				if want := "/bucket/" + key; rep.Path != want {
					t.Errorf("server saw path %q, want %q", rep.Path, want)
				}
				if rep.Presigned || rep.PayloadHash != hash {
					t.Errorf("report %+v", rep)
				}
			}
		}
	}
}

func TestSDKPresigned(t *testing.T) {
	srv := sdkServer(t)
	for _, key := range oddKeys {
		for _, q := range oddQueries {
			expires := "X-Amz-Expires=900"
			if q != "" {
				expires = q + "&" + expires
			}
			req, err := http.NewRequest(http.MethodGet, objectURL(srv.URL, key, expires), nil)
			if err != nil {
				t.Fatal(err)
			}
			signed, hdr, err := sdkSigner().PresignHTTP(context.Background(), sdkCreds, req, UnsignedPayload, "s3", sdkRegion, sdkTime)
			if err != nil {
				t.Fatal(err)
			}
			get, err := http.NewRequest(http.MethodGet, signed, nil)
			if err != nil {
				t.Fatalf("presigned URL %q: %v", signed, err)
			}
			for k, vs := range hdr {
				if k != "Host" {
					get.Header[k] = vs
				}
			}
			rep := send(t, get)
			if rep.Err != "" {
				t.Errorf("key %q query %q: %s (url %s)", key, q, rep.Err, signed)
				continue
			}
			if !rep.Presigned || rep.PayloadHash != UnsignedPayload || rep.Path != "/bucket/"+key {
				t.Errorf("report %+v", rep)
			}
		}
	}
}

// TestSDKSignedBodyMismatch: the signature is over the declared hash; a body
// that differs passes Verify and is caught by the payload verifier.
func TestSDKSignedBodyMismatch(t *testing.T) {
	srv := sdkServer(t)
	sum := sha256.Sum256([]byte("the signed body"))
	hash := hex.EncodeToString(sum[:])
	req, _ := http.NewRequest(http.MethodPut, objectURL(srv.URL, "k", ""), strings.NewReader("a tampered body"))
	req.Header.Set("X-Amz-Content-Sha256", hash)
	if err := sdkSigner().SignHTTP(context.Background(), sdkCreds, req, hash, "s3", sdkRegion, sdkTime); err != nil {
		t.Fatal(err)
	}
	rep := send(t, req)
	if rep.Err != "" || !strings.Contains(rep.BodyErr, ErrContentSHA256Mismatch.Error()) {
		t.Fatalf("report %+v, want a payload mismatch", rep)
	}
	if len(rep.ContentLen) != 1 || rep.ContentLen[0] != "15" {
		t.Errorf("server-side Content-Length header %q: net/http should keep it in r.Header", rep.ContentLen)
	}
}

// TestSDKRejects: requests the SDK signs for another region or with another
// secret fail with the right errors once they cross the wire.
func TestSDKRejects(t *testing.T) {
	srv := sdkServer(t)
	cases := []struct {
		name   string
		creds  aws.Credentials
		region string
		want   error
	}{
		{"other region", sdkCreds, "eu-central-1", ErrAuthHeaderMalformed},
		{"other secret", aws.Credentials{AccessKeyID: sdkAccessKey, SecretAccessKey: "x"}, sdkRegion, ErrSignatureDoesNotMatch},
		{"other key", aws.Credentials{AccessKeyID: "AKIDNOPE", SecretAccessKey: sdkSecret}, sdkRegion, ErrInvalidAccessKeyID},
	}
	for _, c := range cases {
		req, _ := http.NewRequest(http.MethodGet, objectURL(srv.URL, "k", ""), nil)
		req.Header.Set("X-Amz-Content-Sha256", UnsignedPayload)
		if err := sdkSigner().SignHTTP(context.Background(), c.creds, req, UnsignedPayload, "s3", c.region, sdkTime); err != nil {
			t.Fatal(err)
		}
		if rep := send(t, req); !strings.Contains(rep.Err, c.want.Error()) {
			t.Errorf("%s: got %q, want %v", c.name, rep.Err, c.want)
		}
	}
}
