package fsck

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/kms/kmip"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/sse/format"
)

// Encrypted objects (docs/adr/0027, 0028). Their blobs, pack records and
// inline rows hold sse.StoredSize of the plaintext size the metadata
// records: presence and that size are checked always. Deep opens each
// object's (or upload's) data key through the KMS the server opens and reads
// every package through sse.OpenRange, so every authentication tag is
// verified, then checks the ETag (sse.ETag) and checksums against the
// plaintext. An SSE-C data key opens only under the customer's key, which
// is never stored: such bytes are checked for size alone, and counted.

// sealing is how the bytes of one blob, part or inline row are sealed:
// the zero value for bytes stored as sent.
type sealing struct {
	enc meta.Encryption
	// key opens the stream (a part's: sse.PartKey of the upload's data
	// key); nil when it was not opened (no Deep, SSE-C, a key that does
	// not open): then only the stored size is checked.
	key  []byte
	part int // the stream's part number; 0 for a whole object
}

// storedSize is how many bytes plain bytes take at rest.
func (s sealing) storedSize(plain int64) (int64, error) {
	if !s.enc.Encrypted() {
		return plain, nil
	}
	return sse.StoredSize(plain)
}

// unreadable reports sealed bytes whose key is not at hand: their content
// cannot be verified.
func (s sealing) unreadable() bool { return s.enc.Encrypted() && s.key == nil }

// plaintext returns a reader of the plain bytes src holds; src as it is
// when they are not sealed.
func (s sealing) plaintext(src io.ReadSeeker, plain int64) (io.Reader, error) {
	if !s.enc.Encrypted() {
		return src, nil
	}
	return sse.OpenRange(src, plain, s.key, s.part, 0, plain)
}

// forPart is the sealing of part n of a multipart object or upload sealed
// as s.
func (s sealing) forPart(n int) sealing {
	p := sealing{enc: s.enc, part: n}
	if s.key != nil {
		p.key = sse.PartKey(s.key, n)
	}
	return p
}

// etag is the ETag of bytes whose MD5 is md5sum, sealed as s.
func (s sealing) etag(md5sum []byte) string {
	if !s.enc.Encrypted() {
		return hex.EncodeToString(md5sum)
	}
	return sse.ETag(s.enc, s.key, md5sum)
}

// sealingOf returns how the bytes of an object (or upload) at bucket/key
// recorded as enc are sealed, with the data key opened when Deep reads
// them. A key that does not open is a problem of kind Key; an SSE-C
// record, whose key only its client has, is a note of kind Unverifiable.
func (c *checker) sealingOf(ctx context.Context, enc meta.Encryption, bucket, key string) (sealing, *Problem, error) {
	s := sealing{enc: enc}
	if !c.opts.Deep || !enc.Encrypted() {
		return s, nil, nil
	}
	if enc.Mode == sse.ModeC {
		return s, &Problem{Kind: Unverifiable, Detail: "SSE-C, not verifiable without the key"}, nil
	}
	keys, err := c.dataKeys(ctx)
	if err != nil {
		return s, nil, err
	}
	if s.key, err = keys.Open(ctx, enc, bucket, key, nil); err != nil {
		return s, &Problem{Kind: Key, Detail: fmt.Sprintf("the %s data key (KMS key %q) does not open: %v", enc.Mode, enc.KeyID, err)}, nil
	}
	return s, nil, nil
}

// dataKeys opens the KMS the server opens from the same settings
// (kmip.Route over the data dir's built-in KMS) at the first encrypted
// object Deep reads. It creates no master key: without one (neither
// Options.MasterKey nor the file) no data key could open, and the check
// stops.
func (c *checker) dataKeys(ctx context.Context) (*sse.Keys, error) {
	if c.keys != nil {
		return c.keys, nil
	}
	if c.opts.MasterKey == "" {
		if _, err := os.Stat(filepath.Join(c.opts.DataDir, kms.MasterKeyFile)); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("encrypted objects need the master key to be verified: set %s or restore %s in the data dir",
				kms.MasterKeyEnv, kms.MasterKeyFile)
		}
	}
	builtin, err := kms.OpenDataDir(ctx, c.opts.DataDir, c.opts.MasterKey)
	if err != nil {
		return nil, fmt.Errorf("open the data dir's KMS: %w", err)
	}
	k, closeKMS, err := kmip.Route(ctx, builtin, c.opts.KMIP)
	if err != nil {
		return nil, err
	}
	c.keys, c.closeKeys = sse.NewKeys(k), closeKMS
	return c.keys, nil
}

// sealError says whether err is sealed bytes that fail to open: damage,
// not a failure of the check.
func sealError(err error) bool {
	return errors.Is(err, format.ErrNotAuthentic) || errors.Is(err, format.ErrUnknownFormat)
}

// noteUnverifiable counts and reports an SSE-C object or upload whose
// bytes Deep could not read.
func (c *checker) noteUnverifiable(note *Problem, p Problem) {
	if note == nil || note.Kind != Unverifiable {
		return
	}
	p.Kind, p.Detail = note.Kind, note.Detail
	c.report(p)
}

// lost says whether probs include damage to the data itself, which
// DropLost deletes; a data key that does not open (a disabled KMS key, a
// wrong master key) may open again, so alone it drops nothing.
func lost(probs []Problem) bool {
	for _, p := range probs {
		if p.Kind != Key {
			return true
		}
	}
	return false
}
