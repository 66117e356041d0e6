package s3api

import (
	"regexp"
	"testing"
)

// TestRequestIDs: 16 upper-case hex digits, as S3's, and no two alike
// among many.
func TestRequestIDs(t *testing.T) {
	form := regexp.MustCompile(`^[0-9A-F]{16}$`)
	seen := map[string]bool{}
	for range 100000 {
		id := newRequestID()
		if !form.MatchString(id) {
			t.Fatalf("request ID %q", id)
		}
		if seen[id] {
			t.Fatalf("request ID %q twice", id)
		}
		seen[id] = true
	}
}
