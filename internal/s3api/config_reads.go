package s3api

import (
	"encoding/xml"
	"net/http"
)

// Bucket configurations JOG carries out none of — website hosting, transfer acceleration, requester pays,
// analytics, inventory, request metrics,
// intelligent-tiering — still have a state a client may read: none. Tools
// that read a bucket's whole state (Terraform's refresh, S3 browsers,
// backup tools) expect S3's answer for a bucket without the configuration,
// so the GETs answer exactly that; a PUT or DELETE of one stays 501
// NotImplemented (OpUnsupported): JOG never accepts what it does not do.

// emptyConfig is what S3 answers for a bucket without the configuration:
// an error, or a document.
type emptyConfig struct {
	err *APIError
	doc func(r *request) any
}

var (
	errNoWebsiteConfig = &APIError{"NoSuchWebsiteConfiguration",
		"The specified bucket does not have a website configuration", http.StatusNotFound}
	errNoSuchConfiguration = &APIError{"NoSuchConfiguration",
		"The specified configuration does not exist.", http.StatusNotFound}
)

// emptyConfigDoc is a configuration document without elements.
type emptyConfigDoc struct {
	XMLName xml.Name
	Xmlns   string `xml:"xmlns,attr"`
}

// requestPaymentConfiguration is GetBucketRequestPayment's document.
type requestPaymentConfiguration struct {
	XMLName xml.Name `xml:"RequestPaymentConfiguration"`
	Xmlns   string   `xml:"xmlns,attr"`
	Payer   string   `xml:"Payer"`
}

// configList is an empty page of a List…Configurations operation: never
// truncated; the continuation-token sent, if any, is echoed as the model
// says ("present if it was sent in the request") and changes nothing.
type configList struct {
	XMLName           xml.Name
	Xmlns             string `xml:"xmlns,attr"`
	IsTruncated       bool   `xml:"IsTruncated"`
	ContinuationToken string `xml:"ContinuationToken,omitempty"`
}

func emptyDoc(root string) func(*request) any {
	return func(*request) any { return emptyConfigDoc{XMLName: xml.Name{Local: root}, Xmlns: s3Namespace} }
}

// emptyList answers a List with root element root (the API reference's
// Response Syntax: the four differ).
func emptyList(root string) func(*request) any {
	return func(r *request) any {
		return configList{XMLName: xml.Name{Local: root}, Xmlns: s3Namespace,
			ContinuationToken: r.query().Get("continuation-token")}
	}
}

// emptyConfigs is, per configuration read (the operations table routes
// them: a GET of a bucketSubresources parameter), S3's answer for a bucket
// without the configuration.
var emptyConfigs = [numOps]emptyConfig{
	OpGetBucketWebsite:                 {err: errNoWebsiteConfig},
	OpGetBucketAccelerateConfiguration: {doc: emptyDoc("AccelerateConfiguration")}, // no Status: never set
	OpGetBucketRequestPayment: {doc: func(*request) any {
		return requestPaymentConfiguration{Xmlns: s3Namespace, Payer: "BucketOwner"}
	}},
	OpGetBucketAnalyticsConfiguration:            {err: errNoSuchConfiguration},
	OpGetBucketInventoryConfiguration:            {err: errNoSuchConfiguration},
	OpGetBucketMetricsConfiguration:              {err: errNoSuchConfiguration},
	OpGetBucketIntelligentTieringConfiguration:   {err: errNoSuchConfiguration},
	OpListBucketAnalyticsConfigurations:          {doc: emptyList("ListBucketAnalyticsConfigurationResult")},
	OpListBucketInventoryConfigurations:          {doc: emptyList("ListInventoryConfigurationsResult")},
	OpListBucketMetricsConfigurations:            {doc: emptyList("ListMetricsConfigurationsResult")},
	OpListBucketIntelligentTieringConfigurations: {doc: emptyList("ListBucketIntelligentTieringConfigurationsOutput")},
}

// getEmptyConfig serves every configuration read: NoSuchBucket for a
// bucket that does not exist, else the empty state.
func (h *Handler) getEmptyConfig(w http.ResponseWriter, r *request) error {
	if _, err := h.svc.GetBucket(r.Context(), r.route.Bucket); err != nil {
		return err
	}
	c := emptyConfigs[r.route.Op]
	if c.err != nil {
		return c.err
	}
	return writeXML(w, http.StatusOK, c.doc(r))
}
