package notify

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Request is what an event says of the request that caused it: set in the
// request's context by the S3 edge (WithRequest), by the lifecycle worker
// for its removals.
type Request struct {
	ID, HostID  string // x-amz-request-id, x-amz-id-2
	PrincipalID string // the requester's access key ("" for anonymous)
	SourceIP    string
	// Post: the object is written by a browser-based upload (PostObject):
	// ObjectCreated:Post rather than :Put.
	Post bool
	// Lifecycle: the removal is the lifecycle worker's expiration
	// (LifecycleExpiration:* rather than ObjectRemoved:*).
	Lifecycle bool
}

type requestKey struct{}

// WithRequest returns ctx carrying r.
func WithRequest(ctx context.Context, r Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// RequestFrom returns the Request in ctx, the zero Request without one.
func RequestFrom(ctx context.Context) Request {
	r, _ := ctx.Value(requestKey{}).(Request)
	return r
}

// Source is what an event says of the bucket and object: for creations
// Size and ETag (without quotes), VersionID for versioned buckets; At is
// when the change was committed.
type Source struct {
	Region, Bucket, BucketOwner string
	Key                         string
	Size                        int64
	ETag, VersionID             string
	At                          time.Time
}

// NewEvent builds the record of event name on src, caused by req, for the
// configuration configID.
func NewEvent(name EventName, req Request, src Source, configID string) Event {
	created := strings.HasPrefix(string(name), "s3:ObjectCreated:")
	e := Event{
		EventVersion: "2.1", EventSource: "aws:s3", AWSRegion: src.Region,
		EventTime:         src.At.UTC().Format("2006-01-02T15:04:05.000Z"),
		EventName:         strings.TrimPrefix(string(name), "s3:"),
		UserIdentity:      Identity{PrincipalID: req.PrincipalID},
		RequestParameters: RequestParameters{SourceIPAddress: req.SourceIP},
		ResponseElements:  ResponseElements{RequestID: req.ID, HostID: req.HostID},
		S3: Entity{
			SchemaVersion: "1.0", ConfigurationID: configID,
			Bucket: Bucket{Name: src.Bucket, OwnerIdentity: Identity{PrincipalID: src.BucketOwner}, ARN: "arn:aws:s3:::" + src.Bucket},
			Object: Object{Key: EncodeKey(src.Key), VersionID: src.VersionID, Sequencer: Sequencer(src.At)},
		},
	}
	if created {
		size := src.Size
		e.S3.Object.Size, e.S3.Object.ETag = &size, src.ETag
	}
	return e
}

// EncodeKey is a key as S3 writes it in an event: URL-encoded as a form
// value (space as "+"), slashes kept.
func EncodeKey(key string) string {
	return strings.ReplaceAll(url.QueryEscape(key), "%2F", "/")
}

// Sequencer orders the events of one key: the commit time in nanoseconds
// as 16 upper-case hex digits, so later changes sort after earlier ones
// as strings.
func Sequencer(at time.Time) string {
	return fmt.Sprintf("%016X", at.UnixNano())
}
