package bucketrepl

import (
	"hash/fnv"
	"strconv"
)

// Ops of a Task.
const (
	// OpPut sends a version that exists on the source: an object's bytes
	// and metadata, or a delete marker (a DELETE without a version ID on
	// the destination).
	OpPut = "put"
	// OpDelete removes one version from the destination: the source's
	// DeleteObject with a version ID (sent to JOG destinations, which keep
	// version IDs; others answer with an error that ends the task).
	OpDelete = "delete"
)

// ReplicaHeader carries, on a replicated write or delete, the version ID
// the source gave the version: a JOG destination keeps it for a caller
// allowed s3:ReplicateObject (s3:ReplicateDelete for a delete) and marks
// the version REPLICA, which it never replicates onward. Other servers
// ignore the header and assign their own IDs.
const ReplicaHeader = "X-Jog-Replica-Version-Id"

// StatusHeader is S3's x-amz-replication-status, sent on GET and HEAD of a
// version that has a status (meta.Object.Replication).
const StatusHeader = "X-Amz-Replication-Status"

// Task is one change to replicate: a record of the replication queue
// (ADR 0031). It names the version, never its bytes: the sender reads the
// version from the store when it sends, so a version deleted meanwhile is
// skipped, and the status in its row says whether it is still owed.
type Task struct {
	Target    string `json:"t"`            // the target's name
	Bucket    string `json:"b"`            // the source bucket
	Key       string `json:"k"`            // the object's key
	VersionID string `json:"v"`            // the source version
	Op        string `json:"op"`           // OpPut or OpDelete
	Dest      string `json:"d"`            // the bucket on the target
	Size      int64  `json:"n,omitempty"`  // the version's bytes, for the metrics
	Queued    int64  `json:"at,omitempty"` // when it was queued, Unix nanoseconds: the lag
}

// Lanes is how many queues each target's tasks are spread over: a key's
// tasks always go to the same lane (LaneOf), which sends them one at a
// time, in order; different keys proceed in parallel. It is a constant: a
// queue written with another number of lanes would leave tasks in lanes
// nobody reads.
const Lanes = 16

// LaneOf is the lane of the tasks of key in bucket.
func LaneOf(bucket, key string) int {
	h := fnv.New32a()
	h.Write([]byte(bucket))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return int(h.Sum32() % Lanes)
}

// QueueName is the name of a target's lane in the replication queue:
// "TARGET/LANE" (a target name has no '/').
func QueueName(target string, lane int) string {
	return target + "/" + strconv.Itoa(lane)
}

// Rules is a bucket's configuration as the write path asks it: whether a
// new version of key (with its tags, when a rule filters on tags) is owed
// to a target, and which.
type Rules struct {
	Config
	tags bool // a rule filters on tags
}

// Compile readies c for the write path (nil when c has no Enabled rule).
func Compile(c Config) *Rules {
	r := &Rules{Config: c}
	on := false
	for _, rule := range c.Rules {
		if rule.Status != Enabled {
			continue
		}
		on = true
		if rule.Filter != nil && (rule.Filter.Tag != nil || rule.Filter.And != nil && len(rule.Filter.And.Tags) > 0) {
			r.tags = true
		}
	}
	if !on {
		return nil
	}
	return r
}

// NeedsTags reports whether a rule filters on tags: only then must a write
// parse its tags to Match.
func (r *Rules) NeedsTags() bool { return r != nil && r.tags }
