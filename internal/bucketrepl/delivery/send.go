package delivery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/s3client"
)

// Outcomes of a task.
const (
	outcomeSent    = "sent"    // the target took the version
	outcomeDeleted = "deleted" // a delete marker or a version delete went
	outcomeSkipped = "skipped" // nothing was owed any more
	outcomeFailed  = "failed"  // marked FAILED: the target refused it for good
)

// laneSender sends one lane of one target's tasks (durq.Sender): durq
// calls Send with a lane's tasks one at a time, in order, again and again
// for a task until Send returns nil.
type laneSender struct {
	rq   *Queue
	t    *target
	lane int
	// tries counts the attempts of the task in hand that failed for good
	// (a 4xx answer): at t.attempts its version is marked FAILED.
	tries int
}

// Send delivers one task (a durq record): nil when it is done — sent,
// skipped, or marked FAILED — and an error to be tried again after a
// backoff.
func (l *laneSender) Send(ctx context.Context, record []byte) error {
	var task bucketrepl.Task
	if err := json.Unmarshal(record, &task); err != nil {
		l.rq.log.Error("bucket replication: unreadable task skipped", "target", l.t.name, "err", err)
		return nil
	}
	l.t.begin(l.lane, task.Queued)
	outcome, err := l.deliver(ctx, task)
	if err == nil {
		l.tries = 0
		l.t.end(l.lane, task, outcome)
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if errors.Is(err, errNotDeleted) { // not the target's failure
		if l.tries++; l.tries >= l.t.attempts {
			l.tries = 0
			l.t.end(l.lane, task, outcomeSkipped)
			return nil
		}
		return err
	}
	if permanent(err) {
		l.tries++
		if l.tries >= l.t.attempts {
			l.tries = 0
			l.rq.log.Error("bucket replication: version FAILED (the target refused it; `jog admin replication resync` tries again)",
				"target", l.t.name, "bucket", task.Bucket, "key", task.Key, "version", task.VersionID, "err", err)
			if task.Op == bucketrepl.OpPut {
				if _, err := l.rq.src.SetReplication(ctx, task.Bucket, task.Key, task.VersionID, meta.ReplicationPending, meta.ReplicationFailed); err != nil {
					l.t.attemptFailed(l.lane, err)
					return err
				}
			}
			l.t.end(l.lane, task, outcomeFailed)
			return nil
		}
	}
	l.t.attemptFailed(l.lane, err)
	return err
}

// deliver sends task once.
func (l *laneSender) deliver(ctx context.Context, task bucketrepl.Task) (string, error) {
	src := l.rq.src
	if task.Op == bucketrepl.OpDelete {
		// Queued before the delete committed: sent once the version is
		// gone from the source; one still there after the attempts (the
		// delete failed) is not removed from the target.
		_, err := src.HeadObject(ctx, task.Bucket, task.Key, task.VersionID, false)
		var dm *meta.DeleteMarkerError
		switch {
		case err == nil || errors.As(err, &dm):
			return "", errNotDeleted
		case !errors.Is(err, meta.ErrObjectNotFound) && !errors.Is(err, meta.ErrBucketNotFound):
			return "", err
		}
		err = l.remove(ctx, task.Dest, task.Key, task.VersionID, task.VersionID)
		var e *s3client.Error
		if errors.As(err, &e) && e.Status >= 400 && e.Status < 500 { // not a JOG target: its IDs differ
			return outcomeSkipped, nil
		}
		return outcomeDeleted, err
	}
	// Still owed? A version sent before a crash, or queued twice (by the
	// sweep and an adopted queue, by two resyncs), is COMPLETED; a version
	// removed is gone. The row read to open the version says (a delete
	// marker's, which opens as an error, is read by a compare-and-set that
	// changes nothing).
	o, r, err := src.OpenObject(ctx, task.Bucket, task.Key, task.VersionID, nil)
	if err == nil && o.Replication != meta.ReplicationPending {
		r.Close()
		return outcomeSkipped, nil
	}
	var dm *meta.DeleteMarkerError
	outcome := outcomeSent
	switch {
	case errors.As(err, &dm):
		owed, serr := src.SetReplication(ctx, task.Bucket, task.Key, task.VersionID, meta.ReplicationPending, meta.ReplicationPending)
		if serr != nil || !owed {
			return outcomeSkipped, ignoreGone(serr)
		}
		outcome, err = outcomeDeleted, l.remove(ctx, task.Dest, task.Key, "", task.VersionID)
	case errors.Is(err, meta.ErrObjectNotFound), errors.Is(err, meta.ErrBucketNotFound):
		return outcomeSkipped, nil
	case err != nil:
		if errors.Is(err, kms.ErrSSECRequired) {
			return "", permanentError{fmt.Errorf("an SSE-C object cannot be replicated: the server does not keep its key")}
		}
		return "", err
	default:
		defer r.Close()
		err = l.put(ctx, task, o, r)
	}
	if err != nil {
		return "", err
	}
	if _, err := src.SetReplication(ctx, task.Bucket, task.Key, task.VersionID, meta.ReplicationPending, meta.ReplicationCompleted); err != nil {
		return "", err
	}
	return outcome, nil
}

// remove sends a DELETE of key (of version versionID, or a delete marker
// when "") to the target's bucket dest; source is the version it
// replicates, which a JOG target keeps as the marker's ID.
func (l *laneSender) remove(ctx context.Context, dest, key, versionID, source string) error {
	var q url.Values
	h := http.Header{bucketrepl.ReplicaHeader: {source}}
	if versionID != "" {
		q = url.Values{"versionId": {versionID}}
	}
	resp, err := l.t.client.Send(ctx, http.MethodDelete, dest, key, q, h, nil, 0)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// errNotDeleted: a version delete's task found the version still on the
// source (its delete has not committed yet, or failed).
var errNotDeleted = errors.New("the version is still on the source")

// permanentError is a failure no retry will change.
type permanentError struct{ error }

func (e permanentError) Unwrap() error { return e.error }

// permanent reports whether err is an answer that will not change by
// itself: a 4xx but 408 and 429 (the destination bucket missing, access
// denied, a request the target refuses).
func permanent(err error) bool {
	var p permanentError
	if errors.As(err, &p) {
		return true
	}
	var e *s3client.Error
	if errors.As(err, &e) {
		return e.Status >= 400 && e.Status < 500 && e.Status != http.StatusRequestTimeout && e.Status != http.StatusTooManyRequests
	}
	return false
}

// ignoreGone makes a missing bucket no error: its tasks have nothing to
// send.
func ignoreGone(err error) error {
	if errors.Is(err, meta.ErrBucketNotFound) {
		return nil
	}
	return err
}
