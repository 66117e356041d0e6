package s3api

import (
	"encoding/xml"
	"net/http"

	"github.com/jogstore/jog/internal/bucketrepl"
)

// Bucket replication's configuration (Put/Get/DeleteBucketReplication,
// internal/bucketrepl): stored and validated, each rule's destination
// resolved to a configured target (internal/bucketrepl/delivery delivers
// what the rules select); and JOG's resync of a bucket's versions.

func (h *Handler) putBucketReplication(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, bucketrepl.MaxDocument, true)
	if err != nil {
		return err
	}
	c, err := bucketrepl.ParseXML(body)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, h.svc.PutBucketReplication(r.Context(), r.route.Bucket, c))
}

func (h *Handler) getBucketReplication(w http.ResponseWriter, r *request) error {
	c, err := h.svc.GetBucketReplication(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, c)
}

func (h *Handler) deleteBucketReplication(w http.ResponseWriter, r *request) error {
	return answer(w, http.StatusNoContent, h.svc.DeleteBucketReplication(r.Context(), r.route.Bucket))
}

// replicationResync is the answer of Start/GetReplicationResync: the
// resync's progress (bucketrepl.Resync); Ended is absent while it runs.
type replicationResync struct {
	XMLName xml.Name `xml:"ReplicationResync"`
	Xmlns   string   `xml:"xmlns,attr"`
	Started string   `xml:"Started"`
	Ended   string   `xml:"Ended,omitempty"`
	After   string   `xml:"After,omitempty"`
	Scanned int64    `xml:"Scanned"`
	Queued  int64    `xml:"Queued"`
	Error   string   `xml:"Error,omitempty"`
}

func resyncAnswer(p bucketrepl.Resync) replicationResync {
	r := replicationResync{Xmlns: s3Namespace, Started: iso8601(p.Started), After: p.After,
		Scanned: p.Scanned, Queued: p.Queued, Error: p.Error}
	if !p.Ended.IsZero() {
		r.Ended = iso8601(p.Ended)
	}
	return r
}

// startReplicationResync starts (or finds running) the resync of the
// bucket's replication and answers its progress.
func (h *Handler) startReplicationResync(w http.ResponseWriter, r *request) error {
	p, err := h.svc.StartResync(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, resyncAnswer(p))
}

func (h *Handler) getReplicationResync(w http.ResponseWriter, r *request) error {
	p, err := h.svc.ResyncProgress(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, resyncAnswer(p))
}
