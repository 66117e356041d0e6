package cp

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
)

func TestParseCustomerKey(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	b64 := base64.StdEncoding.EncodeToString(key)
	dir := t.TempDir()
	raw, text, short := filepath.Join(dir, "raw"), filepath.Join(dir, "text"), filepath.Join(dir, "short")
	for name, b := range map[string][]byte{raw: key, text: []byte(b64 + "\n"), short: key[:16]} {
		if err := os.WriteFile(name, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{b64, true}, {"@" + raw, true}, {"@" + text, true},
		{"@" + short, false}, {base64.StdEncoding.EncodeToString(key[:31]), false}, {"not base64!", false}, {"@" + filepath.Join(dir, "none"), false},
	} {
		got, err := ParseCustomerKey(tc.in)
		if tc.ok && (err != nil || !bytes.Equal(got, key)) {
			t.Errorf("ParseCustomerKey(%q) = %q, %v; want the key", tc.in, got, err)
		}
		if !tc.ok && err == nil {
			t.Errorf("ParseCustomerKey(%q) = %q, want an error", tc.in, got)
		}
	}
}

// TestExpectEncryptedETag: the ETag of an SSE-KMS or SSE-C object is not
// its MD5, so a download of one without a checksum is not checked against
// it (it would fail); an SSE-S3 object's ETag is its MD5.
func TestExpectEncryptedETag(t *testing.T) {
	etag := "9e107d9d372bb6826bd81d3542a419d6"
	for enc, want := range map[string]string{"": md5ETag, "AES256": md5ETag, "aws:kms": "", "SSE-C": ""} {
		e, err := expect(ObjectInfo{ETag: etag, Encryption: enc})
		if err != nil || e.alg != want {
			t.Errorf("expect(ETag, %q) = %q, %v; want %q", enc, e.alg, err, want)
		}
	}
}
