package postpolicy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// awsExamplePolicy is the policy of AWS's "Example: Browser-Based Upload
// using HTTP POST (Using AWS Signature Version 4)"
// (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-post-example.html),
// as printed there; awsExampleForm the form of that page.
const awsExamplePolicy = `{ "expiration": "2015-12-30T12:00:00.000Z",
  "conditions": [
    {"bucket": "sigv4examplebucket"},
    ["starts-with", "$key", "user/user1/"],
    {"acl": "public-read"},
    {"success_action_redirect": "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html"},
    ["starts-with", "$Content-Type", "image/"],
    {"x-amz-meta-uuid": "14365123651274"},
    {"x-amz-server-side-encryption": "AES256"},
    ["starts-with", "$x-amz-meta-tag", ""],

    {"x-amz-credential": "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"},
    {"x-amz-algorithm": "AWS4-HMAC-SHA256"},
    {"x-amz-date": "20151229T000000Z" }
  ]
}`

func awsExampleForm() []field {
	return []field{
		{"key", "user/user1/${filename}"},
		{"acl", "public-read"},
		{"success_action_redirect", "http://sigv4examplebucket.s3.amazonaws.com/successful_upload.html"},
		{"Content-Type", "image/jpeg"},
		{"x-amz-meta-uuid", "14365123651274"},
		{"x-amz-server-side-encryption", "AES256"},
		{"X-Amz-Credential", "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"},
		{"X-Amz-Algorithm", "AWS4-HMAC-SHA256"},
		{"X-Amz-Date", "20151229T000000Z"},
		{"x-amz-meta-tag", ""},
		{"Policy", b64(awsExamplePolicy)},
		{"X-Amz-Signature", "8afdbf4008c03f22c2cd3cdb72e4afbb1f6a588f3255ac628749a66d7f09699e"},
	}
}

var exampleTime = time.Date(2015, 12, 29, 0, 0, 0, 0, time.UTC)

func checkForm(t *testing.T, fields []field, fileName string, now time.Time, bucket string) (*Form, Range, error) {
	t.Helper()
	body, ct := formBody(t, fields, fileName, []byte("content"))
	f, err := ReadForm(bytes.NewReader(body), ct)
	if err != nil {
		t.Fatalf("ReadForm: %v", err)
	}
	p, err := ParsePolicy(f.Get("policy"))
	if err != nil {
		return f, Range{}, err
	}
	rng, err := p.Check(now, f, bucket, 5<<30)
	return f, rng, err
}

func TestAWSExampleAccepted(t *testing.T) {
	f, rng, err := checkForm(t, awsExampleForm(), "photo.jpg", exampleTime, "sigv4examplebucket")
	if err != nil {
		t.Fatal(err)
	}
	if f.Key() != "user/user1/photo.jpg" {
		t.Errorf("key %q, want ${filename} replaced", f.Key())
	}
	if rng != (Range{0, 5 << 30}) {
		t.Errorf("range %v without content-length-range", rng)
	}
	var got strings.Builder
	_, _ = io.Copy(&got, f.File)
	if got.String() != "content" {
		t.Errorf("file %q", got.String())
	}
}

// TestAWSExampleRefused changes one thing of the AWS example at a time:
// each breaks a condition or adds a field no condition covers.
func TestAWSExampleRefused(t *testing.T) {
	set := func(name, value string) func([]field) []field {
		return func(fs []field) []field {
			for i := range fs {
				if strings.EqualFold(fs[i].name, name) {
					fs[i].value = value
					return fs
				}
			}
			return append(fs, field{name, value})
		}
	}
	cases := []struct {
		name   string
		change func([]field) []field
		bucket string
		now    time.Time
		want   string
	}{
		{"expired", set("acl", "public-read"), "sigv4examplebucket", time.Date(2015, 12, 30, 12, 0, 0, 0, time.UTC),
			"Invalid according to Policy: Policy expired."},
		{"other bucket", set("acl", "public-read"), "other", exampleTime,
			`Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "sigv4examplebucket"]`},
		{"key outside the prefix", set("key", "user/user2/${filename}"), "sigv4examplebucket", exampleTime,
			`Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "user/user1/"]`},
		{"acl", set("acl", "private"), "sigv4examplebucket", exampleTime,
			`Invalid according to Policy: Policy Condition failed: ["eq", "$acl", "public-read"]`},
		{"content type", set("content-type", "text/plain"), "sigv4examplebucket", exampleTime,
			`Invalid according to Policy: Policy Condition failed: ["starts-with", "$content-type", "image/"]`},
		{"one of the content types", set("content-type", "image/png, text/plain"), "sigv4examplebucket", exampleTime,
			`Invalid according to Policy: Policy Condition failed: ["starts-with", "$content-type", "image/"]`},
		{"metadata", set("x-amz-meta-uuid", "1"), "sigv4examplebucket", exampleTime,
			`Invalid according to Policy: Policy Condition failed: ["eq", "$x-amz-meta-uuid", "14365123651274"]`},
		{"field not covered", set("x-amz-meta-other", "v"), "sigv4examplebucket", exampleTime,
			"Invalid according to Policy: Extra input fields: x-amz-meta-other"},
		{"success_action_status not covered", set("success_action_status", "201"), "sigv4examplebucket", exampleTime,
			"Invalid according to Policy: Extra input fields: success_action_status"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := checkForm(t, tc.change(awsExampleForm()), "photo.jpg", tc.now, tc.bucket)
			var fe *Error
			if !errors.As(err, &fe) || fe.Kind != Denied || fe.Msg != tc.want {
				t.Fatalf("got %v, want Denied %q", err, tc.want)
			}
		})
	}
	// x-ignore-* fields need no condition; a starts-with "" takes anything,
	// the field absent too.
	fs := append(awsExampleForm(), field{"x-ignore-submit", "Upload"})
	fs = set("x-amz-meta-tag", "anything")(fs)
	if _, _, err := checkForm(t, fs, "a.jpg", exampleTime, "sigv4examplebucket"); err != nil {
		t.Errorf("x-ignore- field, any tag: %v", err)
	}
}

func TestContentLengthRange(t *testing.T) {
	policy := func(conds string) string {
		return b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[{"bucket":"b"},["starts-with","$key",""],` + conds + `]}`)
	}
	for _, tc := range []struct {
		conds string
		want  Range
	}{
		{`["content-length-range", 1, 10]`, Range{1, 10}},
		{`["content-length-range", "1", "10"]`, Range{1, 10}},
		{`["content-length-range", 1, 10], ["content-length-range", 5, 100]`, Range{5, 10}},
		{`["content-length-range", 0, 1099511627776]`, Range{0, 5 << 30}},
	} {
		_, rng, err := checkForm(t, []field{{"key", "k"}, {"policy", policy(tc.conds)}}, "f", exampleTime, "b")
		if err != nil || rng != tc.want {
			t.Errorf("%s: %v, %v; want %v", tc.conds, rng, err, tc.want)
		}
	}
	for _, tc := range []struct {
		rng  Range
		body string
		want Kind // -1: accepted
	}{
		{Range{1, 10}, "0123456789", -1},
		{Range{1, 10}, "0123456789A", TooLarge},
		{Range{1, 10}, "", TooSmall},
		{Range{0, 0}, "", -1},
		{Range{0, 0}, "x", TooLarge},
	} {
		_, err := io.ReadAll(tc.rng.Reader(strings.NewReader(tc.body)))
		var fe *Error
		switch {
		case tc.want == -1 && err != nil:
			t.Errorf("%v %q: %v", tc.rng, tc.body, err)
		case tc.want != -1 && (!errors.As(err, &fe) || fe.Kind != tc.want):
			t.Errorf("%v %q: %v, want kind %d", tc.rng, tc.body, err, tc.want)
		}
	}
}

func TestParsePolicyRefusals(t *testing.T) {
	for _, tc := range []struct{ name, doc string }{
		{"not base64", "%%%"},
		{"not JSON", b64("{")},
		{"no expiration", b64(`{"conditions":[]}`)},
		{"bad expiration", b64(`{"expiration":"tomorrow","conditions":[]}`)},
		{"no conditions", b64(`{"expiration":"2030-01-01T00:00:00Z"}`)},
		{"unknown operator", b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[["ends-with","$key","x"]]}`)},
		{"field without $", b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[["eq","key","x"]]}`)},
		{"two elements", b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[["eq","$key"]]}`)},
		{"negative range", b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[["content-length-range",-1,10]]}`)},
		{"object value", b64(`{"expiration":"2030-01-01T00:00:00Z","conditions":[{"key":{"a":1}}]}`)},
	} {
		_, err := ParsePolicy(tc.doc)
		var fe *Error
		if !errors.As(err, &fe) || fe.Kind != BadPolicy {
			t.Errorf("%s: %v, want BadPolicy", tc.name, err)
		}
	}
}

func TestReadForm(t *testing.T) {
	// Field names are case-insensitive; fields after the file are not read.
	body, ct := formBody(t, []field{{"Key", "k"}, {"X-Amz-Meta-A", "1"}}, "f.txt", []byte("data"), field{"acl", "public-read"})
	f, err := ReadForm(bytes.NewReader(body), ct)
	if err != nil {
		t.Fatal(err)
	}
	if f.Get("key") != "k" || f.Get("x-amz-meta-a") != "1" || f.Has("acl") || f.FileName != "f.txt" {
		t.Errorf("form %+v", f)
	}
	if got, _ := io.ReadAll(f.File); string(got) != "data" {
		t.Errorf("file %q", got)
	}

	refuse := func(name string, body []byte, ct string, want Kind) {
		t.Helper()
		_, err := ReadForm(bytes.NewReader(body), ct)
		var fe *Error
		if !errors.As(err, &fe) || fe.Kind != want {
			t.Errorf("%s: %v, want kind %d", name, err, want)
		}
	}
	body, ct = formBody(t, []field{{"key", "a"}, {"KEY", "b"}}, "f", nil)
	refuse("repeated field", body, ct, Missing)
	body, ct = formBody(t, []field{{"key", "a"}, {"policy", strings.Repeat("x", MaxPreData)}}, "f", nil)
	refuse("fields too large", body, ct, PreDataTooLarge)
	refuse("not multipart", body, "application/x-www-form-urlencoded", Malformed)
	refuse("no boundary", body, "multipart/form-data", Malformed)
	cut := bytes.Index(body, []byte("\r\n\r\na")) + 5 // within the key's value
	refuse("truncated", body[:cut], ct, Malformed)
	noFile := []byte("--x\r\nContent-Disposition: form-data; name=\"key\"\r\n\r\nk\r\n--x--\r\n")
	refuse("no file", noFile, "multipart/form-data; boundary=x", Missing)
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadFormPreBytes: what comes before the file is bounded in bytes,
// not only its names and values: a long preamble, a part header of
// megabytes or thousands of tiny fields are refused with
// PreDataTooLarge having read at most MaxPreBytes; the file itself,
// after the fields, is not bounded.
func TestReadFormPreBytes(t *testing.T) {
	const ct = "multipart/form-data; boundary=x"
	part := func(header, value string) string {
		return "--x\r\nContent-Disposition: form-data; name=\"k\"" + header + "\r\n\r\n" + value + "\r\n"
	}
	var tiny strings.Builder
	for i := range 4000 { // names of 3 characters at most: 12 KB of MaxPreData's 20
		fmt.Fprintf(&tiny, "--x\r\nContent-Disposition: form-data; name=\"%s\"\r\n\r\n\r\n", strconv.FormatInt(int64(i), 36))
	}
	for name, body := range map[string]string{
		"a long preamble":     strings.Repeat("preamble\r\n", 1<<17) + part("", "v"),
		"a long part header":  part("\r\nX-Pad: "+strings.Repeat("p", 4<<20), "v"),
		"many part headers":   part(strings.Repeat("\r\nX-Pad: p", 1<<18), "v"),
		"thousands of fields": tiny.String(),
	} {
		src := &countingReader{r: strings.NewReader(body + "--x--\r\n")}
		_, err := ReadForm(src, ct)
		var fe *Error
		if !errors.As(err, &fe) || fe.Kind != PreDataTooLarge {
			t.Errorf("%s: %v, want PreDataTooLarge", name, err)
		}
		if src.n > MaxPreBytes {
			t.Errorf("%s: read %d bytes, more than MaxPreBytes %d", name, src.n, MaxPreBytes)
		}
	}
	file := bytes.Repeat([]byte("f"), 4*MaxPreBytes)
	body, ct2 := formBody(t, []field{{"key", "a"}}, "f", file)
	f, err := ReadForm(bytes.NewReader(body), ct2)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(f.File); err != nil || !bytes.Equal(got, file) {
		t.Errorf("the file after the fields: %d bytes, %v; want %d", len(got), err, len(file))
	}
}
