package s3api

import (
	"strings"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/service"
)

// replicaOps are the operations a replicating source sends with
// bucketrepl.ReplicaHeader: the version it writes, completes or deletes
// keeps the source's version ID.
var replicaOps = opsOf(OpPutObject, OpCompleteMultipartUpload, OpDeleteObject)

// replicaActions are the actions a request carrying
// bucketrepl.ReplicaHeader needs besides its operation's (headerActions):
// S3's s3:ReplicateObject for a write, s3:ReplicateDelete for a delete.
func replicaActions(op Op, acts []string) []string {
	switch op {
	case OpDeleteObject:
		return append(acts, "s3:ReplicateDelete")
	case OpPutObject, OpCompleteMultipartUpload:
		return append(acts, "s3:ReplicateObject")
	}
	return acts
}

// withReplica puts the version ID a replicating source sent
// (bucketrepl.ReplicaHeader, authorized by headerActions) in r's context
// for the service (service.WithReplica). An ID this server could not have
// made is refused: 400 InvalidArgument.
func (h *Handler) withReplica(r *request) error {
	if !replicaOps.has(r.route.Op) {
		return nil
	}
	v := r.Header.Get(bucketrepl.ReplicaHeader)
	if v == "" {
		return nil
	}
	if !service.ValidVersionID(v) || v == "null" || strings.TrimSpace(v) != v {
		return errInvalidReplicaVersion
	}
	r.Request = r.Request.WithContext(service.WithReplica(r.Context(), v))
	return nil
}
