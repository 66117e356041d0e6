package s3api

import (
	"bytes"
	"encoding/xml"
	"errors"
	"net/http"
	"strconv"
	"time"
)

const s3Namespace = "http://s3.amazonaws.com/doc/2006-03-01/"

// maxXMLBody caps request bodies parsed as XML.
const maxXMLBody = 4 << 20

type errorResponse struct {
	XMLName xml.Name `xml:"Error"`
	Code    string   `xml:"Code"`
	Message string   `xml:"Message"`
	// Method and ResourceType: a refused CORS preflight, as S3 sends it.
	Method       string `xml:"Method,omitempty"`
	ResourceType string `xml:"ResourceType,omitempty"`
	BucketName   string `xml:"BucketName,omitempty"`
	Key          string `xml:"Key,omitempty"`
	Resource     string `xml:"Resource"`
	RequestID    string `xml:"RequestId"`
	HostID       string `xml:"HostId"`
}

type owner struct {
	ID          string `xml:"ID"`
	DisplayName string `xml:"DisplayName"`
}

type listAllMyBucketsResult struct {
	XMLName   xml.Name     `xml:"ListAllMyBucketsResult"`
	Xmlns     string       `xml:"xmlns,attr"`
	Owner     owner        `xml:"Owner"`
	Buckets   []bucketInfo `xml:"Buckets>Bucket"`
	ContToken string       `xml:"ContinuationToken,omitempty"`
	Prefix    *string      `xml:"Prefix,omitempty"` // as sent, when sent
}

type bucketInfo struct {
	Name         string `xml:"Name"`
	CreationDate string `xml:"CreationDate"`
	BucketRegion string `xml:"BucketRegion,omitempty"`
}

type createBucketConfiguration struct {
	XMLName            xml.Name `xml:"CreateBucketConfiguration"`
	LocationConstraint string   `xml:"LocationConstraint"`
}

type locationConstraint struct {
	XMLName xml.Name `xml:"LocationConstraint"`
	Xmlns   string   `xml:"xmlns,attr"`
	Region  string   `xml:",chardata"`
}

type listEntry struct {
	Key          string `xml:"Key"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag"`
	Size         int64  `xml:"Size"`
	StorageClass string `xml:"StorageClass"`
	Owner        *owner `xml:"Owner,omitempty"`
}

type commonPrefix struct {
	Prefix string `xml:"Prefix"`
}

type listBucketResult struct {
	XMLName        xml.Name       `xml:"ListBucketResult"`
	Xmlns          string         `xml:"xmlns,attr"`
	Name           string         `xml:"Name"`
	Prefix         string         `xml:"Prefix"`
	Marker         *string        `xml:"Marker,omitempty"`
	NextMarker     string         `xml:"NextMarker,omitempty"`
	ContToken      string         `xml:"ContinuationToken,omitempty"`
	NextContToken  string         `xml:"NextContinuationToken,omitempty"`
	StartAfter     string         `xml:"StartAfter,omitempty"`
	KeyCount       *int           `xml:"KeyCount,omitempty"`
	MaxKeys        int            `xml:"MaxKeys"`
	Delimiter      string         `xml:"Delimiter,omitempty"`
	EncodingType   string         `xml:"EncodingType,omitempty"`
	IsTruncated    bool           `xml:"IsTruncated"`
	Contents       []listEntry    `xml:"Contents"`
	CommonPrefixes []commonPrefix `xml:"CommonPrefixes"`
}

type deleteRequest struct {
	XMLName xml.Name `xml:"Delete"`
	Quiet   bool     `xml:"Quiet"`
	Objects []deleteObject
}

type deleteObject struct {
	Key string `xml:"Key"`
	// VersionID is nil without a <VersionId>; an empty one names no
	// version.
	VersionID *string `xml:"VersionId"`
	// The conditions of a conditional delete, as DeleteObject's If-Match,
	// x-amz-if-match-last-modified-time and x-amz-if-match-size.
	ETag             string `xml:"ETag"`
	LastModifiedTime string `xml:"LastModifiedTime"`
	Size             string `xml:"Size"`
}

// UnmarshalXML decodes <Delete>, refusing more than maxDeleteObjects
// <Object> elements as soon as the next one starts: 4 MiB of "<Object/>"
// would otherwise expand into half a million structs.
func (d *deleteRequest) UnmarshalXML(dec *xml.Decoder, start xml.StartElement) error {
	if start.Name.Local != "Delete" {
		return errMalformedXML
	}
	d.XMLName = start.Name
	return decodeChildren(dec, func(t xml.StartElement) error {
		switch t.Name.Local {
		case "Quiet":
			return dec.DecodeElement(&d.Quiet, &t)
		case "Object":
			if len(d.Objects) == maxDeleteObjects {
				return errTooManyElements
			}
			var o deleteObject
			if err := dec.DecodeElement(&o, &t); err != nil {
				return err
			}
			d.Objects = append(d.Objects, o)
			return nil
		}
		return dec.Skip()
	})
}

// errTooManyElements stops decoding a request document that holds more
// list elements than its operation allows.
var errTooManyElements = errors.New("too many elements in the request document")

// decodeChildren calls child for each child element of the element whose
// start tag was just read, until its end tag. child must consume the
// element (DecodeElement or Skip).
func decodeChildren(dec *xml.Decoder, child func(xml.StartElement) error) error {
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := child(t); err != nil {
				return err
			}
		case xml.EndElement:
			return nil
		}
	}
}

type deletedEntry struct {
	Key                   string `xml:"Key"`
	VersionID             string `xml:"VersionId,omitempty"`
	DeleteMarker          bool   `xml:"DeleteMarker,omitempty"`
	DeleteMarkerVersionID string `xml:"DeleteMarkerVersionId,omitempty"`
}

type deleteError struct {
	Key       string `xml:"Key"`
	VersionID string `xml:"VersionId,omitempty"`
	Code      string `xml:"Code"`
	Message   string `xml:"Message"`
}

type deleteResult struct {
	XMLName xml.Name       `xml:"DeleteResult"`
	Xmlns   string         `xml:"xmlns,attr"`
	Deleted []deletedEntry `xml:"Deleted"`
	Errors  []deleteError  `xml:"Error"`
}

type copyObjectResult struct {
	XMLName      xml.Name `xml:"CopyObjectResult"`
	Xmlns        string   `xml:"xmlns,attr"`
	LastModified string   `xml:"LastModified"`
	ETag         string   `xml:"ETag"`
	checksumFields
	ChecksumType string `xml:"ChecksumType,omitempty"`
}

// writeXML writes a 200 (or status) response with an XML body.
// xmlWriterTo is a response that writes its own XML, the same bytes
// encoding/xml would (listxml.go).
type xmlWriterTo interface{ writeTo(*bytes.Buffer) }

func writeXML(w http.ResponseWriter, status int, v any) error {
	b := xmlBufs.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= 4<<20 {
			b.Reset()
			xmlBufs.Put(b)
		}
	}()
	b.Reset()
	b.WriteString(xml.Header)
	if fast, ok := v.(xmlWriterTo); ok {
		fast.writeTo(b)
	} else if err := xml.NewEncoder(b).Encode(v); err != nil {
		return err
	}
	// Whole, so it goes out with a Content-Length in as few writes as the
	// connection takes, not in chunks of the encoder's buffer.
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	if _, err := w.Write(b.Bytes()); err != nil {
		return errAfterHeader{err}
	}
	return nil
}

// readXML decodes a capped XML request body into v.
func readXML(r *http.Request, v any) error {
	body, err := readSmallBody(r, maxXMLBody, false)
	if err != nil {
		return err
	}
	if err := xml.Unmarshal(body, v); err != nil {
		return errMalformedXML
	}
	return nil
}

// errAfterHeader marks a failure after the status line was sent: nothing can
// be reported to the client any more, so the connection is aborted.
type errAfterHeader struct{ err error }

func (e errAfterHeader) Error() string { return "after response header: " + e.err.Error() }
func (e errAfterHeader) Unwrap() error { return e.err }

// iso8601 formats times as S3 listings do.
func iso8601(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
