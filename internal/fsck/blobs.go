package fsck

import (
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/jogstore/jog/internal/checksum"
)

// digest is a value the blob's bytes must hash to: alg "" means an ETag
// (the MD5 in hex, or for encrypted data sse.ETag of it), otherwise a
// flexible checksum in base64. Digests are of the plaintext.
type digest struct {
	name  string
	alg   checksum.Algorithm
	value string
}

// checkBlob checks that blob id exists holding size bytes of data sealed
// as s (their stored size) and, when Deep, that they open and hash to
// want. It returns the problem found, if any (nil when the blob is sound),
// and an error only when checking failed.
func (c *checker) checkBlob(ctx context.Context, id string, size int64, want []digest, s sealing) (*Problem, error) {
	if id == "" {
		if size != 0 {
			return &Problem{Kind: Metadata, Want: size, Detail: fmt.Sprintf("no blob for %d bytes of data", size)}, nil
		}
		if c.opts.Deep && !s.unreadable() {
			return c.verify(nil, 0, want, s), nil
		}
		return nil, nil
	}
	stored, err := s.storedSize(size)
	if err != nil {
		return &Problem{Kind: Metadata, BlobID: id, Want: size, Detail: err.Error()}, nil
	}
	path := c.path(id)
	f, err := c.blobs.Open(ctx, id)
	if errors.Is(err, fs.ErrNotExist) {
		return &Problem{Kind: Missing, BlobID: id, Path: path, Want: size, Detail: "blob file is missing"}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	if n != stored {
		word := "short"
		if n > stored {
			word = "long"
		}
		return &Problem{Kind: Size, BlobID: id, Path: path, Size: n, Want: stored,
			Detail: fmt.Sprintf("blob is %s: %d bytes, metadata says %d", word, n, stored)}, nil
	}
	c.sum.BytesChecked += size
	if !c.opts.Deep || s.unreadable() {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	p := c.open(f, size, want, s)
	if p != nil {
		if p.Kind == "" { // a read error
			return nil, fmt.Errorf("read blob %s: %s", id, p.Detail)
		}
		p.BlobID, p.Path, p.Size = id, path, size
	}
	return p, ctx.Err()
}

// open verifies the data src holds (size bytes of plaintext, sealed as
// s) against want.
func (c *checker) open(src io.ReadSeeker, size int64, want []digest, s sealing) *Problem {
	r, err := s.plaintext(src, size)
	if err != nil {
		return readProblem(err)
	}
	return c.verify(r, size, want, s)
}

// readProblem is the problem of a failed read: sealed bytes that do not
// open are corrupt; a Problem of empty Kind reports a read error.
func readProblem(err error) *Problem {
	if sealError(err) {
		return &Problem{Kind: Corrupt, Detail: fmt.Sprintf("encrypted data does not authenticate: %v", err)}
	}
	return &Problem{Detail: err.Error()}
}

// verify hashes r (size bytes of plaintext) and compares with want, an
// ETag as s makes it. A Problem of empty Kind reports a read error.
func (c *checker) verify(r io.Reader, size int64, want []digest, s sealing) *Problem {
	md5h := md5.New()
	ws := []io.Writer{md5h}
	sums := map[checksum.Algorithm][]byte{}
	hashes := map[checksum.Algorithm]interface{ Sum([]byte) []byte }{}
	for _, d := range want {
		if d.alg == "" || hashes[d.alg] != nil {
			continue
		}
		if d.alg.Size() == 0 {
			return &Problem{Kind: Metadata, Detail: fmt.Sprintf("unknown checksum algorithm %q", d.alg)}
		}
		h := d.alg.New()
		hashes[d.alg] = h
		ws = append(ws, h)
	}
	if r != nil {
		n, err := io.CopyBuffer(io.MultiWriter(ws...), io.LimitReader(r, size), c.buf)
		if err != nil {
			return readProblem(err)
		}
		if n != size {
			return &Problem{Kind: Size, Want: size, Detail: fmt.Sprintf("read %d bytes of %d", n, size)}
		}
	}
	for a, h := range hashes {
		sums[a] = h.Sum(nil)
	}
	for _, d := range want {
		var got string
		if d.alg == "" {
			got = s.etag(md5h.Sum(nil))
		} else {
			got = checksum.Encode(sums[d.alg])
		}
		if got != d.value {
			return &Problem{Kind: Corrupt, Detail: fmt.Sprintf("content does not match its %s: stored %s, data hashes to %s", d.name, d.value, got)}
		}
	}
	if r != nil {
		c.sum.BytesVerified += size // read and matched: a corrupt object's bytes are not counted
	}
	return nil
}
