package service

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/sse/format"
)

// markerBody is n bytes of marker repeated.
func markerBody(marker string, n int) []byte {
	return bytes.Repeat([]byte(marker), n/len(marker)+1)[:n]
}

// TestSSEMarkerNotOnDisk: objects of every size class (inline, a pack
// record, a blob file, a multipart object of a blob and a pack record),
// written under every mode with a marker of their own, leave that marker
// nowhere in the data dir — blobs, packs, the metadata database and its
// WAL — while the same classes written plain leave theirs, which shows
// the scan sees every place bytes rest.
func TestSSEMarkerNotOnDisk(t *testing.T) {
	st := newSealTest(t, 4096)
	if !st.b.Packing {
		t.Log("file system cannot punch holes: no pack records")
	}
	classes := []struct {
		name  string
		sizes []int // one: a PUT; more: the parts of an upload
	}{
		{"inline", []int{3000}},
		{"pack", []int{200 << 10}},
		{"blob", []int{2<<20 + 7}},
		{"multipart", []int{MinPartSize, 100 << 10}},
	}
	markers := map[string]bool{} // marker: written plain
	for _, req := range append(sseModes(), sse.Request{}) {
		for _, c := range classes {
			marker := fmt.Sprintf("<jog-marker %s %q>", c.name, req.Mode)
			markers[marker] = req.Mode == ""
			key := "m/" + c.name + "/" + req.Mode
			if len(c.sizes) == 1 {
				o := st.put(t, key, markerBody(marker, c.sizes[0]), true, req)
				if inline := c.name == "inline"; (o.BlobID == "") != inline {
					t.Fatalf("%s: blob %q, want inline %v", key, o.BlobID, inline)
				}
				continue
			}
			u, err := st.s.CreateUpload(t.Context(), meta.Upload{Bucket: "b", Key: key}, req)
			if err != nil {
				t.Fatal(err)
			}
			var parts []CompletedPart
			for i, n := range c.sizes {
				p, err := st.s.UploadPart(t.Context(), PartInput{Bucket: "b", Key: key, UploadID: u.UploadID, Number: i + 1,
					Body: bytes.NewReader(markerBody(marker, n)), Size: int64(n), CustomerKey: readKey(req)})
				if err != nil {
					t.Fatal(err)
				}
				parts = append(parts, CompletedPart{Number: p.Number, ETag: p.ETag})
			}
			if _, err := st.s.CompleteUpload(t.Context(), CompleteInput{Bucket: "b", Key: key, UploadID: u.UploadID, Parts: parts, ObjectSize: -1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	found := map[string][]string{}
	var files []string
	st.eachFile(t, func(rel string, b []byte) bool {
		files = append(files, rel)
		for m := range markers {
			if bytes.Contains(b, []byte(m)) {
				found[m] = append(found[m], rel)
			}
		}
		return false
	})
	for m, plain := range markers {
		if (len(found[m]) > 0) != plain {
			t.Errorf("marker %s (written plain: %v) found in %v", m, plain, found[m])
		}
	}
	t.Logf("scanned %v", files)
}

// flipStored changes one byte, at off of the stored (sealed) bytes, of
// the blob id or, for "", of o's inline bytes, where they rest: in the
// data dir's files, or in the metadata store's row.
func (st *sealTest) flipStored(t *testing.T, o meta.Object, id string, off int) {
	t.Helper()
	if id == "" {
		o.Inline[off] ^= 0x20
		if _, err := st.s.meta.PutObject(t.Context(), o, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := st.b.Open(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	probe := sealed[:64] // the header's random nonce prefix makes it unique
	flipped := 0
	st.eachFile(t, func(rel string, b []byte) bool {
		i := bytes.Index(b, probe)
		if i < 0 || strings.HasPrefix(rel, "meta.db") {
			return false
		}
		b[i+off] ^= 0x20
		flipped++
		return true
	})
	if flipped != 1 {
		t.Fatalf("flip a byte of blob %s: %d files changed", id, flipped)
	}
}

// eachFile calls fn with the path (relative to the data dir) and the
// bytes of every file in the data dir, and writes back those it changed
// (fn returns true).
func (st *sealTest) eachFile(t *testing.T, fn func(rel string, b []byte) (changed bool)) {
	t.Helper()
	err := filepath.WalkDir(st.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(st.dir, path)
		if err != nil || !fn(rel, b) {
			return err
		}
		return os.WriteFile(path, b, 0o640)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSSEDamageFailsRead: one byte changed in an encrypted object's
// stored bytes — inline, in a pack record, a blob file, a part of a
// multipart object — fails its read with an error that is logged with
// the object's name; what was returned before the error is the object's
// own bytes, never others.
func TestSSEDamageFailsRead(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	req := sse.Request{Mode: sse.ModeS3}
	const inPackage1 = format.HeaderSize + format.PackageSize + format.TagSize + 10
	for _, tc := range []struct {
		name string
		size int
		off  int // of the byte changed in the stored bytes
	}{
		{"inline", 3000, format.HeaderSize + 7},
		{"pack", 200 << 10, inPackage1},
		{"blob", 2<<20 + 7, inPackage1},
		{"header", 2<<20 + 7, 5},
		{"multipart", 0, inPackage1},
	} {
		key := "d/" + tc.name
		var data []byte
		if tc.size > 0 {
			data = testBytes(tc.size, 4)
			st.put(t, key, data, true, req)
		} else {
			_, data = st.multipart(t, key, req, MinPartSize, 100<<10)
		}
		o, err := st.s.HeadObject(ctx, "b", key, "", true)
		if err != nil {
			t.Fatal(err)
		}
		id := o.BlobID
		if o.UploadID != "" {
			id = o.Parts[0].BlobID
		}
		st.flipStored(t, o, id, tc.off)

		_, r, err := st.s.OpenObject(ctx, "b", key, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if !errors.Is(err, format.ErrNotAuthentic) && !errors.Is(err, format.ErrUnknownFormat) {
			t.Errorf("%s: read of damaged bytes: %d bytes, %v", tc.name, len(got), err)
		}
		if !bytes.HasPrefix(data, got) || len(got) >= len(data) {
			t.Errorf("%s: read %d bytes before failing, not a prefix of the object's", tc.name, len(got))
		}
		var buf bytes.Buffer
		if _, err := r.CopyRange(&buf, 0, int64(len(data))); err == nil || !bytes.HasPrefix(data, buf.Bytes()) {
			t.Errorf("%s: range over damaged bytes: %d bytes, %v", tc.name, buf.Len(), err)
		}
		r.Close()
		if log := st.log.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "key="+key) {
			t.Errorf("%s: the failure is not logged with the object's key:\n%s", tc.name, log)
		}
	}
}
