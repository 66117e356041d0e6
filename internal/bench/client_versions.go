package bench

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// VersionsPage is one ListObjectVersions response.
type VersionsPage struct {
	Versions []ObjectVersion // versions and delete markers, in the listing's order
	// NextKeyMarker and NextVersionIDMarker continue the listing; both ""
	// on the last page.
	NextKeyMarker, NextVersionIDMarker string
	Received                           time.Duration // to the response's last byte, as ListPage.Received
}

// ObjectVersion is one entry of a ListObjectVersions page.
type ObjectVersion struct {
	Key, VersionID string
	DeleteMarker   bool
}

// ListObjectVersions lists one page of the versions and delete markers
// under prefix, continuing after keyMarker and versionIDMarker ("" for the
// first page).
func (c *Client) ListObjectVersions(ctx context.Context, bucket, prefix, keyMarker, versionIDMarker string, maxKeys int) (VersionsPage, error) {
	q := url.Values{"versions": {""}, "prefix": {prefix}, "max-keys": {strconv.Itoa(maxKeys)}}
	if keyMarker != "" {
		q.Set("key-marker", keyMarker)
		if versionIDMarker != "" {
			q.Set("version-id-marker", versionIDMarker)
		}
	}
	body, received, err := c.getListing(ctx, bucket, q)
	if err != nil {
		return VersionsPage{}, err
	}
	p, err := parseVersionsPage(body)
	p.Received = received
	return p, err
}

// DeleteVersion deletes one version (or delete marker) of key for good.
func (c *Client) DeleteVersion(ctx context.Context, bucket, key, versionID string) error {
	resp, _, err := c.do(ctx, request{method: http.MethodDelete, bucket: bucket, key: key, query: "versionId=" + url.QueryEscape(versionID)}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}

// EnableVersioning turns versioning on for bucket.
func (c *Client) EnableVersioning(ctx context.Context, bucket string) error {
	x := `<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>`
	resp, _, err := c.do(ctx, request{method: http.MethodPut, bucket: bucket, query: "versioning=", body: strings.NewReader(x), size: int64(len(x))}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}
