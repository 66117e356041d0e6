package s3api

import (
	"net/http"
	"testing"
)

func TestStoredContentEncoding(t *testing.T) {
	for in, want := range map[string]string{
		"":                             "",
		"gzip":                         "gzip",
		"GZIP":                         "GZIP",
		"deflate, gzip":                "deflate, gzip",
		"deflate,gzip":                 "deflate,gzip",
		" gzip ":                       " gzip ",
		"aws-chunked":                  "",
		"aws-chunked,gzip":             "gzip",
		"aws-chunked, gzip":            "gzip",
		"AWS-Chunked, deflate, gzip":   "deflate, gzip",
		"deflate, aws-chunked, gzip":   "deflate, gzip",
		"gzip,aws-chunked":             "gzip",
		"x-aws-chunked, gzip":          "x-aws-chunked, gzip",
		"deflate , aws-chunked , gzip": "deflate , gzip",
	} {
		if got := storedContentEncoding(in); got != want {
			t.Errorf("storedContentEncoding(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseObjectHeadersVerbatim(t *testing.T) {
	h := http.Header{
		"Content-Encoding":    {"deflate, aws-chunked, gzip"},
		"Cache-Control":       {"no-cache, max-age=0", "private"},
		"Content-Disposition": {`attachment; filename="a, b.txt"`},
		"X-Amz-Meta-Tags":     {"a, b", "c"},
		"X-Amz-Meta-One":      {" spaced , value "},
	}
	ch, um, err := parseObjectHeaders(h)
	if err != nil {
		t.Fatal(err)
	}
	if ch.ContentEncoding != "deflate, gzip" || ch.CacheControl != "no-cache, max-age=0,private" ||
		ch.ContentDisposition != `attachment; filename="a, b.txt"` {
		t.Errorf("headers %+v", ch)
	}
	if um["tags"] != "a, b,c" || um["one"] != " spaced , value " {
		t.Errorf("user metadata %q", um)
	}
}
