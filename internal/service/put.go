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

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
)

// MaxObjectSize is the largest object a single PUT may store (5 GiB).
const MaxObjectSize = 5 << 30

// DefaultChecksum is computed and stored for data whose client named no
// checksum algorithm, as S3 does since 2025.
const DefaultChecksum = checksum.CRC64NVME

// PutInput describes an object write.
type PutInput struct {
	Bucket, Key string
	Body        io.Reader
	// Size is the declared length of Body, or -1 when unknown. A body that
	// ends early fails with ErrIncompleteBody; extra bytes are not read.
	Size       int64
	ContentMD5 []byte // decoded Content-MD5, nil when absent
	Checksums  ChecksumRequest
	Headers    meta.ContentHeaders
	UserMeta   map[string]string
	Cond       meta.Condition
	Owner      string
	// StorageClass is stored and listed; every class is served alike.
	StorageClass string
}

// ChecksumRequest says which flexible checksums to compute over a body and
// which values the client sent for them.
type ChecksumRequest struct {
	// Algorithm is stored with the data; "" means DefaultChecksum.
	Algorithm checksum.Algorithm
	// Verify lists further algorithms whose values the client sent.
	Verify []checksum.Algorithm
	// Expected returns the client's base64 value for an algorithm ("" for
	// none). It is called when the body ends, so values from aws-chunked
	// trailers work. May be nil.
	Expected func(checksum.Algorithm) string
}

func (c ChecksumRequest) algorithm() checksum.Algorithm {
	if c.Algorithm == "" {
		return DefaultChecksum
	}
	return c.Algorithm
}

var copyBufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// PutObject streams the body into a new blob, verifying Content-MD5 and
// checksums on the way, makes the blob durable, then commits the metadata.
// If anything fails — a short body, a digest or signature mismatch, a failed
// condition — the blob is discarded and the previous object stays as it was.
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
	wb, err := s.writeBlob(ctx, in.Body, in.Size, MaxObjectSize, in.ContentMD5, in.Checksums)
	if err != nil {
		return meta.Object{}, err
	}
	o := meta.Object{
		Bucket: in.Bucket, Key: in.Key, VersionID: meta.NullVersion,
		BlobID: wb.id, Size: wb.size, ETag: hex.EncodeToString(wb.md5),
		LastModified: meta.Now(), StorageClass: in.StorageClass, Owner: in.Owner,
		Headers: in.Headers, UserMeta: in.UserMeta,
		Checksum: meta.Checksum{Algorithm: string(wb.alg), Value: checksum.Encode(wb.sum), Type: "FULL_OBJECT"},
	}
	freed, err := s.meta.PutObject(ctx, o, in.Cond)
	if err != nil {
		s.freeBlobs(ctx, []string{wb.id})
		return meta.Object{}, err
	}
	s.freeBlobs(ctx, freed)
	return o, nil
}

// writtenBlob is a durable blob and what was computed while writing it.
type writtenBlob struct {
	id   string // "" for an empty body
	size int64
	md5  []byte
	alg  checksum.Algorithm
	sum  []byte // checksum of alg
}

// writeBlob copies body into a new durable blob, checking its length,
// Content-MD5 and checksums. On any error nothing is left behind.
func (s *Service) writeBlob(ctx context.Context, body io.Reader, size, max int64, wantMD5 []byte, ck ChecksumRequest) (writtenBlob, error) {
	// Read one byte past the limit: the wrapped readers (payload hash,
	// aws-chunked trailers) verify only when they reach their own EOF, so the
	// body must be read to its end, never cut off at exactly size bytes.
	limit := max
	if size >= 0 {
		limit = size
	}
	body = io.LimitReader(body, limit+1)
	alg := ck.algorithm()
	cr := checksum.NewReader(body, append([]checksum.Algorithm{alg}, ck.Verify...), ck.Expected)
	// A body of known size that cannot fit is refused before its first byte
	// is read (so a client waiting on "Expect: 100-continue" gets the answer
	// instead of sending the body).
	if sc, ok := s.blobs.(interface{ CheckSpace(int64) error }); ok && size > 0 {
		if err := sc.CheckSpace(size); err != nil {
			return writtenBlob{}, fmt.Errorf("create blob: %w", err)
		}
	}
	w, err := s.blobs.Create(ctx)
	if err != nil {
		return writtenBlob{}, fmt.Errorf("create blob: %w", err)
	}
	h := md5.New()
	bufp := copyBufPool.Get().(*[]byte)
	n, err := io.CopyBuffer(io.MultiWriter(w, h), cr, *bufp)
	copyBufPool.Put(bufp)
	switch {
	case err != nil:
		if errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("%w: %v", ErrIncompleteBody, err)
		}
	case size >= 0 && n != size:
		err = ErrIncompleteBody // shorter (or, from a decoder, longer) than declared
	case n > max:
		err = ErrEntityTooLarge
	case wantMD5 != nil && !bytes.Equal(wantMD5, h.Sum(nil)):
		err = ErrBadDigest
	}
	if err != nil {
		w.Abort()
		return writtenBlob{}, err
	}
	wb := writtenBlob{size: n, md5: h.Sum(nil), alg: alg, sum: cr.Sum(alg)}
	if n == 0 {
		w.Abort()
		return wb, nil
	}
	if wb.id, err = w.Commit(); err != nil {
		return writtenBlob{}, err
	}
	return wb, nil
}
