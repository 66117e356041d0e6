package cp

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/s3client"
)

// Options tune a Copier.
type Options struct {
	// PartSize is the multipart part and download range size (0:
	// DefaultPartSize, grown to fit MaxParts). An object up to one part
	// goes in one PUT or one GET.
	PartSize int64
	// Streams bounds the requests in flight at once, over all files
	// (0: DefaultStreams).
	Streams int
	// Resume continues an interrupted upload of the same key: the newest
	// upload in progress, its parts reused where their size and CRC match
	// the local file's.
	Resume bool
	// NoFsync skips the fsync of a downloaded file before its rename.
	NoFsync bool
	// Encryption is the server-side encryption of the objects written, and
	// the SSE-C keys of the objects read.
	Encryption Encryption
	// Progress counts the bytes (nil: none).
	Progress *Progress
	// Log receives notices: an upload kept for --resume, an object that
	// could not be verified (nil: discarded).
	Log io.Writer
}

// Copier copies files to and from one S3 endpoint.
type Copier struct {
	c    *Client
	opts Options
	// slots holds a token per request in flight: the streams are shared
	// by every file of a recursive copy.
	slots chan struct{}
	bufs  sync.Pool // *[]byte of bufSize
	// sleep waits between tries of a request (tests make it instant).
	sleep func(ctx context.Context, d time.Duration) error
	tally tally
}

// bufSize is the read size of a download and of hashing a file: large
// reads keep the per-call costs off the byte rate.
const bufSize = 1 << 20

// New returns a Copier over c.
func New(c *Client, opts Options) *Copier {
	if opts.Streams <= 0 {
		opts.Streams = DefaultStreams
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	cp := &Copier{c: c, opts: opts, slots: make(chan struct{}, opts.Streams), sleep: s3client.Sleep}
	cp.bufs.New = func() any { b := make([]byte, bufSize); return &b }
	return cp
}

// acquire takes a request slot, or fails when ctx ends first.
func (cp *Copier) acquire(ctx context.Context) error {
	select {
	case cp.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (cp *Copier) release() { <-cp.slots }

// requests runs request(i) for i in [0, n) in parallel, each holding one
// of the Copier's request slots and retried when it fails transiently, and
// returns the first error.
func (cp *Copier) requests(ctx context.Context, n int, request func(ctx context.Context, i int) error) error {
	return parallel(ctx, n, cp.opts.Streams, func(ctx context.Context, i int) error {
		if err := cp.acquire(ctx); err != nil {
			return err
		}
		defer cp.release()
		return cp.retry(ctx, func() error { return request(ctx, i) })
	})
}

// parallel runs job(i) for i in [0, n) on up to workers goroutines and
// returns the first error; after an error no new job starts.
func parallel(ctx context.Context, n, workers int, job func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, max(workers, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := job(ctx, i); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// Location is one side of a copy: a local path, or an S3 bucket and key
// (or key prefix).
type Location struct {
	Bucket, Key string
	Path        string
}

// IsS3 reports whether l is in S3.
func (l Location) IsS3() bool { return l.Bucket != "" }

func (l Location) String() string {
	if l.IsS3() {
		return "s3://" + l.Bucket + "/" + l.Key
	}
	return l.Path
}

// ParseLocation reads s3://bucket/key (or s3://bucket, s3://bucket/prefix/)
// or a local path.
func ParseLocation(s string) (Location, error) {
	rest, ok := strings.CutPrefix(s, "s3://")
	if !ok {
		if s == "" {
			return Location{}, fmt.Errorf("empty path")
		}
		return Location{Path: s}, nil
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" {
		return Location{}, fmt.Errorf("%q names no bucket", s)
	}
	return Location{Bucket: bucket, Key: key}, nil
}
