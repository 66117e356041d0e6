package service

import (
	"cmp"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/sse"
)

// Multipart limits, as S3's.
const (
	MaxParts     = 10000
	MinPartSize  = 5 << 20
	MaxPartSize  = 5 << 30
	MaxMultipart = 5 << 40
)

// Checksum types of multipart objects.
const (
	ChecksumComposite  = "COMPOSITE"
	ChecksumFullObject = "FULL_OBJECT"
)

// newUploadID returns an ID that sorts in creation order: 16 hex digits of
// Unix nanoseconds, then 16 of randomness.
func newUploadID() string {
	var b [8]byte
	rand.Read(b[:])
	return fmt.Sprintf("%016x", time.Now().UnixNano()) + hex.EncodeToString(b[:])
}

// CreateUpload starts a multipart upload. u names bucket, key, headers,
// metadata, the checksum algorithm and type and the object lock (u.Lock)
// the client asked for; the lock is checked now as PutObject checks it. enc is the encryption
// the request asks for (Mode "": the bucket's default); every part is
// sealed under a key derived from the upload's (u.Encryption).
func (s *Service) CreateUpload(ctx context.Context, u meta.Upload, enc sse.Request) (meta.Upload, error) {
	if err := ValidateKey(u.Key); err != nil {
		return meta.Upload{}, err
	}
	if u.Lock != nil {
		b, err := s.meta.GetBucket(ctx, u.Bucket)
		if err != nil {
			return meta.Upload{}, err
		}
		if err := checkLockRequest(b, LockRequestOf(*u.Lock)); err != nil {
			return meta.Upload{}, err
		}
		if !b.ObjectLock { // a legal hold OFF alone: nothing to keep
			u.Lock = nil
		}
	}
	if u.ChecksumType != "" && u.ChecksumAlgorithm == "" {
		return meta.Upload{}, fmt.Errorf("%w: a checksum type needs a checksum algorithm", ErrBadChecksumType)
	}
	alg := checksum.Algorithm(u.ChecksumAlgorithm)
	switch {
	case alg == "":
	case u.ChecksumType == "":
		u.ChecksumType = ChecksumComposite
		if alg == checksum.CRC64NVME {
			u.ChecksumType = ChecksumFullObject
		}
	case u.ChecksumType == ChecksumFullObject && !alg.IsCRC():
		return meta.Upload{}, fmt.Errorf("%w: FULL_OBJECT needs a CRC algorithm, not %s", ErrBadChecksumType, alg)
	case u.ChecksumType == ChecksumComposite && alg == checksum.CRC64NVME:
		return meta.Upload{}, fmt.Errorf("%w: CRC64NVME supports only FULL_OBJECT", ErrBadChecksumType)
	case u.ChecksumType != ChecksumComposite && u.ChecksumType != ChecksumFullObject:
		return meta.Upload{}, fmt.Errorf("%w: %q", ErrBadChecksumType, u.ChecksumType)
	}
	req, err := s.encryptionFor(ctx, u.Bucket, enc)
	if err != nil {
		return meta.Upload{}, err
	}
	if u.Encryption, _, err = s.keys.NewKey(ctx, req, u.Bucket, u.Key); err != nil {
		return meta.Upload{}, err
	}
	u.UploadID, u.Initiated = newUploadID(), meta.Now()
	return u, s.meta.CreateUpload(ctx, u)
}

// partAlgorithm is the checksum every part of u carries.
func partAlgorithm(u meta.Upload) checksum.Algorithm {
	if u.ChecksumAlgorithm == "" {
		return DefaultChecksum
	}
	return checksum.Algorithm(u.ChecksumAlgorithm)
}

// PartInput describes an UploadPart.
type PartInput struct {
	Bucket, Key, UploadID string
	Number                int
	Body                  io.Reader
	Size                  int64
	ContentMD5            []byte
	Checksums             ChecksumRequest // Algorithm is ignored: the upload's applies
	// Integrity says the body came with Content-MD5 or a checksum, which
	// a part of an object to be locked needs (uploadLocks).
	Integrity bool
	// CustomerKey is the SSE-C key (the upload's), nil for none.
	CustomerKey []byte
}

// UploadPart streams a part into its own durable blob and records it,
// replacing an earlier part with the same number.
func (s *Service) UploadPart(ctx context.Context, in PartInput) (meta.Part, error) {
	if in.Number < 1 || in.Number > MaxParts {
		return meta.Part{}, ErrInvalidPartNumber
	}
	if in.Size > MaxPartSize {
		return meta.Part{}, ErrEntityTooLarge
	}
	u, err := s.meta.GetUpload(ctx, in.Bucket, in.Key, in.UploadID)
	if err != nil {
		return meta.Part{}, err
	}
	if !in.Integrity {
		if locks, err := s.uploadLocks(ctx, u); err != nil || locks {
			return meta.Part{}, cmp.Or(err, ErrLockPartNeedsIntegrity)
		}
	}
	seal, err := s.partSeal(ctx, u, in.Number, in.CustomerKey)
	if err != nil {
		return meta.Part{}, err
	}
	ck := in.Checksums
	ck.Algorithm = partAlgorithm(u)
	wb, err := s.writeBlob(ctx, in.Body, in.Size, MaxPartSize, in.ContentMD5, ck, seal)
	if err != nil {
		return meta.Part{}, err
	}
	return s.recordPart(ctx, u, in.Number, wb, seal)
}

// partSeal is the key part number n of upload u is sealed under: derived
// from the upload's data key (sse.PartKey), opened with customerKey (the
// SSE-C key, which must be the upload's); none for an unencrypted upload,
// which refuses a customer key.
func (s *Service) partSeal(ctx context.Context, u meta.Upload, n int, customerKey []byte) (sealKey, error) {
	if !u.Encryption.Encrypted() {
		return sealKey{}, sse.CheckCustomerKey(u.Encryption, customerKey)
	}
	dk, err := s.keys.Open(ctx, u.Encryption, u.Bucket, u.Key, customerKey)
	if errors.Is(err, kms.ErrSSECWrongKey) { // a part, not a read: S3 answers 400
		err = kms.ErrSSECPartKey
	}
	if err != nil {
		return sealKey{}, err
	}
	return sealKey{key: sse.PartKey(dk, n), part: n}, nil
}

// uploadLocks reports whether u's object will be locked: u has a lock of
// its own or its bucket a default retention. As S3 does, each part of
// such an upload must come with Content-MD5 or a checksum.
func (s *Service) uploadLocks(ctx context.Context, u meta.Upload) (bool, error) {
	if u.Lock != nil {
		return true, nil
	}
	b, err := s.meta.GetBucket(ctx, u.Bucket)
	if err != nil || !b.ObjectLock {
		return false, err
	}
	c, err := s.lockDefaults(ctx, u.Bucket)
	return c.Mode != "", err
}

// recordPart records wb as part number of upload u, sealed under seal.
func (s *Service) recordPart(ctx context.Context, u meta.Upload, number int, wb writtenData, seal sealKey) (meta.Part, error) {
	p := meta.Part{
		Number: number, BlobID: wb.id, Size: wb.size, ETag: sse.ETag(u.Encryption, seal.key, wb.md5),
		LastModified: meta.Now(), ChecksumAlgorithm: string(wb.alg), Checksum: checksum.Encode(wb.sum),
	}
	cctx, cancel := s.commitContext(ctx, wb)
	defer cancel()
	err := cctx.Err() // a store may not look before it commits
	var freed []string
	if err == nil {
		freed, err = s.meta.PutPart(cctx, u.Bucket, u.Key, u.UploadID, p)
	}
	if err != nil {
		s.freeBlobs(ctx, []string{wb.id})
		return meta.Part{}, err
	}
	s.freeBlobs(ctx, freed)
	p.Encryption = u.Encryption
	return p, nil
}

// PartCopyInput describes an UploadPartCopy.
type PartCopyInput struct {
	Bucket, Key, UploadID         string
	Number                        int
	SrcBucket, SrcKey, SrcVersion string
	// HasRange selects bytes [First, Last] of the source.
	HasRange    bool
	First, Last int64
	CheckSource func(meta.Object) error
	// Throttle, when set, wraps the n copied bytes on their way to the
	// part (the data path's scheduler, s3api).
	Throttle Throttle
	// SrcCustomerKey is the source's SSE-C key, CustomerKey the upload's;
	// nil for none.
	SrcCustomerKey, CustomerKey []byte
}

// ErrInvalidCopyRange reports a copy-source range outside the source.
var ErrInvalidCopyRange = fmt.Errorf("the x-amz-copy-source-range value is not valid for the source object")

// UploadPartCopy copies a source object (or a byte range of it) into a part.
func (s *Service) UploadPartCopy(ctx context.Context, in PartCopyInput) (meta.Part, meta.Object, error) {
	if in.Number < 1 || in.Number > MaxParts {
		return meta.Part{}, meta.Object{}, ErrInvalidPartNumber
	}
	u, err := s.meta.GetUpload(ctx, in.Bucket, in.Key, in.UploadID)
	if err != nil {
		return meta.Part{}, meta.Object{}, err
	}
	seal, err := s.partSeal(ctx, u, in.Number, in.CustomerKey)
	if err != nil {
		return meta.Part{}, meta.Object{}, err
	}
	src, r, err := s.OpenObject(ctx, in.SrcBucket, in.SrcKey, in.SrcVersion, in.SrcCustomerKey)
	if err != nil {
		return meta.Part{}, meta.Object{}, err
	}
	defer r.Close()
	if in.CheckSource != nil {
		if err := in.CheckSource(src); err != nil {
			return meta.Part{}, meta.Object{}, err
		}
	}
	off, n := int64(0), src.Size
	if in.HasRange {
		if in.First < 0 || in.Last < in.First || in.Last >= src.Size {
			return meta.Part{}, meta.Object{}, ErrInvalidCopyRange
		}
		off, n = in.First, in.Last-in.First+1
	}
	if n > MaxPartSize {
		return meta.Part{}, meta.Object{}, ErrEntityTooLarge
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := r.CopyRange(pw, off, n)
		pw.CloseWithError(err)
	}()
	body := io.Reader(pr)
	if in.Throttle != nil {
		body = in.Throttle(pr, n)
	}
	wb, err := s.writeBlob(ctx, body, n, MaxPartSize, nil, ChecksumRequest{Algorithm: partAlgorithm(u)}, seal)
	pr.CloseWithError(io.ErrClosedPipe)
	if err != nil {
		return meta.Part{}, meta.Object{}, err
	}
	p, err := s.recordPart(ctx, u, in.Number, wb, seal)
	return p, src, err
}

// CompletedPart is one entry of a CompleteMultipartUpload request.
type CompletedPart struct {
	Number   int
	ETag     string // unquoted
	Checksum string // the client's base64 part checksum, "" when not sent
}

// CompleteInput describes a CompleteMultipartUpload.
type CompleteInput struct {
	Bucket, Key, UploadID string
	Parts                 []CompletedPart
	Cond                  meta.Condition
	// Checksum is the client's whole-object value for the upload's
	// algorithm (FULL_OBJECT: base64; COMPOSITE: base64 + "-N"), "" if none.
	Checksum string
	// ChecksumType, when set (x-amz-checksum-type), must be the upload's.
	ChecksumType string
	// ObjectSize, when not negative (x-amz-mp-object-size), must be the
	// completed object's size.
	ObjectSize int64
}

// ErrObjectSizeMismatch: x-amz-mp-object-size is not the size of the
// parts named.
var ErrObjectSizeMismatch = errors.New("the object size given does not match the parts' total")

// ErrChecksumTypeMismatch: x-amz-checksum-type on a completion is not the
// type the upload was created with.
var ErrChecksumTypeMismatch = errors.New("the checksum type given does not match the upload's")

// CompleteUpload assembles the object from its parts without copying any
// byte: the object's metadata names the part blobs in order.
func (s *Service) CompleteUpload(ctx context.Context, in CompleteInput) (meta.Object, error) {
	if len(in.Parts) == 0 {
		return meta.Object{}, ErrNoParts
	}
	if o, _, held := s.replicaHeld(ctx, in.Bucket, in.Key); held { // sent again: the upload is not needed
		return o, s.AbortUpload(ctx, in.Bucket, in.Key, in.UploadID, time.Time{})
	}
	u, err := s.meta.GetUpload(ctx, in.Bucket, in.Key, in.UploadID)
	if errors.Is(err, meta.ErrUploadNotFound) {
		return s.completedBefore(ctx, in, err)
	}
	if err != nil {
		return meta.Object{}, err
	}
	if in.ChecksumType != "" && in.ChecksumType != uploadChecksumType(u) {
		return meta.Object{}, ErrChecksumTypeMismatch
	}
	have, err := s.allParts(ctx, u)
	if errors.Is(err, meta.ErrUploadNotFound) { // completed since GetUpload
		return s.completedBefore(ctx, in, err)
	}
	if err != nil {
		return meta.Object{}, err
	}
	chosen, err := choose(have, in.Parts)
	if err != nil {
		return meta.Object{}, err
	}
	b, err := s.meta.GetBucket(ctx, in.Bucket)
	if err != nil {
		return meta.Object{}, err
	}
	o := meta.Object{
		Bucket: u.Bucket, Key: u.Key, UploadID: u.UploadID,
		LastModified: meta.Now(), StorageClass: u.StorageClass, Owner: u.Owner,
		Headers: u.Headers, UserMeta: u.UserMeta, Tags: u.Tags, ACL: u.ACL, Parts: chosen, PartsCount: len(chosen),
		Encryption: u.Encryption,
	}
	// The lock CreateMultipartUpload was given, checked then (a retention
	// that has ended since locks nothing more), else the bucket's default
	// retention; set in the transaction that creates the version.
	var l meta.ObjectLock
	if u.Lock != nil {
		l = *u.Lock
	}
	if o.Lock, err = s.versionLock(ctx, b, l); err != nil {
		return meta.Object{}, err
	}
	md5s := md5.New()
	for _, p := range chosen {
		o.Size += p.Size
		b, _ := hex.DecodeString(p.ETag)
		md5s.Write(b)
	}
	if o.Size > MaxMultipart {
		return meta.Object{}, ErrEntityTooLarge
	}
	if in.ObjectSize >= 0 && in.ObjectSize != o.Size {
		return meta.Object{}, fmt.Errorf("%w: %d given, the parts make %d bytes", ErrObjectSizeMismatch, in.ObjectSize, o.Size)
	}
	o.ETag = hex.EncodeToString(md5s.Sum(nil)) + "-" + strconv.Itoa(len(chosen))
	if o.Checksum, err = objectChecksum(u, chosen); err != nil {
		return meta.Object{}, err
	}
	if in.Checksum != "" && in.Checksum != o.Checksum.Value {
		return meta.Object{}, fmt.Errorf("%w: whole-object %s checksum %s does not match %s",
			ErrBadDigest, o.Checksum.Algorithm, in.Checksum, o.Checksum.Value)
	}
	task, owed := s.owed(ctx, o.Bucket, o.Key, o.Tags, false)
	o.Replication = replicationStatus(ctx, owed)
	var freed []string
	err = s.underVersioning(ctx, b, in.Cond, func(b meta.Bucket, cond meta.Condition) (err error) {
		if o.VersionID, err = replicaVersion(ctx, b); err != nil {
			return err
		}
		freed, err = s.meta.CompleteUpload(ctx, o, cond)
		return err
	})
	if errors.Is(err, meta.ErrUploadNotFound) { // a concurrent completion won
		return s.completedBefore(ctx, in, err)
	}
	if err != nil {
		return meta.Object{}, err
	}
	s.freeBlobs(ctx, freed)
	if owed {
		s.replicate(ctx, task, o.VersionID, o.Size)
	}
	s.emit(ctx, notify.ObjectCreatedCompleteMultipartUpload, o)
	return o, nil
}

// completedBefore answers a completion whose upload is gone. SDKs retry a
// CompleteMultipartUpload whose response was lost, and S3 answers the
// retry with the first answer while the key's object is still the one the
// upload made. The object itself is the record of that: it names its
// upload (meta.Object.UploadID) and its parts, so JOG remembers a
// completed upload exactly as long as its object is the latest version of
// the key — no more space, and no longer than the answer is true. The retry
// must name the same parts (numbers and ETags) and, if it gives one, the
// same whole-object checksum; else the upload is reported missing (notFound).
func (s *Service) completedBefore(ctx context.Context, in CompleteInput, notFound error) (meta.Object, error) {
	o, err := s.meta.GetObject(ctx, in.Bucket, in.Key, "")
	if err != nil || o.UploadID != in.UploadID {
		return meta.Object{}, notFound
	}
	parts, err := s.meta.ObjectParts(ctx, o.UploadID)
	if err != nil {
		return meta.Object{}, err
	}
	if len(parts) != len(in.Parts) {
		return meta.Object{}, notFound
	}
	for i, p := range parts {
		if in.Parts[i].Number != p.Number || in.Parts[i].ETag != p.ETag {
			return meta.Object{}, notFound
		}
	}
	if (in.Checksum != "" && in.Checksum != o.Checksum.Value) || (in.ObjectSize >= 0 && in.ObjectSize != o.Size) {
		return meta.Object{}, notFound
	}
	return o, nil
}

// uploadChecksumType is the checksum type an upload's object gets.
func uploadChecksumType(u meta.Upload) string {
	if u.ChecksumType == "" {
		return ChecksumFullObject
	}
	return u.ChecksumType
}

// allParts lists every part of an upload.
func (s *Service) allParts(ctx context.Context, u meta.Upload) ([]meta.Part, error) {
	var all []meta.Part
	after := 0
	for {
		parts, more, err := s.meta.ListParts(ctx, u.Bucket, u.Key, u.UploadID, after, 1000)
		if err != nil {
			return nil, err
		}
		all = append(all, parts...)
		if !more || len(parts) == 0 {
			return all, nil
		}
		after = parts[len(parts)-1].Number
	}
}

// choose validates a completion's part list against the uploaded parts.
func choose(have []meta.Part, want []CompletedPart) ([]meta.Part, error) {
	byNumber := make(map[int]meta.Part, len(have))
	for _, p := range have {
		byNumber[p.Number] = p
	}
	chosen := make([]meta.Part, 0, len(want))
	for i, w := range want {
		if i > 0 && w.Number <= want[i-1].Number {
			return nil, ErrInvalidPartOrder
		}
		p, ok := byNumber[w.Number]
		if !ok || p.ETag != w.ETag || (w.Checksum != "" && w.Checksum != p.Checksum) {
			return nil, fmt.Errorf("%w: part %d", ErrInvalidPart, w.Number)
		}
		chosen = append(chosen, p)
	}
	for _, p := range chosen[:len(chosen)-1] {
		if p.Size < MinPartSize {
			return nil, fmt.Errorf("%w: part %d is %d bytes", ErrEntityTooSmall, p.Number, p.Size)
		}
	}
	return chosen, nil
}

// objectChecksum derives a multipart object's checksum from its parts':
// COMPOSITE is the checksum of the part checksums with a "-N" suffix;
// FULL_OBJECT combines the part CRCs into the CRC of the whole.
func objectChecksum(u meta.Upload, parts []meta.Part) (meta.Checksum, error) {
	alg := partAlgorithm(u)
	typ := uploadChecksumType(u) // the default CRC64NVME combines
	sums := make([][]byte, len(parts))
	for i, p := range parts {
		b, err := alg.Decode(p.Checksum)
		if err != nil {
			return meta.Checksum{}, fmt.Errorf("part %d checksum: %w", p.Number, err)
		}
		sums[i] = b
	}
	if typ == ChecksumComposite {
		v := checksum.Encode(checksum.Composite(alg, sums)) + "-" + strconv.Itoa(len(parts))
		return meta.Checksum{Algorithm: string(alg), Value: v, Type: typ}, nil
	}
	acc := sums[0]
	for i := 1; i < len(sums); i++ {
		var err error
		if acc, err = checksum.CombineCRC(alg, acc, sums[i], parts[i].Size); err != nil {
			return meta.Checksum{}, err
		}
	}
	return meta.Checksum{Algorithm: string(alg), Value: checksum.Encode(acc), Type: typ}, nil
}

// AbortUpload ends an upload and deletes its parts. initiated, when not
// zero, must be the upload's initiation time to the second
// (x-amz-if-match-initiated-time): else ErrPreconditionFailed and nothing
// changes; with it, a missing upload is no error, as S3 documents. An upload's initiation
// time never changes, so checking it before the abort is as good as inside.
func (s *Service) AbortUpload(ctx context.Context, bucket, key, uploadID string, initiated time.Time) error {
	if !initiated.IsZero() {
		u, err := s.meta.GetUpload(ctx, bucket, key, uploadID)
		if errors.Is(err, meta.ErrUploadNotFound) {
			return nil // as S3 documents: 204 when the upload does not exist
		}
		if err != nil {
			return err
		}
		if !u.Initiated.Truncate(time.Second).Equal(initiated.Truncate(time.Second)) {
			return meta.ErrPreconditionFailed
		}
	}
	freed, err := s.meta.AbortUpload(ctx, bucket, key, uploadID)
	if err != nil {
		return err
	}
	s.freeBlobs(ctx, freed)
	return nil
}
