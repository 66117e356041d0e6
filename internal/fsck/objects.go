package fsck

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
)

// objects checks every object version, a page at a time: single-part
// objects against their blob (or inline data), multipart objects against
// their parts.
func (c *checker) objects(ctx context.Context) error {
	buckets, err := c.meta.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil {
		return err
	}
	c.sum.Buckets = len(buckets)
	for _, b := range buckets {
		afterKey, afterVersion := "", ""
		for {
			page, err := c.meta.ScanObjects(ctx, b.Name, afterKey, afterVersion, pageSize)
			if errors.Is(err, meta.ErrBucketNotFound) {
				break // deleted by a running server
			}
			if err != nil {
				return err
			}
			for _, o := range page {
				if err := c.object(ctx, o); err != nil {
					return err
				}
			}
			if len(page) < pageSize {
				break
			}
			last := page[len(page)-1]
			afterKey, afterVersion = last.Key, last.VersionID
		}
	}
	return nil
}

// object checks one object version and, with DropLost, drops it when its
// data is damaged.
func (c *checker) object(ctx context.Context, o meta.Object) error {
	if o.DeleteMarker {
		c.sum.DeleteMarkers++
		return nil // no data to check
	}
	seal, note, err := c.sealingOf(ctx, o.Encryption, o.Bucket, o.Key)
	if err != nil {
		return err
	}
	var probs []Problem
	if note != nil && note.Kind == Key {
		probs = append(probs, *note)
	}
	var found []Problem
	if o.UploadID != "" {
		found, err = c.multipartObject(ctx, o, seal)
	} else {
		found, err = c.singleObject(ctx, o, seal)
	}
	if err != nil {
		return err
	}
	probs = append(probs, found...)
	if len(probs) > 0 && !c.stillCurrent(ctx, o) {
		c.sum.Skipped++
		probs = nil
	}
	c.sum.Objects++
	if o.UploadID != "" {
		c.sum.MultipartObjects++
	}
	c.noteUnverifiable(note, Problem{Bucket: o.Bucket, Key: o.Key, VersionID: o.VersionID})
	if len(probs) == 0 {
		return nil
	}
	c.sum.DamagedObjects++
	action := ""
	if c.opts.DropLost && lost(probs) {
		freed, err := c.meta.DeleteObject(ctx, o.Bucket, o.Key, o.VersionID, meta.Condition{})
		switch {
		case errors.Is(err, meta.ErrObjectLocked):
			// Object lock outranks repair: the store refuses to drop a
			// locked version, damaged or not; it is reported, kept.
			action = ActionKeptLocked
		case err != nil:
			return fmt.Errorf("drop %s version %s: %w", ObjectName(o.Bucket, o.Key), o.VersionID, err)
		default:
			if err := c.deleteBlobs(ctx, freed); err != nil {
				return err
			}
			c.sum.Dropped++
			action = ActionDropped
		}
	}
	for _, p := range probs {
		p.Bucket, p.Key, p.VersionID, p.Action = o.Bucket, o.Key, o.VersionID, action
		c.report(p)
	}
	return nil
}

// stillCurrent re-reads o's row: a running server may have replaced or
// deleted it (and its blobs) while it was being checked.
func (c *checker) stillCurrent(ctx context.Context, o meta.Object) bool {
	now, err := c.meta.GetObject(ctx, o.Bucket, o.Key, o.VersionID)
	return err == nil && now.BlobID == o.BlobID && now.UploadID == o.UploadID && now.ETag == o.ETag
}

func (c *checker) deleteBlobs(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if err := c.blobs.Delete(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// singleObject checks an object stored in one blob (or none, when empty),
// sealed as s.
func (c *checker) singleObject(ctx context.Context, o meta.Object, s sealing) ([]Problem, error) {
	var probs []Problem
	var want []digest
	if strings.Contains(o.ETag, "-") {
		probs = append(probs, Problem{Kind: Metadata, BlobID: o.BlobID, Detail: fmt.Sprintf("single-blob object has a multipart ETag %q", o.ETag)})
	} else {
		want = append(want, digest{name: "ETag (MD5)", value: o.ETag})
	}
	if o.Checksum.Algorithm != "" && o.Checksum.Type != "COMPOSITE" {
		want = append(want, digest{name: o.Checksum.Algorithm + " checksum", alg: checksum.Algorithm(o.Checksum.Algorithm), value: o.Checksum.Value})
	}
	if o.Inline != nil {
		if p := c.checkInline(o, want, s); p != nil {
			probs = append(probs, *p)
		}
		return probs, nil
	}
	p, err := c.checkBlob(ctx, o.BlobID, o.Size, want, s)
	if err != nil {
		return nil, err
	}
	if p != nil {
		probs = append(probs, *p)
	}
	return probs, nil
}

// checkInline checks an object stored in the metadata database, sealed
// as s: its length and, when Deep, its digests.
func (c *checker) checkInline(o meta.Object, want []digest, s sealing) *Problem {
	n := int64(len(o.Inline))
	if o.BlobID != "" {
		return &Problem{Kind: Metadata, BlobID: o.BlobID, Detail: "object has both a blob and inline data"}
	}
	stored, err := s.storedSize(o.Size)
	if err != nil {
		return &Problem{Kind: Metadata, Want: o.Size, Detail: err.Error()}
	}
	if n != stored {
		return &Problem{Kind: Size, Size: n, Want: stored, Detail: fmt.Sprintf("inline data is %d bytes, metadata says %d", n, stored)}
	}
	c.sum.BytesChecked += o.Size
	if !c.opts.Deep || s.unreadable() {
		return nil
	}
	p := c.open(bytes.NewReader(o.Inline), o.Size, want, s)
	if p != nil && p.Kind == "" {
		p.Kind = Corrupt // reading memory fails only on what it holds
	}
	return p
}

// multipartObject checks the parts of an object made by
// CompleteMultipartUpload (sealed as s, each part under its own key), and
// that its ETag, size and checksum agree with them.
func (c *checker) multipartObject(ctx context.Context, o meta.Object, s sealing) ([]Problem, error) {
	parts, err := c.meta.ObjectParts(ctx, o.UploadID)
	if err != nil {
		return nil, err
	}
	var probs []Problem
	bad := func(format string, args ...any) {
		probs = append(probs, Problem{Kind: Metadata, UploadID: o.UploadID, Detail: fmt.Sprintf(format, args...)})
	}
	if len(parts) != o.PartsCount {
		bad("%d part rows for an object of %d parts", len(parts), o.PartsCount)
	}
	var size int64
	md5s := md5.New()
	for _, p := range parts {
		size += p.Size
		b, _ := hex.DecodeString(p.ETag)
		md5s.Write(b)
	}
	if size != o.Size {
		bad("parts add up to %d bytes, object is %d", size, o.Size)
	}
	if etag := hex.EncodeToString(md5s.Sum(nil)) + "-" + strconv.Itoa(len(parts)); etag != o.ETag {
		bad("ETag %q, parts make %q", o.ETag, etag)
	}
	if msg := checkMultipartChecksum(o.Checksum, parts); msg != "" {
		bad("%s", msg)
	}
	for _, p := range parts {
		c.sum.Parts++
		bp, err := c.checkBlob(ctx, p.BlobID, p.Size, partDigests(p), s.forPart(p.Number))
		if err != nil {
			return nil, err
		}
		if bp != nil {
			bp.UploadID, bp.Part = o.UploadID, p.Number
			probs = append(probs, *bp)
		}
	}
	return probs, nil
}

// checkMultipartChecksum derives a multipart object's checksum from its
// parts' stored checksums, as completion did, and compares.
func checkMultipartChecksum(ck meta.Checksum, parts []meta.Part) string {
	if ck.Algorithm == "" || len(parts) == 0 {
		return ""
	}
	alg := checksum.Algorithm(ck.Algorithm)
	sums := make([][]byte, len(parts))
	for i, p := range parts {
		if p.ChecksumAlgorithm != ck.Algorithm {
			return fmt.Sprintf("part %d has a %s checksum, the object %s", p.Number, p.ChecksumAlgorithm, ck.Algorithm)
		}
		b, err := alg.Decode(p.Checksum)
		if err != nil {
			return fmt.Sprintf("part %d checksum: %v", p.Number, err)
		}
		sums[i] = b
	}
	var got string
	if ck.Type == "COMPOSITE" {
		got = checksum.Encode(checksum.Composite(alg, sums)) + "-" + strconv.Itoa(len(parts))
	} else {
		acc := sums[0]
		for i := 1; i < len(sums); i++ {
			var err error
			if acc, err = checksum.CombineCRC(alg, acc, sums[i], parts[i].Size); err != nil {
				return fmt.Sprintf("combine part checksums: %v", err)
			}
		}
		got = checksum.Encode(acc)
	}
	if got != ck.Value {
		return fmt.Sprintf("%s %s checksum %s, parts make %s", ck.Type, ck.Algorithm, ck.Value, got)
	}
	return ""
}

func partDigests(p meta.Part) []digest {
	d := []digest{{name: "part ETag (MD5)", value: p.ETag}}
	if p.ChecksumAlgorithm != "" && p.Checksum != "" {
		d = append(d, digest{name: p.ChecksumAlgorithm + " checksum", alg: checksum.Algorithm(p.ChecksumAlgorithm), value: p.Checksum})
	}
	return d
}
