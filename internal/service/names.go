package service

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxKeyLength is S3's limit on object key length in bytes.
const MaxKeyLength = 1024

// ValidateBucketName applies S3's general-purpose bucket naming rules.
func ValidateBucketName(name string) error {
	bad := func(why string) error { return fmt.Errorf("%w: %q %s", ErrInvalidBucketName, name, why) }
	if len(name) < 3 || len(name) > 63 {
		return bad("must be 3 to 63 characters long")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return bad("may contain only lowercase letters, digits, dots and hyphens")
		}
	}
	if !alnum(name[0]) || !alnum(name[len(name)-1]) {
		return bad("must begin and end with a letter or digit")
	}
	if strings.Contains(name, "..") || strings.Contains(name, ".-") || strings.Contains(name, "-.") {
		return bad("must not contain adjacent periods or a period next to a hyphen")
	}
	if ipShaped(name) {
		return bad("must not be formatted as an IP address")
	}
	for _, p := range []string{"xn--", "sthree-", "amzn-s3-demo-"} {
		if strings.HasPrefix(name, p) {
			return bad("must not start with " + p)
		}
	}
	for _, s := range []string{"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"} {
		if strings.HasSuffix(name, s) {
			return bad("must not end with " + s)
		}
	}
	return nil
}

// ipShaped reports whether name looks like an IPv4 address: four
// dot-separated runs of digits. Leading zeros and values over 255 count too
// ("192.168.5.04", "999.0.0.1"): S3 refuses names formatted as an IP
// address, not only valid ones.
func ipShaped(name string) bool {
	parts := strings.Split(name, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// ValidateKey checks that key is a usable S3 object key: non-empty, valid
// UTF-8 and at most 1024 bytes. Keys are never used as file names, so "..",
// "//" and friends are ordinary keys.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if len(key) > MaxKeyLength {
		return ErrKeyTooLong
	}
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidKey)
	}
	return nil
}
