package cp

import (
	"context"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/checksum"
)

// rangeJob is one GET of a download: part Number of a COMPOSITE object
// (its offset learnt from Content-Range), or the byte range [Off,
// Off+Size).
type rangeJob struct {
	part      int
	off, size int64
}

// Download copies bucket/key to the local file dst: one GET up to one
// part, else parallel ranged GETs (part by part for an object whose
// checksum is COMPOSITE) written in place into a temporary file beside
// dst, renamed to dst once the bytes match the object's checksum (or MD5
// ETag). On any error no dst is left.
func (cp *Copier) Download(ctx context.Context, bucket, key, dst string) error {
	info, err := cp.c.Head(ctx, bucket, key, 0, cp.opts.Encryption.CustomerKey)
	if err != nil {
		return fmt.Errorf("HEAD %s: %w", key, err)
	}
	e, err := expect(info)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if e.alg == "" {
		fmt.Fprintf(cp.opts.Log, "%s: the object has no checksum and its ETag is no MD5: not verified\n", key)
	}
	partSize, err := PartSize(info.Size, cp.opts.PartSize)
	if err != nil {
		return err
	}
	jobs := downloadJobs(e, info.Size, partSize)
	tmp, err := createTemp(dst)
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := preallocate(tmp, info.Size); err != nil {
		return err
	}
	sums := make([][]byte, len(jobs))
	offs, sizes := make([]int64, len(jobs)), make([]int64, len(jobs))
	err = cp.requests(ctx, len(jobs), func(ctx context.Context, i int) error {
		var err error
		sums[i], offs[i], sizes[i], err = cp.fetch(ctx, bucket, key, info, e, jobs[i], tmp)
		return err
	})
	if err != nil {
		return err
	}
	if err := tiled(offs, sizes, info.Size); err != nil {
		return fmt.Errorf("GET %s: %w", key, err)
	}
	if err := cp.verify(key, e, sums, sizes, tmp, info.Size); err != nil {
		return err
	}
	if !cp.opts.NoFsync {
		if err := tmp.Sync(); err != nil {
			return err
		}
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return err
	}
	ok = true
	cp.tally.copied(info.Size, e.alg != "")
	return nil
}

// createTemp creates a new, empty temporary file beside dst with mode
// 0666 less the umask, the mode dst gets when renamed into place, as a
// file made by aws s3 cp or cp(1) (os.CreateTemp's files are 0600).
func createTemp(dst string) (*os.File, error) {
	dir, base := filepath.Dir(dst), "."+filepath.Base(dst)+".jogcp-"
	for range 100 {
		f, err := os.OpenFile(filepath.Join(dir, base+strconv.FormatUint(rand.Uint64(), 36)), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("create a temporary file beside %s: too many names taken", dst)
}

// downloadJobs plans the GETs of an object: its parts for a COMPOSITE
// checksum, else one GET up to partSize, else ranges of partSize.
func downloadJobs(e expectation, size, partSize int64) []rangeJob {
	if e.composite {
		jobs := make([]rangeJob, e.parts)
		for i := range jobs {
			jobs[i] = rangeJob{part: i + 1, size: -1}
		}
		return jobs
	}
	if size <= partSize {
		return []rangeJob{{size: -1}}
	}
	secs := sections(size, partSize)
	jobs := make([]rangeJob, len(secs))
	for i, s := range secs {
		jobs[i] = rangeJob{off: s.Off, size: s.Size}
	}
	return jobs
}

// fetch runs one GET into f at its offset, hashing the bytes with e's
// algorithm, and returns their digest, offset and count. A part's own checksum,
// when the server sends it, is checked here.
func (cp *Copier) fetch(ctx context.Context, bucket, key string, info ObjectInfo, e expectation, j rangeJob, f *os.File) (sum []byte, off, n int64, err error) {
	resp, err := cp.c.GetRange(ctx, bucket, key, info.ETag, j.off, j.size, j.part, cp.opts.Encryption.CustomerKey)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("GET %s: %w", key, err)
	}
	defer resp.Body.Close()
	off, want, err := span(j, resp, info.Size)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("GET %s: %w", key, err)
	}
	var h hash.Hash
	if e.alg != "" {
		h = newHash(e.alg)
	}
	n, err = cp.copyAt(f, off, resp.Body, h)
	if err == nil && n != want {
		err = fmt.Errorf("got %d bytes at %d, want %d: %w", n, off, want, io.ErrUnexpectedEOF)
	}
	if err != nil {
		cp.opts.Progress.add(-n) // the range is fetched again, or the download fails
		return nil, 0, 0, fmt.Errorf("GET %s: %w", key, err)
	}
	if h == nil {
		return nil, off, n, nil
	}
	sum = h.Sum(nil)
	if j.part > 0 && e.parts > 1 && e.alg != md5ETag {
		if v := objectInfo(resp.Header); v.Checksum != "" {
			p := expectation{alg: e.alg}
			if p.want, err = checksumOf(e.alg, v.Checksum); err != nil {
				return nil, 0, 0, err
			}
			if err := p.check(fmt.Sprintf("%s part %d", key, j.part), sum); err != nil {
				return nil, 0, 0, err
			}
		}
	}
	return sum, off, n, nil
}

// tiled checks that the ranges (offs, sizes, in order) cover [0, size)
// exactly: parts placed by the server's Content-Range leave no hole.
func tiled(offs, sizes []int64, size int64) error {
	var at int64
	for i := range offs {
		if offs[i] != at {
			return fmt.Errorf("range %d starts at %d, want %d", i+1, offs[i], at)
		}
		at += sizes[i]
	}
	if at != size {
		return fmt.Errorf("ranges end at %d of %d bytes", at, size)
	}
	return nil
}

// checksumOf decodes an S3 checksum value (any "-N" suffix dropped).
func checksumOf(alg, v string) ([]byte, error) {
	value, _, _ := strings.Cut(v, "-")
	return checksum.Algorithm(alg).Decode(value)
}

// span returns where the bytes of a GET's answer go in an object of size
// bytes and how many there are: a part's from its Content-Range (the whole
// object for a one-part object answered 200), a range's as asked (206 and
// the same Content-Range, else an error), the whole object's otherwise.
func span(j rangeJob, resp *http.Response, size int64) (off, n int64, err error) {
	if j.part == 0 && j.size < 0 {
		return 0, size, nil
	}
	start, end, ok := contentRange(resp.Header.Get("Content-Range"))
	switch {
	case !ok && j.part > 0 && resp.StatusCode == http.StatusOK:
		return 0, size, nil
	case !ok || resp.StatusCode != http.StatusPartialContent:
		return 0, 0, fmt.Errorf("HTTP %d with Content-Range %q", resp.StatusCode, resp.Header.Get("Content-Range"))
	case end >= size || (j.part == 0 && (start != j.off || end-start+1 != j.size)):
		return 0, 0, fmt.Errorf("answered bytes %d-%d of %d", start, end, size)
	}
	return start, end - start + 1, nil
}

// copyAt copies r into f from off through a pooled buffer, feeding h when
// not nil, and returns the byte count.
func (cp *Copier) copyAt(f *os.File, off int64, r io.Reader, h hash.Hash) (int64, error) {
	bp := cp.bufs.Get().(*[]byte)
	defer cp.bufs.Put(bp)
	buf := *bp
	var n int64
	for {
		k, err := io.ReadFull(r, buf)
		if k > 0 {
			if h != nil {
				h.Write(buf[:k])
			}
			if _, werr := f.WriteAt(buf[:k], off+n); werr != nil {
				return n, werr
			}
			n += int64(k)
			cp.opts.Progress.add(int64(k))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// verify checks the downloaded bytes against e: from the ranges' digests
// when they make the object's, else by hashing the file again.
func (cp *Copier) verify(key string, e expectation, sums [][]byte, sizes []int64, f *os.File, size int64) error {
	if e.alg == "" {
		return nil
	}
	got, ok, err := e.wholeSum(sums, sizes)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if !ok {
		h := newHash(e.alg)
		bp := cp.bufs.Get().(*[]byte)
		_, err := io.CopyBuffer(h, io.NewSectionReader(f, 0, size), *bp)
		cp.bufs.Put(bp)
		if err != nil {
			return err
		}
		got = h.Sum(nil)
	}
	return e.check(key, got)
}

// contentRange parses "bytes start-end/total".
func contentRange(s string) (start, end int64, ok bool) {
	r, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	r, _, _ = strings.Cut(r, "/")
	a, b, found := strings.Cut(r, "-")
	if !found {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start {
		return 0, 0, false
	}
	return start, end, true
}
