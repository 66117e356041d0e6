package bucketlog

import (
	"context"
	"sync/atomic"

	"github.com/jogstore/jog/internal/iam/policy"
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
	// root caches the last root access key and its canonical ID: the
	// requester of most records, a hash to compute otherwise.
	root atomic.Pointer[[2]string]
}

var _ s3api.Observer = (*Logger)(nil)

// NewLogger returns the observer spooling records into spool.
func NewLogger(targets Targets, spool *Spool) *Logger {
	return &Logger{targets: targets, spool: spool}
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
	requester := ""
	if r.Principal.Type == policy.Root {
		if c := l.root.Load(); c != nil && c[0] == r.AccessKey {
			requester = c[1]
		} else {
			requester = Requester(r)
			l.root.Store(&[2]string{r.AccessKey, requester})
		}
	} else {
		requester = Requester(r)
	}
	l.spool.Append(t.TargetBucket, t.TargetPrefix, r.Bucket, func(b []byte) []byte {
		return AppendRecord(b, t.Owner, requester, r)
	})
}
