package s3api

import (
	"net/url"
	"strings"
	"testing"
)

func TestURLEncode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain/key-1_2.txt", "plain/key-1_2.txt"},
		{"dir/", "dir/"},
		{"a*b", "a*b"},
		// Measured on S3 (ap-northeast-2, encoding-type=url; see
		// docs/COMPATIBILITY.md): space is "+", "+" and "%" are escaped,
		// "/" is not, UTF-8 bytes are escaped one by one.
		{"a b.txt", "a+b.txt"},
		{"a+b.txt", "a%2Bb.txt"},
		{"100%.csv", "100%25.csv"},
		{"한글/x.txt", "%ED%95%9C%EA%B8%80/x.txt"},
		{"run books/x.txt", "run+books/x.txt"},
		// AWS's EncodingType documentation: test_file(3).png.
		{"test_file(3).png", "test_file%283%29.png"},
		{"reports/year=2015", "reports/year%3D2015"},
		{"~tilde", "%7Etilde"},
		{"&?#=:;,@$!'\"<>[]{}|\\^`", "%26%3F%23%3D%3A%3B%2C%40%24%21%27%22%3C%3E%5B%5D%7B%7D%7C%5C%5E%60"},
		{"\x00\x01\t\n\r\x7f", "%00%01%09%0A%0D%7F"},
		{"日本語/ファイル.txt", "%E6%97%A5%E6%9C%AC%E8%AA%9E/%E3%83%95%E3%82%A1%E3%82%A4%E3%83%AB.txt"},
		{"😀", "%F0%9F%98%80"},
		{"bad\xffutf8", "bad%FFutf8"},
		{"  ", "++"},
	} {
		if got := urlEncode(tc.in); got != tc.want {
			t.Errorf("urlEncode(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// queryEscapeS3 is the same rule built from url.QueryEscape, which differs
// only in "*" and "/" (escaped there) and "~" (kept there).
func queryEscapeS3(s string) string {
	e := url.QueryEscape(s)
	return strings.NewReplacer("%2F", "/", "%2A", "*", "~", "%7E").Replace(e)
}

func FuzzURLEncode(f *testing.F) {
	for _, s := range []string{"", "a b", "a+b%c", "日本語/ファイル", "\x00\xff~*/", "dir/sub/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := urlEncode(s)
		if want := queryEscapeS3(s); got != want {
			t.Fatalf("urlEncode(%q) = %q, want %q", s, got, want)
		}
		if back, err := url.QueryUnescape(got); err != nil || back != s {
			t.Fatalf("QueryUnescape(urlEncode(%q)) = %q, %v", s, back, err)
		}
		for i := 0; i < len(got); i++ {
			if c := got[i]; c < 0x21 || c > 0x7e {
				t.Fatalf("urlEncode(%q) = %q holds byte %#x", s, got, c)
			}
		}
	})
}

// Keys with nothing to encode, the common case, cost no allocation.
func TestURLEncodeNoAlloc(t *testing.T) {
	for _, s := range []string{"photos/2024/jan/IMG_0001.jpg", "key-00042", "a*b/c.d_e-f"} {
		if n := testing.AllocsPerRun(100, func() { _ = urlEncode(s) }); n != 0 {
			t.Errorf("urlEncode(%q): %v allocations, want 0", s, n)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = urlEncode("dir/a b+c.txt") }); n != 1 {
		t.Errorf("urlEncode of a key to encode: %v allocations, want 1", n)
	}
}

func BenchmarkURLEncode(b *testing.B) {
	for _, s := range []string{"photos/2024/jan/IMG_0001.jpg", "dir/a b+c (1).txt", "日本語/ファイル.txt"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = urlEncode(s)
			}
		})
	}
}
