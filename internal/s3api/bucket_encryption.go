package s3api

import (
	"encoding/xml"
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/sse"
)

// A bucket's default encryption (Put/Get/DeleteBucketEncryption): what a
// new object, upload or copy that asks for none is sealed with
// (service.encryptionFor). S3 allows one rule; so does JOG.

// encryptionConfiguration is the ServerSideEncryptionConfiguration
// document.
type encryptionConfiguration struct {
	XMLName xml.Name         `xml:"ServerSideEncryptionConfiguration"`
	Xmlns   string           `xml:"xmlns,attr,omitempty"`
	Rules   []encryptionRule `xml:"Rule"`
}

type encryptionRule struct {
	Default          *encryptionDefault `xml:"ApplyServerSideEncryptionByDefault"`
	BucketKeyEnabled *bool              `xml:"BucketKeyEnabled"`
}

type encryptionDefault struct {
	SSEAlgorithm   string `xml:"SSEAlgorithm"`
	KMSMasterKeyID string `xml:"KMSMasterKeyID,omitempty"`
}

// maxEncryptionBody bounds a ServerSideEncryptionConfiguration document:
// one rule is a few hundred bytes.
const maxEncryptionBody = 16 << 10

var errNotKMSAlgorithm = apiErr(http.StatusBadRequest, "InvalidArgument",
	"a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse")

// parseEncryptionConfiguration reads a PutBucketEncryption body: one rule
// with ApplyServerSideEncryptionByDefault (else MalformedXML), its
// SSEAlgorithm AES256 or aws:kms (else InvalidArgument), a KMS key only
// with aws:kms.
func parseEncryptionConfiguration(body []byte) (sse.BucketDefault, error) {
	var doc encryptionConfiguration
	if err := xml.Unmarshal(body, &doc); err != nil || len(doc.Rules) != 1 || doc.Rules[0].Default == nil {
		return sse.BucketDefault{}, errMalformedXML
	}
	rule := doc.Rules[0]
	d := sse.BucketDefault{Mode: strings.TrimSpace(rule.Default.SSEAlgorithm)}
	if d.Mode != sse.ModeS3 && d.Mode != sse.ModeKMS {
		return sse.BucketDefault{}, errSSEMethod
	}
	if id := strings.TrimSpace(rule.Default.KMSMasterKeyID); id != "" {
		if d.Mode != sse.ModeKMS {
			return sse.BucketDefault{}, errNotKMSAlgorithm
		}
		var err error
		if d.KeyID, err = parseKMSKeyID(id); err != nil {
			return sse.BucketDefault{}, err
		}
	}
	d.BucketKey = rule.BucketKeyEnabled != nil && *rule.BucketKeyEnabled && d.Mode == sse.ModeKMS
	return d, nil
}

func (h *Handler) putBucketEncryption(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxEncryptionBody, true)
	if err != nil {
		return err
	}
	d, err := parseEncryptionConfiguration(body)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, h.svc.PutBucketEncryption(r.Context(), r.route.Bucket, d))
}

func (h *Handler) getBucketEncryption(w http.ResponseWriter, r *request) error {
	d, err := h.svc.GetBucketEncryption(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	rule := encryptionRule{Default: &encryptionDefault{SSEAlgorithm: d.Mode}, BucketKeyEnabled: &d.BucketKey}
	if d.Mode == sse.ModeKMS && d.KeyID != "" {
		rule.Default.KMSMasterKeyID = h.kmsKeyARN(d.KeyID)
	}
	return writeXML(w, http.StatusOK, encryptionConfiguration{Xmlns: s3Namespace, Rules: []encryptionRule{rule}})
}

func (h *Handler) deleteBucketEncryption(w http.ResponseWriter, r *request) error {
	return answer(w, http.StatusNoContent, h.svc.DeleteBucketEncryption(r.Context(), r.route.Bucket))
}
