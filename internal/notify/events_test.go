package notify

import (
	"encoding/json"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil/golden"
)

func TestMatch(t *testing.T) {
	c, err := Parse(doc(
		queue("images", arnA, filter("prefix", "images/", "suffix", ".jpg"), "s3:ObjectCreated:*"),
		queue("removed", arnB, "", "s3:ObjectRemoved:Delete"),
		queue("expired", arnB, filter("prefix", "logs/"), "s3:LifecycleExpiration:*"),
	), targets, false)
	if err != nil {
		t.Fatal(err)
	}
	rs := Compile(c)
	for _, m := range []struct {
		name EventName
		key  string
		want string
	}{
		{ObjectCreatedPut, "images/a.jpg", "images"},
		{ObjectCreatedCompleteMultipartUpload, "images/a.jpg", "images"},
		{ObjectCreatedPut, "images/a.png", ""},
		{ObjectCreatedPut, "other/a.jpg", ""},
		{ObjectRemovedDelete, "images/a.jpg", "removed"},
		{ObjectRemovedDeleteMarkerCreated, "images/a.jpg", ""},
		{LifecycleExpirationDelete, "logs/x", "expired"},
		{LifecycleExpirationDeleteMarker, "logs/x", "expired"},
		{LifecycleExpirationDelete, "images/a.jpg", ""},
	} {
		got := ""
		rs.Match(m.name, m.key, func(id, target string) { got += id })
		if got != m.want {
			t.Errorf("%s %q matched %q, want %q", m.name, m.key, got, m.want)
		}
	}
	var none *Rules
	none.Match(ObjectCreatedPut, "k", func(string, string) { t.Error("nil Rules matched") })
	if Compile(Config{}) != nil {
		t.Error("an empty configuration compiles to rules")
	}
}

var update = flag.Bool("update", false, "rewrite the golden files")

// TestEventGolden pins the JSON record of an event, as a target receives
// it in a Message.
func TestEventGolden(t *testing.T) {
	at := time.Date(2026, 11, 25, 8, 30, 1, 234567891, time.UTC)
	e := NewEvent(ObjectCreatedPut, Request{ID: "187A2B3C4D5E6F70", HostID: "host-id", PrincipalID: "AKIAEXAMPLE", SourceIP: "192.0.2.7"},
		Source{Region: "us-east-1", Bucket: "photos", BucketOwner: "AKIAOWNER", Key: "holiday 2026/beach (1).jpg",
			Size: 1024, ETag: "d41d8cd98f00b204e9800998ecf8427e", VersionID: "3HL4kqtJlcpXroDTDmJ.rmSpXd3dIbrHY", At: at}, "images")
	got, err := json.MarshalIndent(Message{Records: []Event{e}}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckFile(t, "internal/notify", "event-put.json", append(got, '\n'), *update)
}

func TestRemovalHasNoSizeOrETag(t *testing.T) {
	e := NewEvent(ObjectRemovedDeleteMarkerCreated, Request{}, Source{Key: "k", Size: 5, ETag: "x", VersionID: "v", At: time.Unix(1, 0)}, "c")
	if e.S3.Object.Size != nil || e.S3.Object.ETag != "" || e.S3.Object.VersionID != "v" || e.EventName != "ObjectRemoved:DeleteMarkerCreated" {
		t.Errorf("%+v", e.S3.Object)
	}
}

// TestEmptyObjectHasSize: a created object of no bytes says "size": 0,
// as S3 does; a removal has no size at all.
func TestEmptyObjectHasSize(t *testing.T) {
	e := NewEvent(ObjectCreatedPut, Request{}, Source{Key: "k", ETag: "d41d8cd98f00b204e9800998ecf8427e", At: time.Unix(1, 0)}, "c")
	b, err := json.Marshal(e.S3.Object)
	if err != nil || !strings.Contains(string(b), `"size":0`) {
		t.Errorf("an empty object's creation: %s, %v; want \"size\":0", b, err)
	}
	e = NewEvent(ObjectRemovedDelete, Request{}, Source{Key: "k", At: time.Unix(1, 0)}, "c")
	if b, _ := json.Marshal(e.S3.Object); strings.Contains(string(b), `"size"`) {
		t.Errorf("a removal: %s; want no size", b)
	}
}

func TestEncodeKey(t *testing.T) {
	for key, want := range map[string]string{
		"plain.txt":         "plain.txt",
		"a b/c d":           "a+b/c+d",
		"x+y":               "x%2By",
		"(1)&=?#%":          "%281%29%26%3D%3F%23%25",
		"é":                 "%C3%A9",
		"dir/sub/file.jpeg": "dir/sub/file.jpeg",
	} {
		if got := EncodeKey(key); got != want {
			t.Errorf("EncodeKey(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestSequencerOrders(t *testing.T) {
	a := Sequencer(time.Unix(1, 999))
	b := Sequencer(time.Unix(2, 0))
	c := Sequencer(time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC))
	if len(a) != 16 || len(b) != 16 || len(c) != 16 || !(a < b && b < c) {
		t.Errorf("%s %s %s: want equal widths, increasing", a, b, c)
	}
}

func TestRequestContext(t *testing.T) {
	ctx := WithRequest(t.Context(), Request{ID: "r", Post: true})
	if r := RequestFrom(ctx); r.ID != "r" || !r.Post {
		t.Errorf("%+v", r)
	}
	if r := RequestFrom(t.Context()); r != (Request{}) {
		t.Errorf("%+v from an empty context", r)
	}
}
