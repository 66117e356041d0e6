package bucketlog

import (
	"context"
	"sync"

	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/service"
)

// Targets says where a bucket's records go: service.BucketLoggingOf,
// cached (nil: logging off).
type Targets interface {
	BucketLoggingOf(ctx context.Context, bucket string) (*service.BucketLogging, error)
}

// Logger is the s3api.Observer of server access logging: a request on a
// bucket with logging enabled has its record spooled.
type Logger struct {
	targets Targets
	spool   *Spool
	bufs    sync.Pool
}

var _ s3api.Observer = (*Logger)(nil)

// NewLogger returns the observer spooling records into spool.
func NewLogger(targets Targets, spool *Spool) *Logger {
	l := &Logger{targets: targets, spool: spool}
	l.bufs.New = func() any { b := make([]byte, 0, 1024); return &b }
	return l
}

// Observe implements s3api.Observer.
func (l *Logger) Observe(r *s3api.Record) {
	if r.Bucket == "" {
		return
	}
	// Not the request's context: it may end with the response, and the
	// lookup is a cached one.
	t, err := l.targets.BucketLoggingOf(context.Background(), r.Bucket)
	if err != nil || t == nil {
		return
	}
	bp := l.bufs.Get().(*[]byte)
	line := AppendRecord((*bp)[:0], t.Owner, r)
	l.spool.Append(t.TargetBucket, t.TargetPrefix, r.Bucket, line)
	if cap(line) <= 64<<10 {
		*bp = line
		l.bufs.Put(bp)
	}
}
