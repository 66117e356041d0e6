package cp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/s3client"
)

// CreateUpload starts a multipart upload with FULL_OBJECT CRC64NVME
// checksums, encrypted as enc asks, and returns its ID.
func (c *Client) CreateUpload(ctx context.Context, bucket, key string, enc Encryption) (string, error) {
	h := http.Header{"X-Amz-Checksum-Algorithm": {string(uploadAlgorithm)}, "X-Amz-Checksum-Type": {"FULL_OBJECT"}}
	enc.create(h)
	var x struct {
		UploadID string `xml:"UploadId"`
	}
	if _, err := c.doXML(ctx, request{method: http.MethodPost, bucket: bucket, key: key, header: h, query: url.Values{"uploads": {""}}}, &x); err != nil {
		return "", err
	}
	if x.UploadID == "" {
		return "", fmt.Errorf("CreateMultipartUpload %s: no upload ID in the answer", key)
	}
	return x.UploadID, nil
}

// UploadPart uploads part n (1-based) of size bytes from body with its
// CRC64NVME and returns the part's ETag; ck is the upload's SSE-C key
// (nil: none), which S3 wants with every part.
func (c *Client) UploadPart(ctx context.Context, bucket, key, uploadID string, n int, body func() (io.ReadCloser, error), size int64, crc string, ck []byte) (string, error) {
	h := http.Header{}
	customerHeaders(h, ssecPrefix, ck)
	h.Set(uploadAlgorithm.HeaderName(), crc)
	q := url.Values{"partNumber": {strconv.Itoa(n)}, "uploadId": {uploadID}}
	hdr, err := c.doXML(ctx, request{method: http.MethodPut, bucket: bucket, key: key, query: q, header: h, body: body, size: size, data: true}, nil)
	if err != nil {
		return "", err
	}
	etag := hdr.Get("ETag")
	if etag == "" {
		return "", fmt.Errorf("UploadPart %d: no ETag in the answer", n)
	}
	return etag, nil
}

// Part is an uploaded part, as ListParts tells it or as
// CompleteMultipartUpload names it.
type Part struct {
	Number int    `xml:"PartNumber"`
	ETag   string `xml:"ETag"`
	Size   int64  `xml:"Size"`
	// CRC is the part's CRC64NVME (base64), "" when it has none.
	CRC string `xml:"ChecksumCRC64NVME"`
}

// CompleteResult is CompleteMultipartUpload's answer.
type CompleteResult struct {
	ETag         string `xml:"ETag"`
	CRC          string `xml:"ChecksumCRC64NVME"`
	ChecksumType string `xml:"ChecksumType"`
}

// Complete completes an upload from parts (in part-number order) and asks
// the server to check the whole object's CRC64NVME, crc, and size; ck is
// the upload's SSE-C key (nil: none), which S3 wants when the upload has
// a checksum, as jog cp's have.
func (c *Client) Complete(ctx context.Context, bucket, key, uploadID string, parts []Part, crc string, size int64, ck []byte) (CompleteResult, error) {
	var b strings.Builder
	b.WriteString(`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for _, p := range parts {
		fmt.Fprintf(&b, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag><ChecksumCRC64NVME>%s</ChecksumCRC64NVME></Part>",
			p.Number, s3client.XMLEscape(p.ETag), s3client.XMLEscape(p.CRC))
	}
	b.WriteString(`</CompleteMultipartUpload>`)
	body := b.String()
	h := http.Header{"X-Amz-Checksum-Type": {"FULL_OBJECT"}, "X-Amz-Mp-Object-Size": {strconv.FormatInt(size, 10)}}
	h.Set(uploadAlgorithm.HeaderName(), crc)
	customerHeaders(h, ssecPrefix, ck)
	var res CompleteResult
	_, err := c.doXML(ctx, request{method: http.MethodPost, bucket: bucket, key: key, query: url.Values{"uploadId": {uploadID}}, header: h,
		body: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }, size: int64(len(body))}, &res)
	return res, err
}

// Abort aborts an upload.
func (c *Client) Abort(ctx context.Context, bucket, key, uploadID string) error {
	_, err := c.doXML(ctx, request{method: http.MethodDelete, bucket: bucket, key: key, query: url.Values{"uploadId": {uploadID}}}, nil)
	return err
}

// Upload is an upload in progress, as ListMultipartUploads tells it.
type Upload struct {
	Key               string    `xml:"Key"`
	UploadID          string    `xml:"UploadId"`
	Initiated         time.Time `xml:"Initiated"`
	ChecksumAlgorithm string    `xml:"ChecksumAlgorithm"`
	ChecksumType      string    `xml:"ChecksumType"`
}

// Uploads lists the uploads in progress for exactly key.
func (c *Client) Uploads(ctx context.Context, bucket, key string) ([]Upload, error) {
	q := url.Values{"uploads": {""}, "prefix": {key}}
	var out []Upload
	for {
		var x struct {
			Uploads            []Upload `xml:"Upload"`
			IsTruncated        bool     `xml:"IsTruncated"`
			NextKeyMarker      string   `xml:"NextKeyMarker"`
			NextUploadIDMarker string   `xml:"NextUploadIdMarker"`
		}
		if _, err := c.doXML(ctx, request{method: http.MethodGet, bucket: bucket, query: q}, &x); err != nil {
			return nil, err
		}
		for _, u := range x.Uploads {
			if u.Key == key {
				out = append(out, u)
			}
		}
		if !x.IsTruncated || x.NextKeyMarker == "" && x.NextUploadIDMarker == "" {
			return out, nil
		}
		q.Set("key-marker", x.NextKeyMarker)
		q.Set("upload-id-marker", x.NextUploadIDMarker)
	}
}

// Parts lists an upload's parts; ck is the upload's SSE-C key (nil:
// none).
func (c *Client) Parts(ctx context.Context, bucket, key, uploadID string, ck []byte) ([]Part, error) {
	q := url.Values{"uploadId": {uploadID}, "max-parts": {"1000"}}
	h := http.Header{}
	customerHeaders(h, ssecPrefix, ck)
	var out []Part
	for {
		var x struct {
			Parts                []Part `xml:"Part"`
			IsTruncated          bool   `xml:"IsTruncated"`
			NextPartNumberMarker int    `xml:"NextPartNumberMarker"`
		}
		if _, err := c.doXML(ctx, request{method: http.MethodGet, bucket: bucket, key: key, query: q, header: h}, &x); err != nil {
			return nil, err
		}
		out = append(out, x.Parts...)
		if !x.IsTruncated || x.NextPartNumberMarker == 0 {
			return out, nil
		}
		q.Set("part-number-marker", strconv.Itoa(x.NextPartNumberMarker))
	}
}

// Object is a listed object.
type Object struct {
	Key  string `xml:"Key"`
	Size int64  `xml:"Size"`
}

// List lists every object under prefix (ListObjectsV2), in key order.
func (c *Client) List(ctx context.Context, bucket, prefix string) ([]Object, error) {
	q := url.Values{"list-type": {"2"}, "prefix": {prefix}}
	var out []Object
	for {
		var x struct {
			Contents              []Object `xml:"Contents"`
			IsTruncated           bool     `xml:"IsTruncated"`
			NextContinuationToken string   `xml:"NextContinuationToken"`
		}
		if _, err := c.doXML(ctx, request{method: http.MethodGet, bucket: bucket, query: q}, &x); err != nil {
			return nil, err
		}
		out = append(out, x.Contents...)
		if !x.IsTruncated || x.NextContinuationToken == "" {
			return out, nil
		}
		q.Set("continuation-token", x.NextContinuationToken)
	}
}
