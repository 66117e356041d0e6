package service

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jogstore/jog/internal/meta"
)

// MaxObjectSize is the largest object a single PUT may store (5 GiB).
const MaxObjectSize = 5 << 30

// PutInput describes an object write.
type PutInput struct {
	Bucket, Key string
	Body        io.Reader
	// Size is the declared length of Body, or -1 when unknown. A body that
	// ends early fails with ErrIncompleteBody; extra bytes are not read.
	Size       int64
	ContentMD5 []byte // decoded Content-MD5, nil when absent
	Headers    meta.ContentHeaders
	UserMeta   map[string]string
	Cond       meta.Condition
	Owner      string
	// StorageClass is stored and listed; every class is served alike.
	StorageClass string
}

var copyBufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// PutObject streams the body into a new blob, verifying Content-MD5 on the
// way, makes the blob durable, then commits the metadata. If anything fails
// — a short body, a digest or signature mismatch, a failed condition — the
// blob is discarded and the previous object stays as it was.
func (s *Service) PutObject(ctx context.Context, in PutInput) (meta.Object, error) {
	if err := ValidateKey(in.Key); err != nil {
		return meta.Object{}, err
	}
	if in.Size > MaxObjectSize {
		return meta.Object{}, ErrEntityTooLarge
	}
	if _, err := s.meta.GetBucket(ctx, in.Bucket); err != nil {
		return meta.Object{}, err
	}
	blobID, size, sum, err := s.writeBlob(ctx, in.Body, in.Size)
	if err != nil {
		return meta.Object{}, err
	}
	discard := func() {
		if blobID != "" {
			s.freeBlobs(ctx, []string{blobID})
		}
	}
	if in.ContentMD5 != nil && !bytes.Equal(in.ContentMD5, sum) {
		discard()
		return meta.Object{}, ErrBadDigest
	}
	o := meta.Object{
		Bucket: in.Bucket, Key: in.Key, VersionID: meta.NullVersion,
		BlobID: blobID, Size: size, ETag: hex.EncodeToString(sum),
		LastModified: meta.Now(), StorageClass: in.StorageClass, Owner: in.Owner,
		Headers: in.Headers, UserMeta: in.UserMeta,
	}
	freed, err := s.meta.PutObject(ctx, o, in.Cond)
	if err != nil {
		discard()
		return meta.Object{}, err
	}
	s.freeBlobs(ctx, freed)
	return o, nil
}

// writeBlob copies body into a new durable blob and returns its ID ("" for
// an empty body), size and MD5.
func (s *Service) writeBlob(ctx context.Context, body io.Reader, size int64) (string, int64, []byte, error) {
	if size > 0 || size < 0 {
		if size > 0 {
			body = io.LimitReader(body, size)
		} else {
			body = io.LimitReader(body, MaxObjectSize+1)
		}
	} else {
		body = bytes.NewReader(nil)
	}
	w, err := s.blobs.Create(ctx)
	if err != nil {
		return "", 0, nil, fmt.Errorf("create blob: %w", err)
	}
	h := md5.New()
	bufp := copyBufPool.Get().(*[]byte)
	n, err := io.CopyBuffer(io.MultiWriter(w, h), body, *bufp)
	copyBufPool.Put(bufp)
	if err == nil && size >= 0 && n < size {
		err = ErrIncompleteBody
	}
	if err == nil && size < 0 && n > MaxObjectSize {
		err = ErrEntityTooLarge
	}
	if err == nil && n == 0 {
		w.Abort()
		return "", 0, h.Sum(nil), nil
	}
	if err != nil {
		w.Abort()
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: %v", ErrIncompleteBody, err)
		}
		return "", 0, nil, err
	}
	id, err := w.Commit()
	if err != nil {
		return "", 0, nil, err
	}
	return id, n, h.Sum(nil), nil
}
