package s3api

import (
	"encoding/xml"
	"errors"
	"net/http"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// Server access logging (PutBucketLogging, GetBucketLogging): the
// configuration lives in the service (service.BucketLogging), the records
// are spooled and delivered by internal/bucketlog, an Observer of every
// request's Record. A target bucket takes logs only with its consent
// (service.Service.LogDeliveryAllowed: its policy allows the logging
// service, or its ACL the log delivery group), asked here and at every
// delivery; the root's configurations need none.

// bucketLoggingStatus is the document of Put/GetBucketLogging.
type bucketLoggingStatus struct {
	XMLName        xml.Name        `xml:"BucketLoggingStatus"`
	Xmlns          string          `xml:"xmlns,attr,omitempty"`
	LoggingEnabled *loggingEnabled `xml:"LoggingEnabled"`
}

type loggingEnabled struct {
	TargetBucket string  `xml:"TargetBucket"`
	TargetPrefix *string `xml:"TargetPrefix"`
	TargetGrants *struct {
		Grant []struct{} `xml:"Grant"`
	} `xml:"TargetGrants"`
	TargetObjectKeyFormat *struct {
		SimplePrefix      *struct{} `xml:"SimplePrefix"`
		PartitionedPrefix *struct{} `xml:"PartitionedPrefix"`
	} `xml:"TargetObjectKeyFormat"`
}

var (
	errInvalidTargetBucket = apiErr(http.StatusBadRequest, "InvalidTargetBucketForLogging",
		"The target bucket for logging does not exist")
	errTargetRefusesLogs = apiErr(http.StatusBadRequest, "InvalidTargetBucketForLogging",
		"You must either provide the necessary permissions to the logging service (logging.s3.amazonaws.com) "+
			"using a bucket policy or give the log-delivery group WRITE and READ_ACP permissions to the target bucket")
	errNoTargetGrants = notImplemented("TargetGrants are not implemented: log objects belong to the target bucket's owner.")
	errNoPartitioned  = notImplemented("PartitionedPrefix is not implemented: log objects are named TargetPrefix + date + unique string (SimplePrefix).")
)

// maxPrefix bounds TargetPrefix: a key prefix, so a key's length at most
// less the date and unique string the delivery appends.
const maxPrefix = service.MaxKeyLength - service.LogObjectSuffixLen

func (h *Handler) putBucketLogging(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var st bucketLoggingStatus
	if err := xml.Unmarshal(body, &st); err != nil {
		return errMalformedXML
	}
	b, err := h.svc.GetBucket(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	le := st.LoggingEnabled
	if le == nil { // an empty BucketLoggingStatus turns logging off
		return answer(w, http.StatusOK, h.svc.DeleteBucketLogging(r.Context(), r.route.Bucket))
	}
	if le.TargetBucket == "" || le.TargetPrefix == nil || len(*le.TargetPrefix) > maxPrefix {
		return errMalformedXML
	}
	if le.TargetGrants != nil && len(le.TargetGrants.Grant) > 0 {
		return errNoTargetGrants
	}
	if f := le.TargetObjectKeyFormat; f != nil && f.PartitionedPrefix != nil {
		return errNoPartitioned
	}
	l := service.BucketLogging{TargetBucket: le.TargetBucket, TargetPrefix: *le.TargetPrefix,
		Owner: ownerOf(b.Owner).ID, ByRoot: r.who.IsRoot()}
	// The target's consent, asked of a key as the delivery will write.
	key := service.LogObjectKey(l.TargetPrefix, time.Now(), "0000000000000000")
	switch ok, err := h.svc.LogDeliveryAllowed(r.Context(), h.authz, r.route.Bucket, l, key); {
	case errors.Is(err, meta.ErrBucketNotFound):
		return errInvalidTargetBucket
	case err != nil:
		return err
	case !ok:
		return errTargetRefusesLogs
	}
	return answer(w, http.StatusOK, h.svc.PutBucketLogging(r.Context(), r.route.Bucket, l))
}

func (h *Handler) getBucketLogging(w http.ResponseWriter, r *request) error {
	if _, err := h.svc.GetBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	st := bucketLoggingStatus{Xmlns: s3Namespace}
	l, err := h.svc.GetBucketLogging(r.Context(), r.route.Bucket)
	switch {
	case errors.Is(err, service.ErrNoBucketLogging):
	case err != nil:
		return err
	default:
		prefix := l.TargetPrefix
		st.LoggingEnabled = &loggingEnabled{TargetBucket: l.TargetBucket, TargetPrefix: &prefix}
	}
	return writeXML(w, http.StatusOK, st)
}

// CanonicalID is the canonical user ID S3 documents name accessKey's
// owner by (ACLs, ListBuckets' Owner, log records' requester).
func CanonicalID(accessKey string) string { return ownerOf(accessKey).ID }

// HostID is the x-amz-id-2 value sent with request ID id.
func HostID(id string) string { return hostID(id) }

// AppendLogOperation appends the operation as S3's server access log
// names it: REST.<method>.<resource> ("REST.GET.OBJECT", "REST.PUT.PART",
// "REST.GET.LOGGING_STATUS"); a copy's method is COPY.
func AppendLogOperation(b []byte, r *Record) []byte {
	method := "-"
	if r.Request != nil {
		method = r.Request.Method
	}
	res := operations[r.Op].log
	switch {
	case copies.has(r.Op):
		method = "COPY"
	case res == "" && r.Key != "":
		res = "OBJECT"
	case res == "":
		res = "BUCKET"
	}
	b = append(b, "REST."...)
	b = append(b, method...)
	b = append(b, '.')
	return append(b, res...)
}
