package cp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"

	"github.com/jogstore/jog/internal/checksum"
)

// Upload copies the local file src to bucket/key: one PUT up to one part,
// else a parallel multipart upload. Every request carries the CRC64NVME
// of its bytes and the server checks the whole object's.
func (cp *Copier) Upload(ctx context.Context, src, bucket, key string) error {
	st, err := os.Stat(src)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory (use -r to copy a tree)", src)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", src)
	}
	partSize, err := PartSize(st.Size(), cp.opts.PartSize)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	if st.Size() <= partSize {
		return cp.put(ctx, f, st, bucket, key)
	}
	return cp.multipart(ctx, f, st, bucket, key, partSize)
}

// put uploads a file of up to one part in one PUT.
func (cp *Copier) put(ctx context.Context, f *os.File, st os.FileInfo, bucket, key string) error {
	size := st.Size()
	var crc string
	var hdr http.Header
	err := cp.requests(ctx, 1, func(ctx context.Context, _ int) (err error) {
		if crc, err = cp.crc(f, 0, size); err != nil {
			return err
		}
		hdr, err = cp.c.Put(ctx, bucket, key, opener(f.Name(), 0, size), size, crc, cp.opts.Encryption)
		return err
	})
	if err != nil {
		return fmt.Errorf("PUT %s: %w", key, err)
	}
	if got := hdr.Get(uploadAlgorithm.HeaderName()); got != "" && got != crc {
		return fmt.Errorf("PUT %s: the server stored %s %s, the file's is %s", key, uploadAlgorithm, got, crc)
	}
	cp.opts.Progress.add(size)
	if err := unchanged(f.Name(), st); err != nil {
		return err
	}
	cp.tally.copied(size, hdr.Get(uploadAlgorithm.HeaderName()) == crc)
	return nil
}

// multipart uploads a file in parts, reusing a matching upload in progress
// with Options.Resume. On failure the upload is kept for a later --resume.
func (cp *Copier) multipart(ctx context.Context, f *os.File, st os.FileInfo, bucket, key string, partSize int64) error {
	size := st.Size()
	uploadID, existing, partSize, err := cp.findUpload(ctx, bucket, key, size, partSize)
	if err != nil {
		return err
	}
	if uploadID == "" {
		if uploadID, err = cp.c.CreateUpload(ctx, bucket, key, cp.opts.Encryption); err != nil {
			return fmt.Errorf("CreateMultipartUpload %s: %w", key, err)
		}
	} else {
		fmt.Fprintf(cp.opts.Log, "%s: resuming upload %s (%d parts there)\n", key, uploadID, len(existing))
	}
	secs := sections(size, partSize)
	parts := make([]Part, len(secs))
	err = cp.requests(ctx, len(secs), func(ctx context.Context, i int) error {
		s := secs[i]
		crc, err := cp.crc(f, s.Off, s.Size)
		if err != nil {
			return err
		}
		parts[i] = Part{Number: s.Number, Size: s.Size, CRC: crc}
		if parts[i].ETag = reusable(existing, s, crc); parts[i].ETag != "" {
			cp.opts.Progress.skip(s.Size)
			return nil
		}
		if parts[i].ETag, err = cp.c.UploadPart(ctx, bucket, key, uploadID, s.Number, opener(f.Name(), s.Off, s.Size), s.Size, crc, cp.opts.Encryption.CustomerKey); err != nil {
			return fmt.Errorf("UploadPart %s #%d: %w", key, s.Number, err)
		}
		cp.opts.Progress.add(s.Size)
		return nil
	})
	if err == nil {
		err = unchanged(f.Name(), st)
	}
	if err != nil {
		fmt.Fprintf(cp.opts.Log, "%s: upload %s kept; run the same jog cp with --resume to finish it\n", key, uploadID)
		return err
	}
	full, err := wholeCRC(parts)
	if err != nil {
		return err
	}
	res, err := cp.c.Complete(ctx, bucket, key, uploadID, parts, full, size, cp.opts.Encryption.CustomerKey)
	if err != nil {
		return fmt.Errorf("CompleteMultipartUpload %s: %w", key, err)
	}
	if res.CRC != "" && res.CRC != full {
		return fmt.Errorf("%s: the server's %s of the completed object is %s, the file's is %s", key, uploadAlgorithm, res.CRC, full)
	}
	cp.tally.copied(size, res.CRC == full)
	return nil
}

// findUpload returns, with Options.Resume, the newest upload in progress
// for key that uses CRC64NVME, its parts by number, and the part size to
// go on with (the upload's own when it tells one and fits size). It
// returns "" when there is none to resume.
func (cp *Copier) findUpload(ctx context.Context, bucket, key string, size, partSize int64) (string, map[int]Part, int64, error) {
	if !cp.opts.Resume {
		return "", nil, partSize, nil
	}
	ups, err := cp.c.Uploads(ctx, bucket, key)
	if err != nil {
		return "", nil, 0, fmt.Errorf("ListMultipartUploads %s: %w", key, err)
	}
	// Only an upload made as jog cp makes them (CRC64NVME, FULL_OBJECT) can
	// take its parts and its completion.
	ups = slices.DeleteFunc(ups, func(u Upload) bool {
		return u.ChecksumAlgorithm != string(uploadAlgorithm) || (u.ChecksumType != "" && u.ChecksumType != "FULL_OBJECT")
	})
	if len(ups) == 0 {
		return "", nil, partSize, nil
	}
	newest := slices.MaxFunc(ups, func(a, b Upload) int { return a.Initiated.Compare(b.Initiated) })
	list, err := cp.c.Parts(ctx, bucket, key, newest.UploadID, cp.opts.Encryption.CustomerKey)
	if err != nil {
		return "", nil, 0, fmt.Errorf("ListParts %s: %w", key, err)
	}
	if ps := resumePartSize(list, partSize); (size+ps-1)/ps <= MaxParts {
		partSize = ps
	}
	existing := make(map[int]Part, len(list))
	for _, p := range list {
		existing[p.Number] = p
	}
	return newest.UploadID, existing, partSize, nil
}

// wholeCRC is the whole object's CRC64NVME, combined from its parts'.
func wholeCRC(parts []Part) (string, error) {
	var acc []byte
	for i, p := range parts {
		sum, err := uploadAlgorithm.Decode(p.CRC)
		if err != nil {
			return "", err
		}
		if i == 0 {
			acc = sum
			continue
		}
		if acc, err = checksum.CombineCRC(uploadAlgorithm, acc, sum, p.Size); err != nil {
			return "", err
		}
	}
	return checksum.Encode(acc), nil
}

// crc returns the base64 CRC64NVME of f's bytes [off, off+n).
func (cp *Copier) crc(f *os.File, off, n int64) (string, error) {
	bp := cp.bufs.Get().(*[]byte)
	defer cp.bufs.Put(bp)
	h := uploadAlgorithm.New()
	if _, err := io.CopyBuffer(h, io.NewSectionReader(f, off, n), *bp); err != nil {
		return "", err
	}
	return checksum.Encode(h.Sum(nil)), nil
}

// ErrChanged reports a local file that changed while it was uploaded.
var ErrChanged = errors.New("the file changed while it was uploaded")

// unchanged fails with ErrChanged when path's size or modification time is
// no longer st's.
func unchanged(path string, st os.FileInfo) error {
	now, err := os.Stat(path)
	if err != nil {
		return err
	}
	if now.Size() != st.Size() || !now.ModTime().Equal(st.ModTime()) {
		return fmt.Errorf("%s: %w", path, ErrChanged)
	}
	return nil
}
