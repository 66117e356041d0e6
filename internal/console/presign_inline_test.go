package console_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// TestPresignInline: {"inline": true} gives a URL whose answer is
// Content-Disposition: inline for an object stored as an attachment (the
// PDF preview draws it instead of downloading it); {"download": true}
// one whose answer is an attachment named as the key's base name (the
// Download link, whose download attribute a browser ignores across
// origins); without either the object's own disposition is served.
func TestPresignInline(t *testing.T) {
	srv := startServer(t)
	s := signIn(t, srv, readerKey, readerSecret)
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String("docs")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("docs"), Key: aws.String("dir/a.pdf"),
		Body: strings.NewReader("%PDF-1.4"), ContentType: aws.String("application/pdf"),
		ContentDisposition: aws.String(`attachment; filename="a.pdf"`)}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key, flag string
		want      string
	}{
		{"dir/a.pdf", "", `attachment; filename="a.pdf"`},
		{"dir/a.pdf", "inline", "inline"},
		{"dir/a.pdf", "download", "attachment; filename*=UTF-8''a.pdf"},
	} {
		in := map[string]any{"bucket": "docs", "key": tc.key, "expires": 60}
		if tc.flag != "" {
			in[tc.flag] = true
		}
		b, _ := json.Marshal(in)
		resp, body := s.call(http.MethodPost, "/console/api/presign", bytes.NewReader(b))
		var out struct{ URL string }
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &out) != nil || out.URL == "" {
			t.Fatalf("presign %v: %s %s", in, resp.Status, body)
		}
		get, got := fetch(t, out.URL)
		if get.StatusCode != http.StatusOK || string(got) != "%PDF-1.4" || get.Header.Get("Content-Disposition") != tc.want {
			t.Errorf("GET the URL presigned with %v: %s, Content-Disposition %q, body %q; want 200, %q",
				in, get.Status, get.Header.Get("Content-Disposition"), got, tc.want)
		}
	}
}
