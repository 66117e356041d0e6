package s3api

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/meta"
)

// strictRange matches the plain forms of a single byte range, digits only,
// short enough not to overflow: the reference below computes those.
var strictRange = regexp.MustCompile(`^bytes=([0-9]{0,18})-([0-9]{0,18})$`)

// referenceRange computes parseRange's answer for a strictRange header from
// RFC 9110 §14.1.2 and S3's behaviour: a syntactically invalid range is
// ignored (whole object), an unsatisfiable one is InvalidRange.
func referenceRange(m []string, size int64) (byteRange, bool, error) {
	first, last := m[1], m[2]
	switch {
	case first == "" && last == "":
		return byteRange{}, false, nil
	case first == "":
		n, _ := strconv.ParseInt(last, 10, 64)
		if n == 0 || size == 0 {
			return byteRange{}, false, errInvalidRange
		}
		n = min(n, size)
		return byteRange{size - n, n}, true, nil
	}
	a, _ := strconv.ParseInt(first, 10, 64)
	b := int64(math.MaxInt64)
	if last != "" {
		b, _ = strconv.ParseInt(last, 10, 64)
		if b < a {
			return byteRange{}, false, nil
		}
	}
	if a >= size {
		return byteRange{}, false, errInvalidRange
	}
	return byteRange{a, min(b, size-1) - a + 1}, true, nil
}

// FuzzParseRange: parseRange never panics; a range it accepts lies inside
// the object (0 ≤ start < size, start+length ≤ size, length ≥ 1); its only
// error is InvalidRange; and on plain digit forms it agrees with the
// reference above.
func FuzzParseRange(f *testing.F) {
	for _, s := range []struct {
		h    string
		size int64
	}{
		{"bytes=0-0", 10}, {"bytes=0-", 10}, {"bytes=-1", 10}, {"bytes=-0", 10}, {"bytes=5-3", 10},
		{"bytes=10-", 10}, {"bytes=9-100", 10}, {"bytes=0-", 0}, {"bytes=-5", 0}, {"bytes=0-1,2-3", 10},
		{"bytes= 1-2 ", 10}, {"bytes=+1-2", 10}, {"bytes=1--2", 10}, {"bytes=-", 10}, {"items=0-1", 10},
		{"bytes=9223372036854775807-", math.MaxInt64}, {"bytes=-9223372036854775807", 3}, {"", 5},
		{"bytes=99999999999999999999-", 10}, {"bytes=0x10-", 100},
	} {
		f.Add(s.h, s.size)
	}
	f.Fuzz(func(t *testing.T, h string, size int64) {
		if size < 0 {
			size = -(size + 1) // keep every non-negative size reachable, MaxInt64 too
		}
		r, ok, err := parseRange(h, size)
		if err != nil {
			if ok || err != errInvalidRange {
				t.Fatalf("parseRange(%q, %d) = %+v, %v, %v", h, size, r, ok, err)
			}
		}
		if ok && (r.start < 0 || r.start >= size || r.length < 1 || r.length > size-r.start) {
			t.Fatalf("parseRange(%q, %d) = %+v: outside the object", h, size, r)
		}
		if m := strictRange.FindStringSubmatch(h); m != nil {
			wr, wok, werr := referenceRange(m, size)
			if wr != r || wok != ok || werr != err {
				t.Fatalf("parseRange(%q, %d) = %+v, %v, %v; reference %+v, %v, %v", h, size, r, ok, err, wr, wok, werr)
			}
		}
	})
}

// FuzzCheckConditions: the conditional-request evaluation never panics,
// answers only nil, 412 or the given not-modified error, and keeps RFC 7232
// precedence: a failing If-Match is always 412; a matching If-Match (or
// "*") is never 412; no condition headers is always nil. etagMatches finds
// an ETag quoted or bare in any position of a list, and "*" always.
func FuzzCheckConditions(f *testing.F) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f.Add(`"5d41402abc4b2a76b9719d911017c592"`, "", "", "", "5d41402abc4b2a76b9719d911017c592", now.Unix(), "x")
	f.Add("", `W/"a", "b"`, "", "", "b", now.Unix(), "")
	f.Add("*", "*", now.Format(http.TimeFormat), now.Format(http.TimeFormat), "e", now.Unix(), "b")
	f.Add("", "", "Mon, 02 Jan 2006 15:04:05 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "e", int64(0), "")
	f.Add(`"x",,"",*`, ",", "garbage", "Sun Nov  6 08:49:37 1994", "", int64(-1), ",")
	f.Add("a", "", "", now.Add(-time.Hour).Format(http.TimeFormat), "a", now.Unix(), `"a"`)
	f.Fuzz(func(t *testing.T, ifMatch, ifNoneMatch, ims, ius, etag string, mod int64, other string) {
		o := meta.Object{ETag: etag, LastModified: time.Unix(mod%(1<<40), 0).UTC()}
		h := http.Header{}
		for _, kv := range [][2]string{{"If-Match", ifMatch}, {"If-None-Match", ifNoneMatch},
			{"If-Modified-Since", ims}, {"If-Unmodified-Since", ius}} {
			if kv[1] != "" {
				h.Set(kv[0], kv[1])
			}
		}
		err := checkConditions(h, getConditions, o, errNotModified)
		if err != nil && err != errPrecondition && err != errNotModified {
			t.Fatalf("checkConditions = %v", err)
		}
		switch {
		case ifMatch != "" && !etagMatches(ifMatch, etag):
			if err != errPrecondition {
				t.Fatalf("If-Match %q on ETag %q: %v, want 412", ifMatch, etag, err)
			}
		case ifMatch != "":
			if err == errPrecondition {
				t.Fatalf("matching If-Match %q on ETag %q: 412", ifMatch, etag)
			}
		case ifNoneMatch == "" && ims == "" && ius == "":
			if err != nil {
				t.Fatalf("no conditions: %v", err)
			}
		}
		// The same evaluation for CopyObject's x-amz-copy-source-if-* headers.
		ch := http.Header{}
		for k, v := range h {
			ch["X-Amz-Copy-Source-"+k] = v
		}
		if cerr := checkConditions(ch, copyConditions, o, errPrecondition); cerr != nil && err == nil || cerr == nil && err != nil {
			t.Fatalf("copy conditions = %v, GET conditions = %v", cerr, err)
		}
		if _, err := writeCondition(h); err != nil {
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusNotImplemented {
				t.Fatalf("writeCondition: %v", err)
			}
		}

		if !etagMatches("*", etag) || !etagMatches(other+",*", etag) {
			t.Fatal(`"*" does not match`)
		}
		if etag == strings.TrimSpace(etag) && !strings.ContainsAny(etag, `,"`) && !strings.HasPrefix(etag, "W/") {
			for _, list := range []string{`"` + etag + `"`, etag, `W/"` + etag + `"`, other + `, "` + etag + `"`, `"` + etag + `",` + other} {
				if !etagMatches(list, etag) {
					t.Fatalf("etagMatches(%q, %q) = false", list, etag)
				}
			}
		}
		if etagMatches(other+",", etag) != (etagMatches(other, etag) || etag == "") {
			t.Fatalf("a trailing comma changed etagMatches(%q, %q)", other, etag)
		}
	})
}

// FuzzParseCopySource: parseCopySource never panics; it refuses with 400
// InvalidArgument or returns a non-empty bucket without '/' and a non-empty
// key (a versionId "null" names the null version, as any other ID); and any key, escaped as SDKs do (per
// segment or whole), with or without a leading '/' and a versionId, comes
// back exactly.
func FuzzParseCopySource(f *testing.F) {
	for _, s := range [][2]string{
		{"/bucket/key", "key"}, {"bucket/dir/file name+ü.txt", "dir/file name+ü.txt"}, {"b/k?versionId=null", "k?x"},
		{"b/k?versionId=abc&x=%zz", "a%2Fb"}, {"/b", ""}, {"b/", "/"}, {"%zz/k", "../../etc/passwd"}, {"/b/%2e%2e%2fx", "a//b"},
		{"?versionId=v", "日本"}, {"", "\xff"}, {"b/k%00", "\x00"},
	} {
		f.Add(s[0], s[1], "0123456789abcdef0123456789abcdef")
		f.Add(s[0], s[1], "v1")
	}
	f.Fuzz(func(t *testing.T, v, key, version string) {
		bucket, k, ver, err := parseCopySource(v)
		if err != nil {
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Code != "InvalidArgument" {
				t.Fatalf("parseCopySource(%q): %v", v, err)
			}
		} else if bucket == "" || k == "" || strings.Contains(bucket, "/") {
			t.Fatalf("parseCopySource(%q) = %q, %q, %q", v, bucket, k, ver)
		}

		if key == "" || !utf8.ValidString(key) {
			return
		}
		wantVer := version
		whole := url.PathEscape(key)
		segments := strings.ReplaceAll(whole, "%2F", "/")
		for _, src := range []string{"my-bucket/" + whole, "/my-bucket/" + segments, "my-bucket/" + segments} {
			for _, q := range []string{"", "?versionId=" + url.QueryEscape(version)} {
				b, gotKey, gotVer, err := parseCopySource(src + q)
				if q != "" && checkVersionID(version) != nil {
					// A version ID no version can have is refused.
					var ae *APIError
					if !errors.As(err, &ae) || ae.Code != "InvalidArgument" {
						t.Fatalf("parseCopySource(%q) = %q, %q, %q, %v; want InvalidArgument", src+q, b, gotKey, gotVer, err)
					}
					continue
				}
				want := ""
				if q != "" {
					want = wantVer
				}
				if err != nil || b != "my-bucket" || gotKey != key || gotVer != want {
					t.Fatalf("parseCopySource(%q) = %q, %q, %q, %v; want my-bucket, %q, %q", src+q, b, gotKey, gotVer, err, key, want)
				}
			}
		}
	})
}

// FuzzReadXML decodes arbitrary bodies as each XML request document the
// server parses (CompleteMultipartUpload, Delete, CreateBucketConfiguration)
// through readXML: it never panics and answers either success,
// MalformedXML, or — past the 4 MiB cap, which kind 0xff tests by padding
// the body — MaxMessageLengthExceeded. The handlers' own checks on the
// decoded documents run too.
func FuzzReadXML(f *testing.F) {
	for _, s := range []string{
		`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"e"</ETag><ChecksumCRC32>AAAAAA==</ChecksumCRC32></Part></CompleteMultipartUpload>`,
		`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><PartNumber>-1</PartNumber></Part><Part/></CompleteMultipartUpload>`,
		`<Delete><Quiet>true</Quiet><Object><Key>a</Key><VersionId>null</VersionId><ETag>"x"</ETag></Object></Delete>`,
		`<Delete><Object><Key>&lt;&amp;&#x1;</Key></Object><Object></Object></Delete>`,
		`<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`,
		`<?xml version="1.0" encoding="UTF-8"?><CreateBucketConfiguration/>`,
		`<!DOCTYPE x [<!ENTITY a "aaaa">]><Delete><Object><Key>&a;</Key></Object></Delete>`,
		`<a><a><a><a><a><a></a></a></a></a></a></a>`, "", "\xff\xfe<\x00", `<Delete><Object><Key>` + strings.Repeat("k", 2000) + `</Key></Object></Delete>`,
	} {
		for kind := range uint8(3) {
			f.Add(kind, []byte(s))
		}
	}
	f.Add(uint8(0xff), []byte("<Delete>"))
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		var rd io.Reader = bytes.NewReader(body)
		n := int64(len(body))
		if kind == 0xff {
			pad := max(0, maxXMLBody+1-len(body))
			rd = io.MultiReader(rd, io.LimitReader(spaces{}, int64(pad)))
			n += int64(pad)
		}
		r := httptest.NewRequest(http.MethodPost, "/b/k?uploadId=u", rd)
		var err error
		switch kind % 3 {
		case 0:
			var v completeMultipartUpload
			if err = readXML(r, &v); err == nil {
				for _, p := range v.Parts {
					p.checksumFields.only()
				}
			}
		case 1:
			var v deleteRequest
			err = readXML(r, &v)
		case 2:
			var v createBucketConfiguration
			err = readXML(r, &v)
		}
		var ae *APIError
		switch {
		case n > maxXMLBody:
			if !errors.As(err, &ae) || ae.Code != "MaxMessageLengthExceeded" || ae.Status != http.StatusBadRequest {
				t.Fatalf("%d-byte body: %v, want MaxMessageLengthExceeded", n, err)
			}
		case err != nil && err != errMalformedXML:
			t.Fatalf("readXML: %v", err)
		}
	})
}

// spaces is an endless reader of XML whitespace.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}
