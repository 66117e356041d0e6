// Package fsck checks a JOG data dir: every object version, every part of a
// multipart object and every part of an upload in progress must have its
// blob, of the size the metadata records (and, with Deep, the content its
// ETag and stored checksum describe); every blob file must be referenced
// by some metadata row; tmp/ must be empty; indexes the metadata store
// derives from its objects (SQLite's directory index) must agree with them.
// With Repair it removes orphan blobs and temp files and rebuilds such
// indexes, and with DropLost also deletes the metadata of objects and
// uploads whose data is gone.
//
// It streams: metadata is read a page at a time and the blob tree is walked
// once, so memory does not grow with the store.
//
// A server may run while a read-only check runs ("live" mode): then files
// that a running server is still writing or about to delete are not
// reported, and a missing blob is reported only if the metadata that named
// it is still current when re-read. Repair needs the data dir's lock
// (server.LockFile), so it never runs beside a server.
package fsck

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/server"
)

// Options say what to check and what to repair.
type Options struct {
	DataDir string
	// Deep reads every blob and compares its MD5 with the ETag (per part
	// for multipart data) and its flexible checksum with the stored one.
	// Without it only presence and size are checked.
	Deep bool
	// Repair removes orphan blobs and temp files and rebuilds derived
	// indexes that disagree with the objects. It takes the data dir's
	// lock and fails with server.ErrDataDirLocked while a server runs.
	Repair bool
	// DropLost, with Repair, also deletes the metadata of object versions
	// whose data is missing, of the wrong size or corrupt, and aborts
	// uploads in progress with such a part. Without it they are reported
	// and left alone.
	DropLost bool
	// Problem, when set, receives each problem as it is found (after its
	// repair, if any).
	Problem func(Problem)
}

// Kind classifies a problem.
type Kind string

// Problem kinds.
const (
	Missing  Kind = "missing"  // the blob file does not exist
	Size     Kind = "size"     // the blob file is shorter or longer than recorded
	Corrupt  Kind = "corrupt"  // the bytes do not match the ETag or checksum (Deep)
	Metadata Kind = "metadata" // the metadata contradicts itself (e.g. a multipart ETag)
	Orphan   Kind = "orphan"   // a blob file no metadata refers to
	Temp     Kind = "temp"     // a file left in tmp/ by an interrupted write
	Index    Kind = "index"    // a derived index disagrees with the objects
)

// Actions taken by a repair.
const (
	ActionRemoved = "removed" // the file was deleted
	ActionDropped = "dropped" // the object version's metadata was deleted
	ActionAborted = "aborted" // the upload in progress was aborted
	ActionRebuilt = "rebuilt" // the bucket's derived indexes were rebuilt
)

// Problem is one finding.
type Problem struct {
	Kind      Kind   `json:"kind"`
	Bucket    string `json:"bucket,omitempty"`
	Key       string `json:"key,omitempty"`
	VersionID string `json:"version_id,omitempty"`
	// UploadID names the upload of a multipart object's part or of an
	// upload in progress (InProgress).
	UploadID   string `json:"upload_id,omitempty"`
	InProgress bool   `json:"in_progress,omitempty"`
	Part       int    `json:"part,omitempty"`
	BlobID     string `json:"blob_id,omitempty"`
	Path       string `json:"path,omitempty"`
	// Size is the file's size (orphans, temp files, size mismatches);
	// Want the size the metadata records.
	Size   int64  `json:"size"`
	Want   int64  `json:"want,omitempty"`
	Detail string `json:"detail"`
	// Action is what the repair did; "" when nothing was done.
	Action string `json:"action,omitempty"`
}

func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s ", p.Kind)
	switch {
	case p.Bucket != "" && p.InProgress:
		fmt.Fprintf(&b, "upload %s of %s/%q part %d: ", p.UploadID, p.Bucket, p.Key, p.Part)
	case p.Bucket != "":
		fmt.Fprintf(&b, "%s/%q", p.Bucket, p.Key)
		if p.VersionID != "" && p.VersionID != meta.NullVersion {
			fmt.Fprintf(&b, " version %s", p.VersionID)
		}
		if p.Part > 0 {
			fmt.Fprintf(&b, " part %d", p.Part)
		}
		b.WriteString(": ")
	case p.Path != "":
		fmt.Fprintf(&b, "%s (%d bytes): ", p.Path, p.Size)
	}
	b.WriteString(p.Detail)
	if p.BlobID != "" && p.Kind != Orphan {
		fmt.Fprintf(&b, " [blob %s]", p.BlobID)
	}
	if p.Action != "" {
		fmt.Fprintf(&b, " -> %s", p.Action)
	}
	return b.String()
}

// Summary counts what a run checked and found.
type Summary struct {
	DataDir string `json:"data_dir"`
	// Live is true when a server held the data dir during the check.
	Live   bool `json:"live"`
	Deep   bool `json:"deep"`
	Repair bool `json:"repair"`

	Buckets          int   `json:"buckets"`
	Objects          int   `json:"objects"`           // object versions checked
	MultipartObjects int   `json:"multipart_objects"` // of which made of parts
	Uploads          int   `json:"uploads"`           // uploads in progress checked
	Parts            int   `json:"parts"`             // parts checked (objects' and uploads')
	Blobs            int   `json:"blobs"`             // blob files walked
	BytesChecked     int64 `json:"bytes_checked"`     // data whose blob has the right size
	BytesVerified    int64 `json:"bytes_verified"`    // data read and hashed (Deep)
	// Skipped counts objects and parts a running server changed while
	// they were being checked (live mode).
	Skipped int `json:"skipped"`

	Missing   int `json:"missing"`
	WrongSize int `json:"wrong_size"`
	Corrupt   int `json:"corrupt"`
	Metadata  int `json:"metadata"`
	// DamagedObjects and DamagedUploads count object versions and uploads
	// with at least one problem above; Dropped and Aborted those repaired.
	DamagedObjects int `json:"damaged_objects"`
	DamagedUploads int `json:"damaged_uploads"`
	Dropped        int `json:"dropped"`
	Aborted        int `json:"aborted"`

	Orphans        int   `json:"orphans"`
	OrphanBytes    int64 `json:"orphan_bytes"`
	OrphansRemoved int   `json:"orphans_removed"`
	// TempFiles counts files in tmp/; in live mode they are writes in
	// progress and not problems.
	TempFiles   int `json:"temp_files"`
	TempRemoved int `json:"temp_removed"`

	// Index counts disagreements between derived indexes and the objects;
	// IndexRebuilt those a repair fixed.
	Index        int `json:"index"`
	IndexRebuilt int `json:"index_rebuilt"`
}

// Remaining is the number of problems left after the run's repairs: 0
// means the data dir is consistent.
func (s Summary) Remaining() int {
	n := s.DamagedObjects - s.Dropped + s.DamagedUploads - s.Aborted + s.Orphans - s.OrphansRemoved + s.Index - s.IndexRebuilt
	if !s.Live {
		n += s.TempFiles - s.TempRemoved
	}
	return n
}

// ErrNotDataDir reports a directory without a JOG metadata database.
var ErrNotDataDir = errors.New("not a jog data dir")

// liveGrace: in live mode, blobs younger than this before the start of the
// check may belong to writes whose metadata is about to commit.
const liveGrace = time.Minute

// pageSize is how many metadata rows are read per query.
const pageSize = 256

// Run checks (and with opts.Repair, repairs) the data dir. An error means
// the check could not be completed (unreadable dir, locked data dir,
// database error); problems found are reported through opts.Problem and
// counted in the Summary, not returned as errors.
func Run(ctx context.Context, opts Options) (Summary, error) {
	sum := Summary{DataDir: opts.DataDir, Deep: opts.Deep, Repair: opts.Repair}
	if opts.DropLost && !opts.Repair {
		return sum, errors.New("fsck: dropping lost objects needs repair")
	}
	st, err := os.Stat(opts.DataDir)
	if err != nil {
		return sum, err
	}
	if !st.IsDir() {
		return sum, fmt.Errorf("%s: %w (not a directory)", opts.DataDir, ErrNotDataDir)
	}
	dbPath := filepath.Join(opts.DataDir, server.DBFile)
	if _, err := os.Stat(dbPath); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return sum, fmt.Errorf("%s: %w (no %s)", opts.DataDir, ErrNotDataDir, server.DBFile)
		}
		return sum, err
	}
	if opts.Repair {
		release, err := server.LockDataDir(opts.DataDir)
		if err != nil {
			return sum, err
		}
		defer release()
	} else if sum.Live, err = server.DataDirLocked(opts.DataDir); err != nil {
		return sum, err
	}
	m, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		return sum, fmt.Errorf("open metadata: %w", err)
	}
	defer m.Close()
	blobs, err := disk.Open(opts.DataDir)
	if err != nil {
		return sum, fmt.Errorf("open blob store: %w", err)
	}
	c := &checker{opts: opts, meta: m, blobs: blobs, sum: &sum, start: time.Now(), buf: make([]byte, 1<<20)}
	for _, phase := range []func(context.Context) error{c.objects, c.uploads, c.indexes, c.orphans, c.temp} {
		if !opts.Repair && !sum.Live {
			// A server started meanwhile: from now on, count as live.
			if sum.Live, err = server.DataDirLocked(opts.DataDir); err != nil {
				return sum, err
			}
		}
		if err := phase(ctx); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

type checker struct {
	opts  Options
	meta  meta.Store
	blobs *disk.Store
	sum   *Summary
	start time.Time
	buf   []byte
}

func (c *checker) report(p Problem) {
	switch p.Kind {
	case Missing:
		c.sum.Missing++
	case Size:
		c.sum.WrongSize++
	case Corrupt:
		c.sum.Corrupt++
	case Metadata:
		c.sum.Metadata++
	}
	if c.opts.Problem != nil {
		c.opts.Problem(p)
	}
}

// ---- derived indexes ----

// indexes checks (and with Repair rebuilds) the indexes the metadata store
// derives from its objects. It reads one snapshot per bucket, so a running
// server's writes cause no false findings.
func (c *checker) indexes(ctx context.Context) error {
	ic, ok := c.meta.(meta.IndexChecker)
	if !ok {
		return nil
	}
	return ic.CheckIndexes(ctx, c.opts.Repair, func(ip meta.IndexProblem) {
		p := Problem{Kind: Index, Bucket: ip.Bucket, Key: ip.Name, Detail: ip.Detail}
		c.sum.Index++
		if ip.Repaired {
			p.Action = ActionRebuilt
			c.sum.IndexRebuilt++
		}
		c.report(p)
	})
}

// ---- objects ----

func (c *checker) objects(ctx context.Context) error {
	buckets, err := c.meta.ListBuckets(ctx)
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
	var probs []Problem
	var err error
	if o.UploadID != "" {
		probs, err = c.multipartObject(ctx, o)
	} else {
		probs, err = c.singleObject(ctx, o)
	}
	if err != nil {
		return err
	}
	if len(probs) > 0 && !c.stillCurrent(ctx, o) {
		c.sum.Skipped++
		probs = nil
	}
	c.sum.Objects++
	if o.UploadID != "" {
		c.sum.MultipartObjects++
	}
	if len(probs) == 0 {
		return nil
	}
	c.sum.DamagedObjects++
	action := ""
	if c.opts.DropLost {
		freed, err := c.meta.DeleteObject(ctx, o.Bucket, o.Key, o.VersionID, meta.Condition{})
		if err != nil {
			return fmt.Errorf("drop %s/%q version %s: %w", o.Bucket, o.Key, o.VersionID, err)
		}
		if err := c.deleteBlobs(ctx, freed); err != nil {
			return err
		}
		c.sum.Dropped++
		action = ActionDropped
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

// singleObject checks an object stored in one blob (or none, when empty).
func (c *checker) singleObject(ctx context.Context, o meta.Object) ([]Problem, error) {
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
		if p := c.checkInline(o, want); p != nil {
			probs = append(probs, *p)
		}
		return probs, nil
	}
	p, err := c.checkBlob(ctx, o.BlobID, o.Size, want)
	if err != nil {
		return nil, err
	}
	if p != nil {
		probs = append(probs, *p)
	}
	return probs, nil
}

// checkInline checks an object stored in the metadata database: its
// length and, when Deep, its digests.
func (c *checker) checkInline(o meta.Object, want []digest) *Problem {
	n := int64(len(o.Inline))
	if o.BlobID != "" {
		return &Problem{Kind: Metadata, BlobID: o.BlobID, Detail: "object has both a blob and inline data"}
	}
	if n != o.Size {
		return &Problem{Kind: Size, Size: n, Want: o.Size, Detail: fmt.Sprintf("inline data is %d bytes, metadata says %d", n, o.Size)}
	}
	c.sum.BytesChecked += n
	if !c.opts.Deep {
		return nil
	}
	return c.verify(bytes.NewReader(o.Inline), n, want)
}

// multipartObject checks the parts of an object made by
// CompleteMultipartUpload, and that its ETag, size and checksum agree
// with them.
func (c *checker) multipartObject(ctx context.Context, o meta.Object) ([]Problem, error) {
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
		bp, err := c.checkBlob(ctx, p.BlobID, p.Size, partDigests(p))
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

// ---- uploads in progress ----

func (c *checker) uploads(ctx context.Context) error {
	buckets, err := c.meta.ListBuckets(ctx)
	if err != nil {
		return err
	}
	for _, b := range buckets {
		opts := meta.ListUploadsOptions{Limit: pageSize}
		for {
			page, err := c.meta.ListUploads(ctx, b.Name, opts)
			if errors.Is(err, meta.ErrBucketNotFound) {
				break
			}
			if err != nil {
				return err
			}
			for _, u := range page.Uploads {
				if err := c.upload(ctx, u); err != nil {
					return err
				}
			}
			if !page.Truncated {
				break
			}
			opts.KeyMarker, opts.UploadIDMarker = page.NextKeyMarker, page.NextUploadIDMarker
		}
	}
	return nil
}

func (c *checker) upload(ctx context.Context, u meta.Upload) error {
	c.sum.Uploads++
	var probs []Problem
	after := 0
	for {
		parts, more, err := c.meta.ListParts(ctx, u.Bucket, u.Key, u.UploadID, after, pageSize)
		if errors.Is(err, meta.ErrUploadNotFound) || errors.Is(err, meta.ErrBucketNotFound) {
			c.sum.Skipped++ // completed or aborted meanwhile
			return nil
		}
		if err != nil {
			return err
		}
		for _, p := range parts {
			c.sum.Parts++
			bp, err := c.checkBlob(ctx, p.BlobID, p.Size, partDigests(p))
			if err != nil {
				return err
			}
			if bp != nil && c.partStillCurrent(ctx, u, p) {
				bp.Part = p.Number
				probs = append(probs, *bp)
			} else if bp != nil {
				c.sum.Skipped++
			}
		}
		if !more || len(parts) == 0 {
			break
		}
		after = parts[len(parts)-1].Number
	}
	if len(probs) == 0 {
		return nil
	}
	c.sum.DamagedUploads++
	action := ""
	if c.opts.DropLost {
		freed, err := c.meta.AbortUpload(ctx, u.Bucket, u.Key, u.UploadID)
		if err != nil {
			return fmt.Errorf("abort upload %s of %s/%q: %w", u.UploadID, u.Bucket, u.Key, err)
		}
		if err := c.deleteBlobs(ctx, freed); err != nil {
			return err
		}
		c.sum.Aborted++
		action = ActionAborted
	}
	for _, p := range probs {
		p.Bucket, p.Key, p.UploadID, p.InProgress, p.Action = u.Bucket, u.Key, u.UploadID, true, action
		c.report(p)
	}
	return nil
}

func (c *checker) partStillCurrent(ctx context.Context, u meta.Upload, p meta.Part) bool {
	parts, _, err := c.meta.ListParts(ctx, u.Bucket, u.Key, u.UploadID, p.Number-1, 1)
	return err == nil && len(parts) == 1 && parts[0].Number == p.Number && parts[0].BlobID == p.BlobID
}

// ---- blobs ----

// digest is a value the blob's bytes must hash to: alg "" means MD5 in
// hex (an ETag), otherwise a flexible checksum in base64.
type digest struct {
	name  string
	alg   checksum.Algorithm
	value string
}

// checkBlob checks that blob id exists with size bytes and, when Deep,
// that its bytes hash to want. It returns the problem found, if any (nil
// when the blob is sound), and an error only when checking failed.
func (c *checker) checkBlob(ctx context.Context, id string, size int64, want []digest) (*Problem, error) {
	if id == "" {
		if size != 0 {
			return &Problem{Kind: Metadata, Want: size, Detail: fmt.Sprintf("no blob for %d bytes of data", size)}, nil
		}
		if c.opts.Deep {
			return c.verify(nil, 0, want), nil
		}
		return nil, nil
	}
	path := c.blobs.Path(id)
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
	if n != size {
		word := "short"
		if n > size {
			word = "long"
		}
		return &Problem{Kind: Size, BlobID: id, Path: path, Size: n, Want: size,
			Detail: fmt.Sprintf("blob is %s: %d bytes, metadata says %d", word, n, size)}, nil
	}
	c.sum.BytesChecked += size
	if !c.opts.Deep {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	p := c.verify(f, size, want)
	if p != nil {
		if p.Kind == "" { // a read error
			return nil, fmt.Errorf("read blob %s: %s", id, p.Detail)
		}
		p.BlobID, p.Path, p.Size = id, path, size
	}
	return p, ctx.Err()
}

// verify hashes r (size bytes) and compares with want. A Problem of empty
// Kind reports a read error.
func (c *checker) verify(r io.Reader, size int64, want []digest) *Problem {
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
			return &Problem{Detail: err.Error()}
		}
		if n != size {
			return &Problem{Kind: Size, Want: size, Detail: fmt.Sprintf("read %d bytes of %d", n, size)}
		}
		c.sum.BytesVerified += n
	}
	for a, h := range hashes {
		sums[a] = h.Sum(nil)
	}
	for _, d := range want {
		var got string
		if d.alg == "" {
			got = hex.EncodeToString(md5h.Sum(nil))
		} else {
			got = checksum.Encode(sums[d.alg])
		}
		if got != d.value {
			return &Problem{Kind: Corrupt, Detail: fmt.Sprintf("content does not match its %s: stored %s, data hashes to %s", d.name, d.value, got)}
		}
	}
	return nil
}

// ---- orphans and temp files ----

func (c *checker) orphans(ctx context.Context) error {
	var batch []blob.Info
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids := make([]string, len(batch))
		byID := make(map[string]blob.Info, len(batch))
		for i, b := range batch {
			ids[i], byID[b.ID] = b.ID, b
		}
		batch = batch[:0]
		unref, err := c.meta.UnreferencedBlobs(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range unref {
			info := byID[id]
			path := c.blobs.Path(id)
			if c.sum.Live {
				// Freed by a write that committed after the walk saw the
				// file: the server deletes it right after its commit.
				if !c.blobs.Exists(ctx, id) {
					continue
				}
			}
			p := Problem{Kind: Orphan, BlobID: id, Path: path, Size: info.Size, Detail: "no metadata refers to this blob"}
			c.sum.Orphans++
			c.sum.OrphanBytes += info.Size
			if c.opts.Repair {
				if err := c.blobs.Delete(ctx, id); err != nil {
					return err
				}
				c.sum.OrphansRemoved++
				p.Action = ActionRemoved
			}
			c.report(p)
		}
		return nil
	}
	err := c.blobs.Walk(ctx, func(info blob.Info) error {
		c.sum.Blobs++
		if c.sum.Live && info.ModTime.After(c.start.Add(-liveGrace)) {
			return nil // may be a write whose metadata commits any moment
		}
		batch = append(batch, info)
		if len(batch) >= 512 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

func (c *checker) temp(ctx context.Context) error {
	return c.blobs.WalkTemp(ctx, func(info blob.Info) error {
		c.sum.TempFiles++
		if c.sum.Live {
			return nil // writes in progress
		}
		p := Problem{Kind: Temp, Path: filepath.Join(c.opts.DataDir, "tmp", info.ID), Size: info.Size,
			Detail: "left by an interrupted write"}
		if c.opts.Repair {
			if err := c.blobs.RemoveTemp(info.ID); err != nil {
				return err
			}
			c.sum.TempRemoved++
			p.Action = ActionRemoved
		}
		c.report(p)
		return nil
	})
}
