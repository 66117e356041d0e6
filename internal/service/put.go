package service

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
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
	Tags       string // x-amz-tagging form, "" for none
	ACL        string // acl.Encode's form, "" for the private ACL
	Cond       meta.Condition
	Owner      string
	// StorageClass is stored and listed; every class is served alike.
	StorageClass string
	// Lock is the object lock the request asks for (x-amz-object-lock-*);
	// Integrity says the body came with Content-MD5 or a checksum, which
	// a version under object lock requires (a copy passes true).
	Lock      LockRequest
	Integrity bool
	// SSE is the encryption the request asks for (x-amz-server-side-
	// encryption*, SSE-C headers); Mode "" gets the bucket's default.
	SSE sse.Request
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

// PutObject streams the body into a new blob (or, up to the inline size,
// into memory to be stored with the metadata), verifying Content-MD5 and
// checksums on the way, makes the data durable, then commits the metadata.
// If anything fails — a short body, a digest or signature mismatch, a failed
// condition — the new data is discarded and the previous object stays as it was.
// Once committed, it emits ObjectCreated:Put (:Post for a browser-based
// upload, notify.Request.Post).
func (s *Service) PutObject(ctx context.Context, in PutInput) (meta.Object, error) {
	o, err := s.putObject(ctx, in)
	if err == nil {
		s.emit(ctx, createdBy(ctx), o)
	}
	return o, err
}

// putObject is PutObject without its event (CopyObject emits its own).
func (s *Service) putObject(ctx context.Context, in PutInput) (meta.Object, error) {
	if err := ValidateKey(in.Key); err != nil {
		return meta.Object{}, err
	}
	if in.Size > MaxObjectSize {
		return meta.Object{}, ErrEntityTooLarge
	}
	if o, _, held := s.replicaHeld(ctx, in.Bucket, in.Key); held {
		return o, nil // sent again: the version is here as it was
	}
	b, hinted, err := s.bucketForWrite(ctx, in.Bucket)
	if err != nil {
		return meta.Object{}, err
	}
	lock, err := s.newVersionLock(ctx, b, in.Lock, in.Integrity)
	if err != nil && hinted { // refused on a hint: decide on the bucket itself
		if b, err = s.meta.GetBucket(ctx, in.Bucket); err != nil {
			return meta.Object{}, err
		}
		lock, err = s.newVersionLock(ctx, b, in.Lock, in.Integrity)
	}
	if err != nil {
		return meta.Object{}, err
	}
	req, err := s.encryptionFor(ctx, in.Bucket, in.SSE)
	if err != nil {
		return meta.Object{}, err
	}
	enc, dk, err := s.keys.NewKey(ctx, req, in.Bucket, in.Key)
	if err != nil {
		return meta.Object{}, err
	}
	wb, err := s.writeData(ctx, in.Body, in.Size, MaxObjectSize, in.ContentMD5, in.Checksums, s.inlineMax, sealKey{key: dk})
	if err != nil {
		return meta.Object{}, err
	}
	defer s.release(wb)
	o := meta.Object{
		Bucket: in.Bucket, Key: in.Key,
		BlobID: wb.id, Inline: wb.inline, Size: wb.size, ETag: sse.ETag(enc, dk, wb.md5), Encryption: enc,
		LastModified: meta.Now(), StorageClass: in.StorageClass, Owner: in.Owner,
		Headers: in.Headers, UserMeta: in.UserMeta, Tags: in.Tags, ACL: in.ACL,
		Checksum: meta.Checksum{Algorithm: string(wb.alg), Value: checksum.Encode(wb.sum), Type: "FULL_OBJECT"},
		Lock:     lock,
	}
	task, owed := s.owed(ctx, in.Bucket, in.Key, in.Tags, false)
	o.Replication = replicationStatus(ctx, owed)
	var freed []string
	cctx, cancel := s.commitContext(ctx, wb)
	defer cancel()
	err = s.underVersioning(cctx, b, in.Cond, func(cur meta.Bucket, cond meta.Condition) (err error) {
		if cur.ObjectLock != b.ObjectLock { // the bucket read anew: its default retention too
			if o.Lock, err = s.newVersionLock(ctx, cur, in.Lock, in.Integrity); err != nil {
				return err
			}
		}
		b = cur
		if o.VersionID, err = replicaVersion(ctx, cur); err != nil {
			return err
		}
		if err := cctx.Err(); err != nil { // a store may not look before it commits
			return err
		}
		freed, err = s.meta.PutObject(cctx, o, cond)
		return err
	})
	if err != nil {
		s.freeBlobs(ctx, []string{wb.id})
		return meta.Object{}, err
	}
	s.freeBlobs(ctx, freed)
	if owed {
		s.replicate(ctx, task, o.VersionID, o.Size)
	}
	// The state the commit checked: the answer's headers need no lookup.
	o.InBucket = meta.BucketState{Known: true, Versioning: b.Versioning, ObjectLock: b.ObjectLock}
	o.Inline = nil // pooled memory, released on return
	return o, nil
}

// writtenData is new object or part data and what was computed while
// writing it: a durable blob, or (inline) bytes in a pooled buffer that
// release returns.
type writtenData struct {
	id     string // blob ID; "" for inline data or an empty body
	inline []byte // data to store with the metadata, or nil
	size   int64
	md5    []byte
	alg    checksum.Algorithm
	sum    []byte    // checksum of alg
	buf    *[]byte   // pooled buffer of inline, for release
	at     time.Time // when the blob's commit started (a blob only)
}

// commitContext bounds the metadata commit that refers to blob wd
// (Options.CommitWithin): past the bound the write fails rather than
// commit, and the blob is freed. Where gateways share the data dir, the
// orphan sweep of another gateway may remove a blob no metadata refers to
// once it is blob.Grace old; a commit started within CommitWithin
// (blob.Grace/2) of the blob's has half an hour left to finish.
func (s *Service) commitContext(ctx context.Context, wd writtenData) (context.Context, context.CancelFunc) {
	if s.commitWithin <= 0 || wd.id == "" {
		return ctx, func() {}
	}
	return context.WithDeadline(ctx, wd.at.Add(s.commitWithin))
}

// release returns wd's inline buffer to its pool.
func (s *Service) release(wd writtenData) {
	if wd.buf != nil {
		*wd.buf = (*wd.buf)[:0]
		s.inlineBufs.Put(wd.buf)
	}
}

// writeBlob is writeData for data that must go to a blob (parts).
func (s *Service) writeBlob(ctx context.Context, body io.Reader, size, max int64, wantMD5 []byte, ck ChecksumRequest, seal sealKey) (writtenData, error) {
	return s.writeData(ctx, body, size, max, wantMD5, ck, 0, seal)
}

// sealKey is the key new data is sealed under (sse.Seal) and its part
// number (0 for a whole object); the zero value stores the data as sent.
type sealKey struct {
	key  []byte
	part int
}

// writeData copies body into a new durable blob, or keeps it in memory
// when it ends within inlineMax bytes, checking its length, Content-MD5
// and checksums. With seal.key it stores the body sealed: the checks and
// the size are the plaintext's, the inline limit the sealed bytes'. On any
// error nothing is left behind.
func (s *Service) writeData(ctx context.Context, body io.Reader, size, max int64, wantMD5 []byte, ck ChecksumRequest, inlineMax int, seal sealKey) (writtenData, error) {
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
	// instead of sending the body). Even an empty or inline object's row
	// needs room.
	stored := size // bytes to store, -1 when unknown
	if seal.key != nil && size >= 0 {
		var err error
		if stored, err = sse.StoredSize(size); err != nil {
			return writtenData{}, err
		}
	}
	if sc, ok := s.blobs.(blob.SpaceChecker); ok {
		need := stored
		if need < 0 {
			need = 0
		}
		if err := sc.CheckSpace(need); err != nil {
			return writtenData{}, fmt.Errorf("create blob: %w", err)
		}
	}
	sk := &sink{s: s, ctx: ctx}
	if inlineMax > 0 && stored <= int64(inlineMax) { // unknown (-1) or small
		sk.buf = s.inlineBufs.Get().(*[]byte)
	} else {
		// Bound for a blob: create it before the first body byte arrives.
		w, err := s.blobs.Create(ctx, stored)
		if err != nil {
			return writtenData{}, fmt.Errorf("create blob: %w", err)
		}
		sk.w = w
	}
	h := md5.New()
	var n int64
	var err error
	if seal.key == nil {
		bufp := copyBufPool.Get().(*[]byte)
		n, err = io.CopyBuffer(io.MultiWriter(sk, h), cr, *bufp)
		copyBufPool.Put(bufp)
	} else {
		n, err = copySealed(sk, h, cr, seal)
	}
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
	wd := writtenData{size: n, md5: h.Sum(nil), alg: alg, sum: cr.Sum(alg), buf: sk.buf}
	if err != nil {
		sk.abort()
		s.release(wd)
		return writtenData{}, err
	}
	if sk.w == nil || n == 0 { // inline, or empty
		sk.abort()
		if n > 0 {
			wd.inline = *sk.buf
		}
		return wd, nil
	}
	s.release(wd)
	wd.buf = nil
	wd.at = time.Now() // no later than the blob's ModTime
	if wd.id, err = sk.w.Commit(); err != nil {
		return writtenData{}, err
	}
	return wd, nil
}

// copySealed copies src, sealed under seal, to dst; h gets the plaintext.
// It returns how many plaintext bytes it read.
func copySealed(dst io.Writer, h hash.Hash, src io.Reader, seal sealKey) (int64, error) {
	pr := &plainReader{r: src, h: h}
	sr, err := sse.Seal(pr, seal.key, seal.part)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(dst, sr) // sr is an io.WriterTo: no buffer of ours
	return pr.n, err
}

// plainReader counts and hashes a body's plaintext on its way to be
// sealed.
type plainReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (r *plainReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	return n, err
}

// sink receives new data: into buf while it fits (buf nil: never), then,
// from the first byte that does not, into a new blob.
type sink struct {
	s   *Service
	ctx context.Context
	buf *[]byte
	w   blob.Writer
}

func (k *sink) Write(p []byte) (int, error) {
	if k.w == nil {
		if k.buf != nil && len(*k.buf)+len(p) <= cap(*k.buf) {
			*k.buf = append(*k.buf, p...)
			return len(p), nil
		}
		w, err := k.s.blobs.Create(k.ctx, -1) // spilled: its size is not known
		if err != nil {
			return 0, fmt.Errorf("create blob: %w", err)
		}
		k.w = w
		if k.buf != nil && len(*k.buf) > 0 {
			if _, err := w.Write(*k.buf); err != nil {
				return 0, err
			}
			*k.buf = (*k.buf)[:0]
		}
	}
	return k.w.Write(p)
}

func (k *sink) abort() {
	if k.w != nil {
		_ = k.w.Abort()
	}
}
