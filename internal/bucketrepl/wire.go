package bucketrepl

import (
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/s3doc"
)

// wireRule is a Rule as sent: every element as a list, so that a repeated
// one is refused rather than silently taking the last, and the elements
// JOG refuses are seen.
type wireRule struct {
	IDs          []string                  `xml:"ID"`
	Priorities   []string                  `xml:"Priority"`
	Prefixes     []string                  `xml:"Prefix"`
	Filters      []Filter                  `xml:"Filter"`
	Statuses     []string                  `xml:"Status"`
	Criteria     []SourceSelectionCriteria `xml:"SourceSelectionCriteria"`
	Existing     []Switch                  `xml:"ExistingObjectReplication"`
	Destinations []wireDestination         `xml:"Destination"`
	DeleteMarker []Switch                  `xml:"DeleteMarkerReplication"`
}

// wireDestination is a Destination as sent, with the elements JOG
// refuses.
type wireDestination struct {
	Buckets                  []string  `xml:"Bucket"`
	StorageClasses           []string  `xml:"StorageClass"`
	Account                  *string   `xml:"Account"`
	AccessControlTranslation *struct{} `xml:"AccessControlTranslation"`
	EncryptionConfiguration  *struct{} `xml:"EncryptionConfiguration"`
	ReplicationTime          *Switch   `xml:"ReplicationTime"`
	Metrics                  *Switch   `xml:"Metrics"`
}

// rule checks what only the wire form shows (repeated or refused elements)
// and returns the Rule.
func (w wireRule) rule() (Rule, error) {
	if len(w.IDs) > 1 || len(w.Priorities) > 1 || len(w.Prefixes) > 1 || len(w.Filters) > 1 || len(w.Statuses) > 1 ||
		len(w.Criteria) > 1 || len(w.Existing) > 1 || len(w.Destinations) != 1 || len(w.DeleteMarker) > 1 {
		return Rule{}, malformed("a rule repeats an element, or has no Destination")
	}
	d, err := w.Destinations[0].destination()
	if err != nil {
		return Rule{}, err
	}
	r := Rule{
		Destination:               d,
		ID:                        s3doc.Value(w.IDs),
		Status:                    s3doc.Value(w.Statuses),
		Prefix:                    s3doc.Ptr(w.Prefixes),
		Filter:                    s3doc.Ptr(w.Filters),
		SourceSelectionCriteria:   s3doc.Ptr(w.Criteria),
		ExistingObjectReplication: s3doc.Ptr(w.Existing),
		DeleteMarkerReplication:   s3doc.Ptr(w.DeleteMarker),
	}
	r.dropMinioBlanks()
	if len(w.Priorities) == 1 {
		p, err := strconv.Atoi(strings.TrimSpace(w.Priorities[0]))
		if err != nil {
			return Rule{}, malformed("Priority %q is not an integer", w.Priorities[0])
		}
		r.Priority = &p
	}
	return r, nil
}

// destination refuses what JOG cannot honour (package doc) and returns
// the Destination.
func (w wireDestination) destination() (Destination, error) {
	if len(w.Buckets) != 1 || len(w.StorageClasses) > 1 {
		return Destination{}, malformed("a Destination needs one Bucket and at most one StorageClass")
	}
	switch {
	case w.Account != nil || w.AccessControlTranslation != nil:
		return Destination{}, notImplemented("Destination Account and AccessControlTranslation are not implemented: JOG has no cross-account ownership to translate; replicas are owned by the target's credentials.")
	case w.EncryptionConfiguration != nil:
		return Destination{}, notImplemented("Destination EncryptionConfiguration is not implemented: replicas are encrypted as the destination bucket's default encryption says.")
	case w.ReplicationTime != nil && w.ReplicationTime.Status != Disabled:
		return Destination{}, notImplemented("ReplicationTime (S3 Replication Time Control) is not implemented: JOG promises no replication deadline. Send it Disabled or leave it out.")
	case w.Metrics != nil && w.Metrics.Status != Disabled:
		return Destination{}, notImplemented("Destination Metrics (S3's CloudWatch replication metrics) are not implemented: JOG reports replication on its own /metrics. Send Metrics Disabled or leave it out.")
	}
	d := Destination{Bucket: strings.TrimSpace(w.Buckets[0])}
	if len(w.StorageClasses) == 1 {
		d.StorageClass = strings.TrimSpace(w.StorageClasses[0])
	}
	return d, nil
}

// dropMinioBlanks reads as absent the empty elements minio-go's
// replication.Config marshals into every rule (`mc replicate import`,
// minio-go's SetBucketReplication): beside the Filter's one real
// predicate, an empty Prefix, an And without content and a Tag without
// Key; and a Status-less ExistingObjectReplication,
// DeleteMarkerReplication or SourceSelectionCriteria part. A Filter whose
// only predicate is an empty And is still refused, as S3 refuses it.
// (MinIO's own DeleteReplication element is not S3's and is ignored.)
func (r *Rule) dropMinioBlanks() {
	if f := r.Filter; f != nil {
		if f.And != nil && f.And.Prefix == nil && len(f.And.Tags) == 0 && (f.Prefix != nil || f.Tag != nil) {
			f.And = nil
		}
		if f.Tag != nil && *f.Tag == (Tag{}) && (f.Prefix != nil || f.And != nil) {
			f.Tag = nil
		}
		if f.Prefix != nil && *f.Prefix == "" && (f.And != nil || f.Tag != nil) {
			f.Prefix = nil
		}
	}
	blank := func(s *Switch) *Switch {
		if s != nil && strings.TrimSpace(s.Status) == "" {
			return nil
		}
		return s
	}
	r.ExistingObjectReplication = blank(r.ExistingObjectReplication)
	r.DeleteMarkerReplication = blank(r.DeleteMarkerReplication)
	if c := r.SourceSelectionCriteria; c != nil {
		c.SseKmsEncryptedObjects, c.ReplicaModifications = blank(c.SseKmsEncryptedObjects), blank(c.ReplicaModifications)
		if c.SseKmsEncryptedObjects == nil && c.ReplicaModifications == nil {
			r.SourceSelectionCriteria = nil
		}
	}
}
