package service

import (
	"bytes"
	"errors"
	"testing"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
)

// TestSSECopyBetweenModes: CopyObject opens the source with its key and
// seals the copy as the destination asks, whatever the source's mode —
// no SSE asked and no bucket default gives a plain copy, as S3's; a
// copy of an SSE-C source needs the source's key.
func TestSSECopyBetweenModes(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	plain := sse.Request{}
	s3 := sse.Request{Mode: sse.ModeS3}
	kmsReq := sseModes()[1]
	c1 := sse.Request{Mode: sse.ModeC, CustomerKey: customerKey}
	c2 := sse.Request{Mode: sse.ModeC, CustomerKey: customerKey2}
	for i, tc := range []struct{ src, dst sse.Request }{
		{c1, s3}, {plain, kmsReq}, {s3, plain}, {kmsReq, c2}, {c1, c2}, {c2, plain},
	} {
		for _, n := range []int{1000, 200 << 10} {
			data := testBytes(n, uint64(i))
			st.put(t, "src", data, true, tc.src)
			o, _, err := st.s.CopyObject(ctx, CopyInput{SrcBucket: "b", SrcKey: "src", SrcCustomerKey: readKey(tc.src),
				Dst: PutInput{Bucket: "b", Key: "dst", SSE: tc.dst}})
			if err != nil {
				t.Fatalf("copy %q → %q: %v", tc.src.Mode, tc.dst.Mode, err)
			}
			if o.Encryption.Mode != tc.dst.Mode {
				t.Errorf("copy %q → %q: the copy is %q", tc.src.Mode, tc.dst.Mode, o.Encryption.Mode)
			}
			checkETag(t, "copy", tc.dst.Mode, o.ETag, data)
			st.get(t, "dst", readKey(tc.dst), data)
		}
	}
	_, _, err := st.s.CopyObject(ctx, CopyInput{SrcBucket: "b", SrcKey: "src", Dst: PutInput{Bucket: "b", Key: "dst"}})
	if !errors.Is(err, kms.ErrSSECRequired) {
		t.Errorf("copy of an SSE-C source without its key: %v", err)
	}
}

// TestSSEUploadPartCopy: a range of an SSE-C source, across one of its
// packages, copied into a part of an SSE-KMS upload and of an SSE-C
// upload with another key, reads back; the source's key is needed.
func TestSSEUploadPartCopy(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	data := testBytes(1<<20+7, 5)
	st.put(t, "src", data, true, sse.Request{Mode: sse.ModeC, CustomerKey: customerKey})
	first, last := int64(65533), int64(65533+200_000-1)
	for _, req := range []sse.Request{sseModes()[1], {Mode: sse.ModeC, CustomerKey: customerKey2}} {
		key := "pc/" + req.Mode
		u, err := st.s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: key}, req)
		if err != nil {
			t.Fatal(err)
		}
		in := PartCopyInput{Bucket: "b", Key: key, UploadID: u.UploadID, Number: 1, SrcBucket: "b", SrcKey: "src",
			HasRange: true, First: first, Last: last, CustomerKey: readKey(req)}
		if _, _, err := st.s.UploadPartCopy(ctx, in); !errors.Is(err, kms.ErrSSECRequired) {
			t.Errorf("%s: part copy of an SSE-C source without its key: %v", key, err)
		}
		in.SrcCustomerKey = customerKey
		p, _, err := st.s.UploadPartCopy(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		checkETag(t, key, req.Mode, p.ETag, data[first:last+1])
		o, err := st.s.CompleteUpload(ctx, CompleteInput{Bucket: "b", Key: key, UploadID: u.UploadID,
			Parts: []CompletedPart{{Number: 1, ETag: p.ETag}}, ObjectSize: -1})
		if err != nil || o.Encryption.Mode != req.Mode {
			t.Fatalf("%s: complete: %q, %v", key, o.Encryption.Mode, err)
		}
		st.get(t, key, readKey(req), data[first:last+1])
	}
}

// TestSSEBucketDefault: a bucket's default encryption seals every write
// that asks for none — a PUT, an upload, a copy — and one that asks for
// some gets what it asks; without a default, writes are plain again.
func TestSSEBucketDefault(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	data := testBytes(70_000, 9)
	st.put(t, "plain", data, true, sse.Request{})
	for _, d := range []sse.BucketDefault{{Mode: sse.ModeS3}, {Mode: sse.ModeKMS, KeyID: kmsKey}, {}} {
		if d.Mode == "" {
			if err := st.s.DeleteBucketEncryption(ctx, "b"); err != nil {
				t.Fatal(err)
			}
		} else if err := st.s.PutBucketEncryption(ctx, "b", d); err != nil {
			t.Fatal(err)
		}
		wantKeyID := d.KeyID
		if d.Mode == sse.ModeS3 {
			wantKeyID = kms.SSES3KeyID
		}
		check := func(what string, e meta.Encryption) {
			t.Helper()
			if e.Mode != d.Mode || e.KeyID != wantKeyID {
				t.Errorf("default %q: %s sealed as %q with key %q", d.Mode, what, e.Mode, e.KeyID)
			}
		}
		o := st.put(t, "put", data, false, sse.Request{})
		check("put", o.Encryption)
		st.get(t, "put", nil, data)
		u, err := st.s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: "mp"}, sse.Request{})
		if err != nil {
			t.Fatal(err)
		}
		check("upload", u.Encryption)
		p, err := st.s.UploadPart(ctx, PartInput{Bucket: "b", Key: "mp", UploadID: u.UploadID, Number: 1, Body: bytes.NewReader(data), Size: int64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		o, err = st.s.CompleteUpload(ctx, CompleteInput{Bucket: "b", Key: "mp", UploadID: u.UploadID, Parts: []CompletedPart{{Number: 1, ETag: p.ETag}}, ObjectSize: -1})
		if err != nil {
			t.Fatal(err)
		}
		check("multipart object", o.Encryption)
		st.get(t, "mp", nil, data)
		o, _, err = st.s.CopyObject(ctx, CopyInput{SrcBucket: "b", SrcKey: "plain", Dst: PutInput{Bucket: "b", Key: "copy"}})
		if err != nil {
			t.Fatal(err)
		}
		check("copy", o.Encryption)
		st.get(t, "copy", nil, data)
		o = st.put(t, "asked", data, true, sse.Request{Mode: sse.ModeC, CustomerKey: customerKey})
		if o.Encryption.Mode != sse.ModeC {
			t.Errorf("default %q: a PUT asking for SSE-C got %q", d.Mode, o.Encryption.Mode)
		}
	}
}
