package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/sse/format"
)

// HeadObject returns an object's metadata without opening its data;
// withParts also loads a multipart object's parts (o.Parts), for HEAD with
// partNumber.
func (s *Service) HeadObject(ctx context.Context, bucket, key, versionID string, withParts bool) (meta.Object, error) {
	o, err := s.meta.GetObject(ctx, bucket, key, versionID)
	if err != nil || !withParts || o.UploadID == "" {
		return o, err
	}
	if o.Parts, err = s.meta.ObjectParts(ctx, o.UploadID); err != nil {
		return meta.Object{}, err
	}
	return o, nil
}

// ObjectReader reads one object version's bytes.
type ObjectReader interface {
	io.ReadCloser
	// CopyRange writes bytes [off, off+n) to w. File data goes through
	// io.CopyN from an *os.File, so network writers get sendfile.
	CopyRange(w io.Writer, off, n int64) (int64, error)
}

// maxOpenAttempts bounds the retries of OpenObject when concurrent
// overwrites keep replacing the object under it.
const maxOpenAttempts = 8

// OpenObject returns an object's metadata and a reader of exactly the bytes
// that metadata describes. Blobs are immutable and named by ID: when a
// concurrent overwrite deletes a blob between the metadata read and the
// open, the lookup is repeated, so the reader never mixes versions.
// Multipart objects also get their parts (o.Parts) and pin them until Close.
//
// customerKey is the SSE-C key the request sent (nil for none): an object
// written with one opens only with it (sse.CheckCustomerKey).
func (s *Service) OpenObject(ctx context.Context, bucket, key, versionID string, customerKey []byte) (meta.Object, ObjectReader, error) {
	for attempt := 1; ; attempt++ {
		o, r, err := s.openOnce(ctx, bucket, key, versionID, customerKey)
		if !errors.Is(err, errReplaced) {
			return o, r, err
		}
		if attempt == maxOpenAttempts {
			return meta.Object{}, nil, fmt.Errorf("open %s/%s: replaced %d times while opening", bucket, key, attempt)
		}
	}
}

var errReplaced = errors.New("object replaced while opening")

func (s *Service) openOnce(ctx context.Context, bucket, key, versionID string, customerKey []byte) (meta.Object, ObjectReader, error) {
	o, err := s.meta.GetObject(ctx, bucket, key, versionID)
	if err != nil {
		return meta.Object{}, nil, err
	}
	// The data key of an encrypted object, nil for a plain one; the
	// customer key checked either way (sse.CheckCustomerKey).
	dk, err := s.keys.Open(ctx, o.Encryption, bucket, key, customerKey)
	if err != nil {
		return meta.Object{}, nil, err
	}
	if o.UploadID != "" {
		return s.openParts(ctx, o, dk)
	}
	if len(o.Inline) > 0 && dk == nil {
		return o, newInlineReader(o.Inline), nil
	}
	if len(o.Inline) > 0 {
		return o, s.newSegmentReader(ctx, o, []segment{{inline: o.Inline, size: o.Size, key: dk}}, nil), nil
	}
	if o.BlobID == "" {
		return o, s.newSegmentReader(ctx, o, nil, nil), nil
	}
	// Pinned while open: deleting a packed blob would punch out the bytes
	// still to be read. A blob deleted before the pin fails to open.
	pinned := []string{o.BlobID}
	if !s.pins.pin(pinned) {
		return meta.Object{}, nil, errReplaced
	}
	f, err := s.blobs.Open(ctx, o.BlobID)
	if err != nil {
		s.deleteBlobs(ctx, s.pins.unpin(pinned))
		if errors.Is(err, fs.ErrNotExist) {
			return meta.Object{}, nil, errReplaced
		}
		return meta.Object{}, nil, fmt.Errorf("open blob %s of %s/%s: %w", o.BlobID, bucket, key, err)
	}
	r := s.newSegmentReader(ctx, o, []segment{{blobID: o.BlobID, size: o.Size, key: dk}}, pinned)
	r.cur = f
	return o, r, nil
}

// openParts pins a multipart object's parts, then checks the object is
// still current: a later overwrite's cleanup then waits for the pins.
// Each part of an encrypted object (data key dk) is sealed under its own
// key (sse.PartKey).
func (s *Service) openParts(ctx context.Context, o meta.Object, dk []byte) (meta.Object, ObjectReader, error) {
	parts, err := s.meta.ObjectParts(ctx, o.UploadID)
	if err != nil {
		return meta.Object{}, nil, err
	}
	ids := make([]string, len(parts))
	segs := make([]segment, len(parts))
	for i, p := range parts {
		ids[i], segs[i] = p.BlobID, segment{blobID: p.BlobID, size: p.Size}
		if dk != nil {
			segs[i].key, segs[i].part = sse.PartKey(dk, p.Number), p.Number
		}
	}
	if !s.pins.pin(ids) {
		return meta.Object{}, nil, errReplaced
	}
	again, err := s.meta.GetObject(ctx, o.Bucket, o.Key, o.VersionID)
	if err != nil || again.UploadID != o.UploadID || len(parts) != o.PartsCount {
		s.deleteBlobs(ctx, s.pins.unpin(ids))
		if err != nil && !errors.Is(err, meta.ErrObjectNotFound) {
			return meta.Object{}, nil, err
		}
		return meta.Object{}, nil, errReplaced
	}
	o.Parts = parts
	return o, s.newSegmentReader(ctx, o, segs, ids), nil
}

// segment is one blob of an object's data, or the inline bytes of an
// encrypted object.
type segment struct {
	blobID string
	inline []byte // sealed bytes kept in the metadata store (blobID "")
	size   int64  // plaintext bytes; none are stored for 0
	// key, when set, is the key the segment is sealed under as part
	// (sse.OpenRange); nil: stored as sent.
	key  []byte
	part int
}

// segmentReader reads an object made of consecutive blobs, decrypting
// sealed ones.
type segmentReader struct {
	s      *Service
	ctx    context.Context
	segs   []segment
	pinned []string
	i      int               // segment being read
	cur    io.ReadSeekCloser // open blob of segment i, or nil
	plain  io.Reader         // segment i's plaintext (cur, or cur opened), or nil
	closed bool
	// The object read, for the log of bytes that fail authentication.
	bucket, key, version string
}

func (s *Service) newSegmentReader(ctx context.Context, o meta.Object, segs []segment, pinned []string) *segmentReader {
	return &segmentReader{s: s, ctx: ctx, segs: segs, pinned: pinned, bucket: o.Bucket, key: o.Key, version: o.VersionID}
}

func (r *segmentReader) open(i int) (io.ReadSeekCloser, error) {
	if r.segs[i].inline != nil {
		return inlineFile{bytes.NewReader(r.segs[i].inline)}, nil
	}
	f, err := r.s.blobs.Open(r.ctx, r.segs[i].blobID)
	if err != nil {
		return nil, fmt.Errorf("open part blob %s: %w", r.segs[i].blobID, err)
	}
	return f, nil
}

// start makes r.plain the reader of segment r.i's plaintext.
func (r *segmentReader) start() error {
	if r.cur == nil {
		f, err := r.open(r.i)
		if err != nil {
			return err
		}
		r.cur = f
	}
	seg := r.segs[r.i]
	if seg.key == nil {
		r.plain = r.cur
		return nil
	}
	p, err := sse.OpenRange(r.cur, seg.size, seg.key, seg.part, 0, seg.size)
	if err != nil {
		return r.failed(err)
	}
	r.plain = p
	return nil
}

func (r *segmentReader) Read(p []byte) (int, error) {
	for r.i < len(r.segs) {
		if r.segs[r.i].size == 0 { // nothing stored
			r.i++
			continue
		}
		if r.plain == nil {
			if err := r.start(); err != nil {
				return 0, err
			}
		}
		n, err := r.plain.Read(p)
		if err == io.EOF {
			r.cur.Close()
			r.cur, r.plain, r.i = nil, nil, r.i+1
			if n > 0 {
				return n, nil
			}
			continue
		}
		if err != nil {
			err = r.failed(err)
		}
		return n, err
	}
	return 0, io.EOF
}

// CopyRange implements ObjectReader.
func (r *segmentReader) CopyRange(w io.Writer, off, n int64) (int64, error) {
	var written int64
	for i, seg := range r.segs {
		if n == 0 {
			break
		}
		if off >= seg.size {
			off -= seg.size
			continue
		}
		f := r.cur
		if i != r.i || f == nil {
			var err error
			if f, err = r.open(i); err != nil {
				return written, err
			}
		}
		m, err := copySegment(w, seg, f, off, min(n, seg.size-off))
		written += m
		n -= m
		if f != r.cur {
			f.Close()
		}
		if err != nil {
			return written, r.failed(err)
		}
		off = 0
	}
	return written, nil
}

// failed logs err when it says stored bytes fail authentication: damaged
// on disk, or not what the metadata says (docs/adr/0027).
func (r *segmentReader) failed(err error) error {
	if errors.Is(err, format.ErrNotAuthentic) || errors.Is(err, format.ErrUnknownFormat) {
		r.s.log.Error("stored bytes of an encrypted object fail authentication",
			"bucket", r.bucket, "key", r.key, "version", r.version, "err", err)
	}
	return err
}

func (r *segmentReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	if r.cur != nil {
		r.cur.Close()
	}
	r.s.deleteBlobs(r.ctx, r.s.pins.unpin(r.pinned))
	return nil
}

// copySegment copies plaintext bytes [off, off+n) of seg, read from f, to
// w: sealed bytes are opened (sse.OpenRange), which no sendfile can do.
func copySegment(w io.Writer, seg segment, f io.ReadSeeker, off, n int64) (int64, error) {
	if seg.key == nil {
		return copyFrom(w, f, off, n)
	}
	p, err := sse.OpenRange(f, seg.size, seg.key, seg.part, off, n)
	if err != nil {
		return 0, err
	}
	return io.Copy(w, p)
}

// inlineFile reads an encrypted object's inline bytes as a blob.
type inlineFile struct{ *bytes.Reader }

func (inlineFile) Close() error { return nil }

// copyFrom copies n bytes from offset off of blob reader f to w, handing an
// *os.File to io.CopyN so that network writers can use sendfile.
func copyFrom(w io.Writer, f io.ReadSeeker, off, n int64) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	if fr, ok := f.(blob.FileRanger); ok {
		file, left, err := fr.FileRange()
		if err != nil {
			return 0, err
		}
		return io.CopyN(w, file, min(n, left))
	}
	return io.CopyN(w, f, n)
}

// inlineReader reads an object whose bytes came with its metadata.
type inlineReader struct {
	*bytes.Reader
	data []byte
}

func newInlineReader(data []byte) *inlineReader { return &inlineReader{bytes.NewReader(data), data} }

func (r *inlineReader) Close() error { return nil }

// CopyRange implements ObjectReader.
func (r *inlineReader) CopyRange(w io.Writer, off, n int64) (int64, error) {
	if off < 0 || off > int64(len(r.data)) {
		return 0, fmt.Errorf("range start %d outside %d bytes", off, len(r.data))
	}
	end := min(off+n, int64(len(r.data)))
	m, err := w.Write(r.data[off:end])
	return int64(m), err
}
