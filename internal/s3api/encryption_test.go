package s3api

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sse"
)

// TestGoldenNoEncryptionConfig pins GetBucketEncryption's answer for a
// bucket without default encryption, through the one error writer.
func TestGoldenNoEncryptionConfig(t *testing.T) {
	h := &Handler{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	req := &request{Request: httptest.NewRequest("GET", "/bucket?encryption", nil), id: "0123456789ABCDEF",
		route: Route{Op: OpGetBucketEncryption, Bucket: "bucket"}}
	rec := httptest.NewRecorder()
	h.writeError(&statusWriter{ResponseWriter: rec}, req, service.ErrNoEncryptionConfig)
	if rec.Code != http.StatusNotFound {
		t.Errorf("status %d, want 404", rec.Code)
	}
	checkGolden(t, "config-GetBucketEncryption", rec.Body.Bytes())
}

func TestParseKMSKeyID(t *testing.T) {
	for in, want := range map[string]string{
		"app-key": "app-key",
		"arn:aws:kms:us-east-1:111122223333:key/app-key":                   "app-key",
		"arn:aws:kms:eu-west-1:1:key/1234abcd-12ab-34cd-56ef-1234567890ab": "1234abcd-12ab-34cd-56ef-1234567890ab",
		"alias/x": "",
		"arn:aws:kms:us-east-1:111122223333:alias/x": "",
		"arn:aws:s3:::bucket/key/x":                  "",
		"arn:aws:kms:us-east-1:1:key/":               "",
		"":                                           "",
	} {
		got, err := parseKMSKeyID(in)
		if got != want || (want == "") != errors.Is(err, kms.ErrInvalidKeyID) {
			t.Errorf("parseKMSKeyID(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseEncryptionConfiguration(t *testing.T) {
	rule := func(inner string) string {
		return `<ServerSideEncryptionConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule>` + inner + `</Rule></ServerSideEncryptionConfiguration>`
	}
	for _, tc := range []struct {
		body string
		want sse.BucketDefault
		err  string // the S3 code, "" for none
	}{
		{rule(`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault>`), sse.BucketDefault{Mode: sse.ModeS3}, ""},
		{rule(`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>arn:aws:kms:us-east-1:1:key/k1</KMSMasterKeyID></ApplyServerSideEncryptionByDefault><BucketKeyEnabled>true</BucketKeyEnabled>`),
			sse.BucketDefault{Mode: sse.ModeKMS, KeyID: "k1", BucketKey: true}, ""},
		// The bucket key is SSE-KMS's alone.
		{rule(`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault><BucketKeyEnabled>true</BucketKeyEnabled>`), sse.BucketDefault{Mode: sse.ModeS3}, ""},
		{rule(`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm><KMSMasterKeyID>k1</KMSMasterKeyID></ApplyServerSideEncryptionByDefault>`), sse.BucketDefault{}, "InvalidArgument"},
		{rule(`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms:dsse</SSEAlgorithm></ApplyServerSideEncryptionByDefault>`), sse.BucketDefault{}, "InvalidArgument"},
		{rule(`<ApplyServerSideEncryptionByDefault><SSEAlgorithm>aws:kms</SSEAlgorithm><KMSMasterKeyID>alias/x</KMSMasterKeyID></ApplyServerSideEncryptionByDefault>`), sse.BucketDefault{}, "KMS.NotFoundException"},
		{rule(``), sse.BucketDefault{}, "MalformedXML"},
		{`<ServerSideEncryptionConfiguration/>`, sse.BucketDefault{}, "MalformedXML"},
		{`<ServerSideEncryptionConfiguration><Rule>`, sse.BucketDefault{}, "MalformedXML"},
		{`<ServerSideEncryptionConfiguration><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule><Rule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></Rule></ServerSideEncryptionConfiguration>`,
			sse.BucketDefault{}, "MalformedXML"},
	} {
		got, err := parseEncryptionConfiguration([]byte(tc.body))
		code := ""
		if err != nil {
			ae, _ := toAPIError(err)
			code = ae.Code
		}
		if got != tc.want || code != tc.err {
			t.Errorf("%s: %+v, %q; want %+v, %q", tc.body, got, code, tc.want, tc.err)
		}
	}
}

// TestSSERequest: the headers of a write, as sseRequest reads them, and
// the refusals of headers that do not go together.
func TestSSERequest(t *testing.T) {
	h := &Handler{authz: authz.New("", authz.Options{})}
	key := "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	const keyMD5 = "hRasmdxgYDKV3nvbahU1MA==" // of the key above
	ssec := map[string]string{"X-Amz-Server-Side-Encryption-Customer-Algorithm": "AES256",
		"X-Amz-Server-Side-Encryption-Customer-Key": key, "X-Amz-Server-Side-Encryption-Customer-Key-Md5": keyMD5}
	for _, tc := range []struct {
		name     string
		hdr      map[string]string
		insecure bool // --allow-insecure-sse-c
		mode     string
		err      string
	}{
		{"none", nil, false, "", ""},
		{"sse-s3", map[string]string{"X-Amz-Server-Side-Encryption": "AES256"}, false, sse.ModeS3, ""},
		{"sse-kms", map[string]string{"X-Amz-Server-Side-Encryption": "aws:kms", "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": "k"}, false, sse.ModeKMS, ""},
		{"unknown", map[string]string{"X-Amz-Server-Side-Encryption": "aes256"}, false, "", "InvalidArgument"},
		{"key without kms", map[string]string{"X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id": "k"}, false, "", "InvalidArgument"},
		{"bucket key value", map[string]string{"X-Amz-Server-Side-Encryption": "aws:kms", "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled": "yes"}, false, "", "InvalidArgument"},
		{"sse-c over plain HTTP", ssec, false, "", "InvalidRequest"},
		{"sse-c allowed", ssec, true, sse.ModeC, ""},
		{"sse-c and sse", map[string]string{"X-Amz-Server-Side-Encryption": "AES256", "X-Amz-Server-Side-Encryption-Customer-Algorithm": "AES256",
			"X-Amz-Server-Side-Encryption-Customer-Key": key}, true, "", "InvalidArgument"},
	} {
		h.cfg.AllowInsecureSSEC = tc.insecure
		r := &request{Request: httptest.NewRequest("PUT", "/b/k", nil)}
		for k, v := range tc.hdr {
			r.Header.Set(k, v)
		}
		req, err := h.sseRequest(r, r.Header)
		code := ""
		if err != nil {
			ae, _ := toAPIError(err)
			code = ae.Code
		}
		if req.Mode != tc.mode || code != tc.err {
			t.Errorf("%s: mode %q, %q (%v); want %q, %q", tc.name, req.Mode, code, err, tc.mode, tc.err)
		}
	}
}
