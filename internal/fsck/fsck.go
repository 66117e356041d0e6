// Package fsck checks a JOG data dir: every object version, every part of a
// multipart object and every part of an upload in progress must have its
// blob, of the size the metadata records (and, with Deep, the content its
// ETag and stored checksum describe, and for encrypted data authentic
// bytes under a data key that opens); every blob file must be referenced
// by some metadata row; tmp/ must be empty; indexes the metadata store
// derives from its objects (SQLite's directory index) must agree with them;
// a key's versions, delete markers and locks must not contradict each
// other (one latest version, the newest; no lock on a missing version).
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
// (datadir.Lock), so it never runs beside a server.
//
// A data dir shared by gateways (an external metadata store, Meta) is
// always checked in live mode, since a gateway on another machine may be
// writing whether or not its lock shows here, and blobs younger than
// blob.Grace are then left out of the orphan check (a gateway's metadata
// commit may still be on its way). Repair takes the lock exclusively, so
// it fails while any gateway runs, and gateways refuse to start meanwhile.
package fsck

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/kms/kmip"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/storage"
	"github.com/jogstore/jog/internal/units"
)

// Options say what to check and what to repair.
type Options struct {
	DataDir string
	// Meta names the metadata store as the server's --meta does; ""
	// means the default (SQLite in the data dir).
	Meta string
	// Deep reads every blob and compares its MD5 with the ETag (per part
	// for multipart data) and its flexible checksum with the stored one;
	// encrypted data it decrypts first, with each object's data key opened
	// through the KMS the server opens (MasterKey, KMIP), which verifies
	// every authentication tag
	// (SSE-C data, whose key only the client has, is counted as
	// Unverifiable). Without it only presence and size are checked.
	Deep bool
	// Repair removes orphan blobs and temp files and rebuilds derived
	// indexes that disagree with the objects. It takes the data dir's
	// lock and fails with datadir.ErrLocked while a server runs.
	Repair bool
	// DropLost, with Repair, also deletes the metadata of object versions
	// whose data is missing, of the wrong size or corrupt, and aborts
	// uploads in progress with such a part. Without it they are reported
	// and left alone.
	DropLost bool
	// MasterKey is the built-in KMS's master key as the server's
	// kms.MasterKeyEnv holds it; "" reads kms.MasterKeyFile in the data
	// dir. KMIP is the server's external KMS of SSE-KMS keys (no Endpoint:
	// none). Deep opens data keys through them as the server does
	// (kmip.Route).
	MasterKey string
	KMIP      kmip.Config
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
	Versions Kind = "versions" // a key's versions, delete markers or locks contradict each other
	Key      Kind = "key"      // the data key of encrypted data does not open (Deep)
	// Unverifiable is a note, not damage: SSE-C data, whose key only the
	// client has, was checked for presence and size alone (Deep).
	Unverifiable Kind = "unverifiable"
)

// Actions taken by a repair.
const (
	ActionRemoved    = "removed"     // the file was deleted
	ActionDropped    = "dropped"     // the object version's metadata was deleted
	ActionKeptLocked = "kept-locked" // not dropped: object lock protects the version
	ActionAborted    = "aborted"     // the upload in progress was aborted
	ActionRebuilt    = "rebuilt"     // the bucket's derived indexes were rebuilt
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
	case p.Bucket != "":
		if p.InProgress {
			fmt.Fprintf(&b, "upload %s of %s", p.UploadID, ObjectName(p.Bucket, p.Key))
		} else {
			b.WriteString(ObjectName(p.Bucket, p.Key))
		}
		if p.VersionID != "" && p.VersionID != meta.NullVersion {
			fmt.Fprintf(&b, " version %s", p.VersionID)
		}
		if p.Part > 0 {
			fmt.Fprintf(&b, " part %d", p.Part)
		}
		b.WriteString(": ")
	case p.Path != "":
		fmt.Fprintf(&b, "%s (%s): ", p.Path, units.Human(float64(p.Size)))
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

// ObjectName is bucket/key as people read it, "photos/2026/small.bin":
// the key quoted (strconv.Quote) only when it holds a space, a quote or a
// character that does not print, so that its end and odd bytes show.
func ObjectName(bucket, key string) string {
	if key == "" || strings.ContainsAny(key, " \"\\") || strconv.Quote(key) != `"`+key+`"` {
		key = strconv.Quote(key)
	}
	return bucket + "/" + key
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
	DeleteMarkers    int   `json:"delete_markers"`    // delete markers seen (no data)
	MultipartObjects int   `json:"multipart_objects"` // of which made of parts
	Uploads          int   `json:"uploads"`           // uploads in progress checked
	Parts            int   `json:"parts"`             // parts checked (objects' and uploads')
	Blobs            int   `json:"blobs"`             // blob files walked
	BytesChecked     int64 `json:"bytes_checked"`     // data whose blob has the right size
	BytesVerified    int64 `json:"bytes_verified"`    // data read and found to match its digests (Deep)
	// Skipped counts objects and parts a running server changed while
	// they were being checked (live mode).
	Skipped int `json:"skipped"`

	Missing   int `json:"missing"`
	WrongSize int `json:"wrong_size"`
	Corrupt   int `json:"corrupt"`
	Metadata  int `json:"metadata"`
	// KeyErrors counts data keys that do not open (Deep): their objects
	// and uploads are damaged, but DropLost keeps them.
	KeyErrors int `json:"key_errors"`
	// Unverifiable counts SSE-C object versions and uploads whose bytes
	// Deep could not read without the customer's key (not problems).
	Unverifiable int `json:"unverifiable"`
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

	// Versions counts contradictions among versions, delete markers and
	// locks (meta.VersionChecker); no repair fixes them.
	Versions int `json:"versions"`
}

// Remaining is the number of problems left after the run's repairs: 0
// means the data dir is consistent.
func (s Summary) Remaining() int {
	n := s.DamagedObjects - s.Dropped + s.DamagedUploads - s.Aborted + s.Orphans - s.OrphansRemoved + s.Index - s.IndexRebuilt + s.Versions
	if !s.Live {
		n += s.TempFiles - s.TempRemoved
	}
	return n
}

// liveGrace: in live mode, blobs younger than this before the start of the
// check may belong to writes whose metadata is about to commit; where
// gateways share the data dir, blob.Grace.
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
	cfg := config.Default()
	cfg.DataDir = opts.DataDir
	if opts.Meta != "" {
		cfg.Meta = opts.Meta
	}
	stores, err := storage.OpenWith(ctx, cfg, nil, storage.Options{Existing: true, Unlocked: !opts.Repair, Exclusive: opts.Repair})
	if err != nil {
		return sum, err
	}
	defer stores.Close()
	if !opts.Repair {
		if sum.Live, err = datadir.Locked(opts.DataDir); err != nil {
			return sum, err
		}
	}
	c := &checker{opts: opts, meta: stores.Meta, blobs: stores.Blobs, sum: &sum, start: time.Now(), buf: make([]byte, 1<<20), grace: liveGrace}
	if stores.Shared {
		sum.Live, c.grace = true, blob.Grace
	}
	defer func() {
		if c.closeKeys != nil {
			_ = c.closeKeys()
		}
	}()
	for _, phase := range []func(context.Context) error{c.objects, c.uploads, c.indexes, c.versions, c.orphans, c.temp} {
		if !opts.Repair && !sum.Live {
			// A server started meanwhile: from now on, count as live.
			if sum.Live, err = datadir.Locked(opts.DataDir); err != nil {
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
	blobs blob.Store
	sum   *Summary
	start time.Time
	buf   []byte
	// grace: in live mode, blobs younger than this before start are not
	// checked for references.
	grace time.Duration
	// keys opens data keys, once an encrypted object needs one (dataKeys);
	// closeKeys ends its KMS's connections.
	keys      *sse.Keys
	closeKeys func() error
}

// What the check needs of the blob store beyond blob.Store. A store (or a
// wrapper around one) without them is still checked, with less to report.

// tempFiles is a blob store whose writes in progress, and what
// interrupted ones left, can be listed and removed (disk: tmp/). Without
// it the temp phase has nothing to check.
type tempFiles interface {
	// WalkTemp calls fn for every such file; Info.ID is its name there.
	WalkTemp(ctx context.Context, fn func(blob.Info) error) error
	// RemoveTemp removes one by the name WalkTemp reported.
	RemoveTemp(name string) error
}

// blobPaths is a blob store that names the file holding a blob, for
// reports; without it problems name no file.
type blobPaths interface {
	// Path names the file of blob id (a packed blob's pack); "" for an
	// ID the store would never make.
	Path(id string) string
}

// path names the file of blob id, or "" (blobPaths).
func (c *checker) path(id string) string {
	if p, ok := c.blobs.(blobPaths); ok {
		return p.Path(id)
	}
	return ""
}

// exists reports whether blob id opens.
func (c *checker) exists(ctx context.Context, id string) bool {
	r, err := c.blobs.Open(ctx, id)
	if err != nil {
		return false
	}
	r.Close()
	return true
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
	case Key:
		c.sum.KeyErrors++
	case Unverifiable:
		c.sum.Unverifiable++
	}
	if c.opts.Problem != nil {
		c.opts.Problem(p)
	}
}
