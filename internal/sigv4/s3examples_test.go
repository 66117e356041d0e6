package sigv4

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The worked examples from the Amazon S3 API reference, "Signature
// Calculations for the Authorization Header: Transferring Payload in a Single
// Chunk" and "Authenticating Requests: Using Query Parameters".

const (
	exampleAccessKey = "AKIAIOSFODNN7EXAMPLE"
	exampleSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	exampleHost      = "http://examplebucket.s3.amazonaws.com"
	exampleCred      = "Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request"
	examplePutHash   = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072"
	examplePresigned = exampleHost + "/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256" +
		"&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request" +
		"&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host" +
		"&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404"
)

var exampleTime = time.Date(2013, 5, 24, 0, 0, 0, 0, time.UTC)

func exampleVerifier() *Verifier {
	return &Verifier{
		Region:      "us-east-1",
		Credentials: staticCreds{exampleAccessKey: exampleSecret},
		Now:         fixedNow(exampleTime),
	}
}

func exampleGetObject() *http.Request {
	r := httptest.NewRequest(http.MethodGet, exampleHost+"/test.txt", nil)
	r.Header.Set("Range", "bytes=0-9")
	r.Header.Set("X-Amz-Content-Sha256", EmptySHA256)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+exampleCred+
		",SignedHeaders=host;range;x-amz-content-sha256;x-amz-date"+
		",Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
	return r
}

func examplePutObject() *http.Request {
	r := httptest.NewRequest(http.MethodPut, exampleHost+"/test$file.text", strings.NewReader("Welcome to Amazon S3."))
	r.Header.Set("Date", "Fri, 24 May 2013 00:00:00 GMT")
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Storage-Class", "REDUCED_REDUNDANCY")
	r.Header.Set("X-Amz-Content-Sha256", examplePutHash)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+exampleCred+
		",SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class"+
		",Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
	return r
}

func exampleGetLifecycle() *http.Request {
	r := httptest.NewRequest(http.MethodGet, exampleHost+"/?lifecycle", nil)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Content-Sha256", EmptySHA256)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+exampleCred+
		",SignedHeaders=host;x-amz-content-sha256;x-amz-date"+
		",Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
	return r
}

func exampleListObjects() *http.Request {
	r := httptest.NewRequest(http.MethodGet, exampleHost+"/?max-keys=2&prefix=J", nil)
	r.Header.Set("X-Amz-Date", "20130524T000000Z")
	r.Header.Set("X-Amz-Content-Sha256", EmptySHA256)
	r.Header.Set("Authorization", "AWS4-HMAC-SHA256 "+exampleCred+
		",SignedHeaders=host;x-amz-content-sha256;x-amz-date"+
		",Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
	return r
}

func examplePresignedGet() *http.Request {
	return httptest.NewRequest(http.MethodGet, examplePresigned, nil)
}

func TestS3DocExamples(t *testing.T) {
	cases := []struct {
		name      string
		req       func() *http.Request
		payload   string
		sig       string
		presigned bool
	}{
		{"GetObject", exampleGetObject, EmptySHA256, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41", false},
		{"PutObject", examplePutObject, examplePutHash, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd", false},
		{"GetBucketLifecycle", exampleGetLifecycle, EmptySHA256, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543", false},
		{"ListObjects", exampleListObjects, EmptySHA256, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7", false},
		{"PresignedGetObject", examplePresignedGet, UnsignedPayload, "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404", true},
	}
	wantKey := SigningKey(exampleSecret, "20130524", "us-east-1", "s3")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := exampleVerifier().Verify(c.req())
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			want := Result{
				AccessKey:   exampleAccessKey,
				Presigned:   c.presigned,
				PayloadHash: c.payload,
				Signature:   c.sig,
				Date:        exampleTime,
				Scope:       "20130524/us-east-1/s3/aws4_request",
			}
			got := *res
			got.SigningKey = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("result %+v\nwant %+v", got, want)
			}
			if !bytes.Equal(res.SigningKey, wantKey) {
				t.Errorf("signing key %x, want %x", res.SigningKey, wantKey)
			}
		})
	}
}

func TestS3DocExampleMutations(t *testing.T) {
	type mutation struct {
		name   string
		req    func() *http.Request
		mutate func(v *Verifier, r *http.Request)
		want   error // nil: must still verify
	}
	setAuth := func(old, new string) func(v *Verifier, r *http.Request) {
		return func(v *Verifier, r *http.Request) {
			r.Header.Set("Authorization", strings.Replace(r.Header.Get("Authorization"), old, new, 1))
		}
	}
	setQuery := func(old, new string) func(v *Verifier, r *http.Request) {
		return func(v *Verifier, r *http.Request) {
			r.URL.RawQuery = strings.Replace(r.URL.RawQuery, old, new, 1)
		}
	}
	at := func(d time.Duration) func(v *Verifier, r *http.Request) {
		return func(v *Verifier, r *http.Request) { v.Now = fixedNow(exampleTime.Add(d)) }
	}
	get, put, pre := exampleGetObject, examplePutObject, examplePresignedGet
	cases := []mutation{
		// Header authentication.
		{"changed header value", get, func(v *Verifier, r *http.Request) { r.Header.Set("Range", "bytes=0-10") }, ErrSignatureDoesNotMatch},
		{"changed method", get, func(v *Verifier, r *http.Request) { r.Method = http.MethodHead }, ErrSignatureDoesNotMatch},
		{"changed path", get, func(v *Verifier, r *http.Request) { r.URL.Path = "/test.txt2" }, ErrSignatureDoesNotMatch},
		{"changed host", get, func(v *Verifier, r *http.Request) { r.Host = "otherbucket.s3.amazonaws.com" }, ErrSignatureDoesNotMatch},
		{"added query", get, func(v *Verifier, r *http.Request) { r.URL.RawQuery = "versionId=1" }, ErrSignatureDoesNotMatch},
		{"changed query", exampleListObjects, setQuery("prefix=J", "prefix=K"), ErrSignatureDoesNotMatch},
		{"changed payload hash", put, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", EmptySHA256) }, ErrSignatureDoesNotMatch},
		{"changed signature", get, setAuth("Signature=f0e8", "Signature=f0e9"), ErrSignatureDoesNotMatch},
		{"wrong secret", get, func(v *Verifier, r *http.Request) {
			v.Credentials = staticCreds{exampleAccessKey: exampleSecret + "x"}
		}, ErrSignatureDoesNotMatch},
		{"unknown access key", get, func(v *Verifier, r *http.Request) { v.Credentials = staticCreds{} }, ErrInvalidAccessKeyID},
		{"nil credentials", get, func(v *Verifier, r *http.Request) { v.Credentials = nil }, ErrInvalidAccessKeyID},
		{"wrong region", get, func(v *Verifier, r *http.Request) { v.Region = "eu-west-1" }, ErrAuthHeaderMalformed},
		{"wrong service", get, setAuth("/s3/", "/ec2/"), ErrAuthHeaderMalformed},
		{"wrong terminator", get, setAuth("aws4_request", "aws5_request"), ErrAuthHeaderMalformed},
		{"scope date differs", get, setAuth("/20130524/", "/20130523/"), ErrAuthHeaderMalformed},
		{"bad scope", get, setAuth("/20130524/us-east-1/s3/aws4_request", "/20130524/us-east-1"), ErrAuthHeaderMalformed},
		{"host not signed", get, setAuth("SignedHeaders=host;", "SignedHeaders="), ErrAuthHeaderMalformed},
		{"no signature", get, setAuth(",Signature=", ",Sig="), ErrAuthHeaderMalformed},
		{"garbage header", get, func(v *Verifier, r *http.Request) { r.Header.Set("Authorization", "AWS4-HMAC-SHA256 nonsense") }, ErrAuthHeaderMalformed},
		{"sigv4a", get, setAuth("AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256"), ErrUnsupportedAlgorithm},
		{"sigv2", get, func(v *Verifier, r *http.Request) { r.Header.Set("Authorization", "AWS AKIAIOSFODNN7EXAMPLE:abc=") }, ErrUnsupportedAlgorithm},
		{"skewed ahead", get, at(16 * time.Minute), ErrRequestTimeTooSkewed},
		{"skewed behind", get, at(-16 * time.Minute), ErrRequestTimeTooSkewed},
		{"within skew", get, at(14 * time.Minute), nil},
		{"custom skew", get, func(v *Verifier, r *http.Request) {
			v.MaxSkew = time.Minute
			v.Now = fixedNow(exampleTime.Add(2 * time.Minute))
		}, ErrRequestTimeTooSkewed},
		{"no date", get, func(v *Verifier, r *http.Request) { r.Header.Del("X-Amz-Date") }, ErrMissingDate},
		{"bad x-amz-date", get, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Date", "2013-05-24") }, ErrMissingDate},
		{"fractional x-amz-date", get, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Date", "20130524T000000.5Z") }, ErrMissingDate},
		// Date is used when X-Amz-Date is absent; x-amz-date is still signed, so the signature breaks.
		{"date header fallback", put, func(v *Verifier, r *http.Request) { r.Header.Del("X-Amz-Date") }, ErrSignatureDoesNotMatch},
		{"no content sha", get, func(v *Verifier, r *http.Request) { r.Header.Del("X-Amz-Content-Sha256") }, ErrMissingContentSHA256},
		{"bad content sha", get, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", "abc") }, ErrInvalidContentSHA256},
		{"upper-case content sha", get, func(v *Verifier, r *http.Request) {
			r.Header.Set("X-Amz-Content-Sha256", strings.ToUpper(EmptySHA256))
		}, ErrInvalidContentSHA256},
		{"unsigned x-amz header", get, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Meta-Extra", "1") }, nil},
		{"unsigned other header", put, func(v *Verifier, r *http.Request) { r.Header.Set("User-Agent", "curl") }, nil},
		{"two auth headers", get, func(v *Verifier, r *http.Request) { r.Header.Add("Authorization", "x") }, ErrAuthHeaderMalformed},
		{"header and query", get, func(v *Verifier, r *http.Request) { r.URL.RawQuery = "X-Amz-Algorithm=AWS4-HMAC-SHA256" }, ErrMultipleAuth},
		{"anonymous", get, func(v *Verifier, r *http.Request) { r.Header.Del("Authorization") }, ErrMissingAuth},
		// Presigned URL.
		{"presigned at expiry", pre, at(86400 * time.Second), nil},
		{"presigned expired", pre, at(86401 * time.Second), ErrExpired},
		{"presigned future", pre, at(-16 * time.Minute), ErrRequestTimeTooSkewed},
		{"presigned near future", pre, at(-14 * time.Minute), nil},
		{"presigned changed signature", pre, setQuery("Signature=aeee", "Signature=aeef"), ErrSignatureDoesNotMatch},
		{"presigned added param", pre, func(v *Verifier, r *http.Request) { r.URL.RawQuery += "&response-content-type=text/html" }, ErrSignatureDoesNotMatch},
		{"presigned changed expires", pre, setQuery("Expires=86400", "Expires=86399"), ErrSignatureDoesNotMatch},
		{"presigned changed path", pre, func(v *Verifier, r *http.Request) { r.URL.Path = "/other.txt" }, ErrSignatureDoesNotMatch},
		{"presigned wrong secret", pre, func(v *Verifier, r *http.Request) {
			v.Credentials = staticCreds{exampleAccessKey: "nope"}
		}, ErrSignatureDoesNotMatch},
		{"presigned unknown key", pre, setQuery("AKIAIOSFODNN7EXAMPLE", "AKIAOTHER"), ErrInvalidAccessKeyID},
		{"presigned wrong region", pre, func(v *Verifier, r *http.Request) { v.Region = "eu-west-1" }, ErrQueryMalformed},
		{"presigned wrong service", pre, setQuery("%2Fs3%2F", "%2Fec2%2F"), ErrQueryMalformed},
		{"presigned bad credential", pre, setQuery("%2Fus-east-1%2Fs3%2Faws4_request", ""), ErrQueryMalformed},
		{"presigned expires too long", pre, setQuery("Expires=86400", "Expires=604801"), ErrQueryMalformed},
		{"presigned expires zero", pre, setQuery("Expires=86400", "Expires=0"), ErrQueryMalformed},
		{"presigned expires negative", pre, setQuery("Expires=86400", "Expires=-5"), ErrQueryMalformed},
		{"presigned expires not a number", pre, setQuery("Expires=86400", "Expires=1d"), ErrQueryMalformed},
		{"presigned bad date", pre, setQuery("Date=20130524T000000Z", "Date=20130524"), ErrQueryMalformed},
		{"presigned fractional date", pre, setQuery("Date=20130524T000000Z", "Date=20130524T000000.0Z"), ErrQueryMalformed},
		{"presigned missing signed headers", pre, setQuery("&X-Amz-SignedHeaders=host", ""), ErrQueryMalformed},
		{"presigned host not signed", pre, setQuery("SignedHeaders=host", "SignedHeaders=range"), ErrQueryMalformed},
		{"presigned missing signature", pre, func(v *Verifier, r *http.Request) {
			r.URL.RawQuery = r.URL.RawQuery[:strings.Index(r.URL.RawQuery, "&X-Amz-Signature")]
		}, ErrQueryMalformed},
		{"presigned duplicate signature", pre, func(v *Verifier, r *http.Request) { r.URL.RawQuery += "&X-Amz-Signature=00" }, ErrQueryMalformed},
		{"presigned sigv4a", pre, setQuery("AWS4-HMAC-SHA256", "AWS4-ECDSA-P256-SHA256"), ErrUnsupportedAlgorithm},
		{"presigned bad content sha", pre, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", "nope") }, ErrInvalidContentSHA256},
		{"presigned signed content sha", pre, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Content-Sha256", EmptySHA256) }, ErrSignatureDoesNotMatch},
		{"presigned unsigned header", pre, func(v *Verifier, r *http.Request) { r.Header.Set("X-Amz-Meta-Extra", "1") }, nil},
		{"sigv2 presigned", get, func(v *Verifier, r *http.Request) {
			r.Header.Del("Authorization")
			r.URL.RawQuery = "AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1369353600&Signature=abc%3D"
		}, ErrUnsupportedAlgorithm},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, r := exampleVerifier(), c.req()
			c.mutate(v, r)
			res, err := v.Verify(r)
			if c.want == nil {
				if err != nil {
					t.Fatalf("Verify: %v", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, %v; want %v", res, err, c.want)
			}
			if res != nil {
				t.Fatalf("result %+v with error", res)
			}
		})
	}
}

func TestWrongRegionNamesExpectedRegion(t *testing.T) {
	for _, r := range []*http.Request{exampleGetObject(), examplePresignedGet()} {
		v := exampleVerifier()
		v.Region = "eu-west-1"
		_, err := v.Verify(r)
		if err == nil || !strings.Contains(err.Error(), "expecting 'eu-west-1'") {
			t.Errorf("error %v does not name the expected region", err)
		}
	}
}

func TestDefaultRegion(t *testing.T) {
	v := exampleVerifier()
	v.Region = ""
	if _, err := v.Verify(exampleGetObject()); err != nil {
		t.Fatalf("empty Region should mean %s: %v", DefaultRegion, err)
	}
}
