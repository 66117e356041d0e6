package meta

import "testing"

// TestDecodeHeadersMemo: a header document decodes the same from the memo
// as the first time, a caller's change to its copy does not reach the
// next caller, and a bad document is an error every time.
func TestDecodeHeadersMemo(t *testing.T) {
	o := Object{Headers: ContentHeaders{ContentType: "text/plain", CacheControl: "no-cache"}}
	d, err := EncodeObjectDocs(o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		var got Object
		if err := d.Decode(&got); err != nil {
			t.Fatal(err)
		}
		if got.Headers != o.Headers {
			t.Fatalf("decode %d: %+v, want %+v", i, got.Headers, o.Headers)
		}
		got.Headers.ContentType = "text/html" // the caller's own copy
	}
	for range 2 {
		if err := (ObjectDocs{Headers: `{"ct":`}).Decode(&Object{}); err == nil {
			t.Fatal("a truncated document decoded")
		}
	}
}
