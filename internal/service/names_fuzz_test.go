package service_test

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/service"
)

// The bucket naming rules, restated independently of ValidateBucketName
// (which scans bytes): a name is dot-separated labels, each of lowercase
// letters, digits and hyphens that begins and ends with a letter or digit.
// That one rule covers "begins and ends with a letter or digit", "no two
// adjacent periods" and "no period next to a hyphen".
var (
	bucketLabel = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$`)
	// Formatted as an IP address: four dot-separated decimal numbers, with
	// or without leading zeros or values over 255 (S3 refuses 192.168.5.4
	// and anything shaped like it).
	ipShaped         = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$`)
	reservedPrefixes = []string{"xn--", "sthree-", "amzn-s3-demo-"}
	reservedSuffixes = []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"}
)

func bucketNameOK(name string) bool {
	if len(name) < 3 || len(name) > 63 {
		return false
	}
	for _, l := range strings.Split(name, ".") {
		if !bucketLabel.MatchString(l) {
			return false
		}
	}
	if ipShaped.MatchString(name) {
		return false
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(name, p) {
			return false
		}
	}
	for _, s := range reservedSuffixes {
		if strings.HasSuffix(name, s) {
			return false
		}
	}
	return true
}

// FuzzValidateBucketName checks ValidateBucketName against the independent
// checker above: it never panics, accepts exactly the names the rules
// allow, and refuses with ErrInvalidBucketName.
func FuzzValidateBucketName(f *testing.F) {
	for _, s := range []string{
		"", "ab", "abc", "my-bucket", "my.bucket.name", "a.b", "a..b", "a.-b", "a-.b", "-abc", "abc-",
		".abc", "abc.", "ABC", "a_b", "192.168.5.4", "192.168.5.04", "1.2.3", "1.2.3.4.5", "999.999.999.999",
		"xn--abc", "sthree-x", "amzn-s3-demo-bucket", "b-s3alias", "b--ol-s3", "b.mrap", "b--x-s3", "b--table-s3",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "a\x00b", "ab\xff", "日本語", "health",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := service.ValidateBucketName(name)
		if err != nil && !errors.Is(err, service.ErrInvalidBucketName) {
			t.Fatalf("ValidateBucketName(%q) = %v: not ErrInvalidBucketName", name, err)
		}
		if want := bucketNameOK(name); (err == nil) != want {
			t.Fatalf("ValidateBucketName(%q) = %v; the naming rules say valid=%v", name, err, want)
		}
	})
}

// FuzzValidateKey: a key is accepted exactly when it is 1 to 1024 bytes of
// valid UTF-8; too long is ErrKeyTooLong, anything else ErrInvalidKey.
func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{
		"", "k", "../../etc/passwd", "a//b", "/leading", "dir/", ".", "..", "日本", "\x00", "a\xffb", "\xed\xa0\x80",
		strings.Repeat("k", 1024), strings.Repeat("k", 1025), strings.Repeat("日", 341) + "k", strings.Repeat("日", 342),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		err := service.ValidateKey(key)
		switch {
		case len(key) > service.MaxKeyLength:
			if !errors.Is(err, service.ErrKeyTooLong) {
				t.Fatalf("ValidateKey(%d bytes) = %v, want ErrKeyTooLong", len(key), err)
			}
		case key == "" || !utf8.ValidString(key):
			if !errors.Is(err, service.ErrInvalidKey) {
				t.Fatalf("ValidateKey(%q) = %v, want ErrInvalidKey", key, err)
			}
		case err != nil:
			t.Fatalf("ValidateKey(%q) = %v, want nil", key, err)
		}
	})
}
