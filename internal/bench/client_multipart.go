package bench

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/s3client"
)

// CreateMultipartUpload starts an upload and returns its ID.
func (c *Client) CreateMultipartUpload(ctx context.Context, bucket, key string) (string, error) {
	resp, _, err := c.do(ctx, request{method: http.MethodPost, bucket: bucket, key: key, query: "uploads=", header: c.sse}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if _, err := c.drain(resp.Body, &buf); err != nil {
		return "", err
	}
	var x struct {
		UploadID string `xml:"UploadId"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &x); err != nil || x.UploadID == "" {
		return "", fmt.Errorf("CreateMultipartUpload: no upload ID in response (%v)", err)
	}
	return x.UploadID, nil
}

func uploadQuery(uploadID string) string { return "uploadId=" + url.QueryEscape(uploadID) }

// UploadPart uploads part number part (1-based): size bytes of key's payload
// starting at byte off. It returns the part's ETag.
func (c *Client) UploadPart(ctx context.Context, bucket, key, uploadID string, part int, off, size int64) (string, error) {
	resp, _, err := c.do(ctx, request{ //nolint:bodyclose // c.drain closes it
		method: http.MethodPut, bucket: bucket, key: key, size: size, data: true,
		query:   "partNumber=" + strconv.Itoa(part) + "&" + uploadQuery(uploadID),
		body:    c.payload.Reader(key, off, size),
		getBody: func() io.Reader { return c.payload.Reader(key, off, size) },
	})
	if err != nil {
		return "", err
	}
	etag := resp.Header.Get("ETag")
	if _, err := c.drain(resp.Body, nil); err != nil {
		return "", err
	}
	if etag == "" {
		return "", fmt.Errorf("UploadPart %d: no ETag in response", part)
	}
	return etag, nil
}

// CompleteMultipartUpload completes an upload from its parts' ETags, in
// part-number order.
func (c *Client) CompleteMultipartUpload(ctx context.Context, bucket, key, uploadID string, etags []string) error {
	var b strings.Builder
	b.WriteString(`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	for i, e := range etags {
		fmt.Fprintf(&b, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", i+1, s3client.XMLEscape(e))
	}
	b.WriteString(`</CompleteMultipartUpload>`)
	body := b.String()
	resp, _, err := c.do(ctx, request{ //nolint:bodyclose // c.drain closes it
		method: http.MethodPost, bucket: bucket, key: key, query: uploadQuery(uploadID),
		body: strings.NewReader(body), size: int64(len(body)),
		getBody: func() io.Reader { return strings.NewReader(body) },
	})
	if err != nil {
		return err
	}
	// S3 may answer 200 with an error document after a long complete.
	var buf bytes.Buffer
	if _, err := c.drain(resp.Body, &buf); err != nil {
		return err
	}
	return s3client.ErrorIn(resp.StatusCode, buf.Bytes())
}

// AbortMultipartUpload aborts an upload.
func (c *Client) AbortMultipartUpload(ctx context.Context, bucket, key, uploadID string) error {
	resp, _, err := c.do(ctx, request{method: http.MethodDelete, bucket: bucket, key: key, query: uploadQuery(uploadID)}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}
