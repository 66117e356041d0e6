// Package notify is S3 event notifications (PutBucketNotificationConfiguration):
// a bucket's configuration names targets the server is configured with
// (webhooks, NATS subjects) and the events each wants; the service emits
// an event for every object created or removed, once its change is
// committed; the events bound for a target are stored durably on this
// gateway's disk before the request is answered and delivered at least
// once, in order per target, retried until the target takes them.
//
// This file is the contract between the parts: the event record
// (S3's event message structure, version 2.1), the delivery of one event
// to one target, and the Queue the service hands deliveries to.
package notify

import "context"

// Event is one record of S3's event message structure (event version
// 2.1): what S3 sends in {"Records":[…]}.
type Event struct {
	EventVersion      string            `json:"eventVersion"` // "2.1"
	EventSource       string            `json:"eventSource"`  // "aws:s3"
	AWSRegion         string            `json:"awsRegion"`
	EventTime         string            `json:"eventTime"` // UTC, RFC 3339 with milliseconds
	EventName         string            `json:"eventName"` // without "s3:": "ObjectCreated:Put"
	UserIdentity      Identity          `json:"userIdentity"`
	RequestParameters RequestParameters `json:"requestParameters"`
	ResponseElements  ResponseElements  `json:"responseElements"`
	S3                Entity            `json:"s3"`
}

// Identity names a principal ("principalId").
type Identity struct {
	PrincipalID string `json:"principalId"`
}

// RequestParameters of the request that caused the event.
type RequestParameters struct {
	SourceIPAddress string `json:"sourceIPAddress"`
}

// ResponseElements: the request's IDs, as S3 answered them.
type ResponseElements struct {
	RequestID string `json:"x-amz-request-id"`
	HostID    string `json:"x-amz-id-2"`
}

// Entity is the "s3" element: the configuration that matched, the bucket
// and the object.
type Entity struct {
	SchemaVersion   string `json:"s3SchemaVersion"` // "1.0"
	ConfigurationID string `json:"configurationId"`
	Bucket          Bucket `json:"bucket"`
	Object          Object `json:"object"`
}

// Bucket of an event.
type Bucket struct {
	Name          string   `json:"name"`
	OwnerIdentity Identity `json:"ownerIdentity"`
	ARN           string   `json:"arn"` // arn:aws:s3:::<name>
}

// Object of an event. Key is URL-encoded as S3 sends it (space as "+").
// Size (set, 0 included, for creations: a pointer so that it is absent
// rather than 0 for removals) and ETag are absent for removals; VersionID when the bucket is
// versioned; Sequencer orders the events of one key (hex, comparable as
// strings of equal length after left-padding with zeros).
type Object struct {
	Key       string `json:"key"`
	Size      *int64 `json:"size,omitempty"`
	ETag      string `json:"eTag,omitempty"`
	VersionID string `json:"versionId,omitempty"`
	Sequencer string `json:"sequencer"`
}

// Message is what a target receives: one event per message, as S3 sends.
type Message struct {
	Records []Event `json:"Records"`
}

// Delivery is one event bound for one target, named by the target's ARN
// (arn:jog:sqs:<region>:<id>:webhook or …:nats, as the server's
// configuration defines them).
type Delivery struct {
	Target string `json:"target"`
	Event  Event  `json:"event"`
}

// Queue stores deliveries and delivers them. It is safe for concurrent use.
type Queue interface {
	// Enqueue returns once ds are stored durably on this gateway (fsync,
	// grouped with other requests' deliveries), so that an answered
	// request's events are delivered even after a crash. An error means
	// they may be lost; the caller logs and counts it.
	Enqueue(ctx context.Context, ds []Delivery) error
	// Target reports whether arn names a configured target.
	Target(arn string) bool
}
