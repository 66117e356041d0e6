package console

import "testing"

// TestAttachment: a download's Content-Disposition names the file in
// RFC 6266's filename*, every byte outside RFC 5987's attr-char encoded.
func TestAttachment(t *testing.T) {
	for name, want := range map[string]string{
		"a.pdf":           "attachment; filename*=UTF-8''a.pdf",
		`a "b";c=d,é.txt`: "attachment; filename*=UTF-8''a%20%22b%22%3Bc%3Dd%2C%C3%A9.txt",
	} {
		if got := attachment(name); got != want {
			t.Errorf("attachment(%q) = %q, want %q", name, got, want)
		}
	}
}
