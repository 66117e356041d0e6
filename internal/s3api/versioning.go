package s3api

import (
	"encoding/xml"
	"errors"
	"net/http"

	"github.com/jogstore/jog/internal/meta"
)

// versioningConfiguration is the document of Put/GetBucketVersioning.
type versioningConfiguration struct {
	XMLName   xml.Name `xml:"VersioningConfiguration"`
	Xmlns     string   `xml:"xmlns,attr,omitempty"`
	Status    string   `xml:"Status,omitempty"`
	MfaDelete string   `xml:"MfaDelete,omitempty"`
}

var errNoMFADelete = notImplemented("MFA delete is not implemented.")

func (h *Handler) putBucketVersioning(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var c versioningConfiguration
	if err := xml.Unmarshal(body, &c); err != nil {
		return errMalformedXML
	}
	if c.MfaDelete != "" {
		if c.MfaDelete != "Enabled" && c.MfaDelete != "Disabled" {
			return errMalformedXML
		}
		if c.MfaDelete == "Enabled" {
			return errNoMFADelete
		}
	}
	if c.Status != meta.VersioningEnabled && c.Status != meta.VersioningSuspended {
		return errMalformedXML
	}
	if err := h.svc.PutBucketVersioning(r.Context(), r.route.Bucket, c.Status); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getBucketVersioning(w http.ResponseWriter, r *request) error {
	state, err := h.svc.GetBucketVersioning(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, versioningConfiguration{Xmlns: s3Namespace, Status: state})
}

// setVersionHeader sends x-amz-version-id for versionID of an object in
// the route's bucket, where S3 does (Service.VersionHeader).
func (h *Handler) setVersionHeader(w http.ResponseWriter, r *request, versionID string) {
	if v := h.svc.VersionHeader(r.Context(), r.route.Bucket, versionID); v != "" {
		w.Header().Set("X-Amz-Version-Id", v)
	}
}

// deleteMarkerError answers a read whose version is a delete marker: 404
// NoSuchKey for the latest, 405 MethodNotAllowed for one named by
// versionId, each with x-amz-delete-marker, the marker's version and its
// Last-Modified, as S3 answers. It returns nil when err is not about a
// delete marker.
func deleteMarkerError(w http.ResponseWriter, err error, named bool) error {
	var dm *meta.DeleteMarkerError
	if !errors.As(err, &dm) {
		return nil
	}
	h := w.Header()
	h.Set("X-Amz-Delete-Marker", "true")
	h.Set("X-Amz-Version-Id", dm.VersionID)
	h.Set("Last-Modified", dm.LastModified.UTC().Format(http.TimeFormat))
	if named {
		return markerAnswer{errMethodNotAllowed}
	}
	return markerAnswer{err}
}

// markerAnswer is an error about a delete marker whose headers
// deleteMarkerError has set: writeError keeps its Last-Modified.
type markerAnswer struct{ error }

func (m markerAnswer) Unwrap() error { return m.error }

// listVersionsResult is ListObjectVersions' response. Versions and delete
// markers are one sequence in S3's order, so they are written as such.
type listVersionsResult struct {
	XMLName             xml.Name       `xml:"ListVersionsResult"`
	Xmlns               string         `xml:"xmlns,attr"`
	Name                string         `xml:"Name"`
	Prefix              string         `xml:"Prefix"`
	KeyMarker           string         `xml:"KeyMarker"`
	VersionIDMarker     string         `xml:"VersionIdMarker"`
	NextKeyMarker       string         `xml:"NextKeyMarker,omitempty"`
	NextVersionIDMarker string         `xml:"NextVersionIdMarker,omitempty"`
	MaxKeys             int            `xml:"MaxKeys"`
	Delimiter           string         `xml:"Delimiter,omitempty"`
	EncodingType        string         `xml:"EncodingType,omitempty"`
	IsTruncated         bool           `xml:"IsTruncated"`
	Entries             []versionEntry `xml:",any"`
	CommonPrefixes      []commonPrefix `xml:"CommonPrefixes"`
}

// versionEntry is a <Version> or a <DeleteMarker>.
type versionEntry struct {
	XMLName      xml.Name
	Key          string `xml:"Key"`
	VersionID    string `xml:"VersionId"`
	IsLatest     bool   `xml:"IsLatest"`
	LastModified string `xml:"LastModified"`
	ETag         string `xml:"ETag,omitempty"`
	Size         *int64 `xml:"Size,omitempty"`
	StorageClass string `xml:"StorageClass,omitempty"`
	Owner        owner  `xml:"Owner"`
}

func (h *Handler) listObjectVersions(w http.ResponseWriter, r *request) error {
	q := r.query()
	p, err := parseListParams(q)
	if err != nil {
		return err
	}
	keyMarker, versionMarker := q.Get("key-marker"), q.Get("version-id-marker")
	if versionMarker != "" && keyMarker == "" {
		return apiErr(http.StatusBadRequest, "InvalidArgument", "A version-id marker cannot be specified without a key marker.")
	}
	var page meta.VersionsPage
	if p.maxKeys == 0 {
		_, err = h.svc.GetBucket(r.Context(), r.route.Bucket)
	} else {
		page, err = h.svc.ListObjectVersions(r.Context(), r.route.Bucket, meta.ListVersionsOptions{
			Prefix: p.prefix, Delimiter: p.delimiter, KeyMarker: keyMarker, VersionIDMarker: versionMarker, Limit: p.maxKeys,
		})
	}
	if err != nil {
		return err
	}
	res := listVersionsResult{
		Xmlns: s3Namespace, Name: r.route.Bucket, Prefix: p.enc(p.prefix), KeyMarker: p.enc(keyMarker),
		VersionIDMarker: versionMarker, MaxKeys: p.maxKeys, Delimiter: p.enc(p.delimiter),
		EncodingType: p.encoding, IsTruncated: page.Truncated,
	}
	if page.Truncated {
		res.NextKeyMarker, res.NextVersionIDMarker = p.enc(page.NextKeyMarker), page.NextVersionIDMarker
	}
	res.Entries = make([]versionEntry, 0, len(page.Versions))
	for _, v := range page.Versions {
		e := versionEntry{
			XMLName: xml.Name{Local: "Version"}, Key: p.enc(v.Key), VersionID: v.VersionID, IsLatest: v.IsLatest,
			LastModified: iso8601(v.LastModified), Owner: ownerOf(v.Owner),
		}
		if v.DeleteMarker {
			e.XMLName.Local = "DeleteMarker"
		} else {
			size := v.Size
			e.ETag, e.Size, e.StorageClass = `"`+v.ETag+`"`, &size, storageClass(v.StorageClass)
		}
		res.Entries = append(res.Entries, e)
	}
	for _, cp := range page.CommonPrefixes {
		res.CommonPrefixes = append(res.CommonPrefixes, commonPrefix{Prefix: p.enc(cp)})
	}
	return writeXML(w, http.StatusOK, res)
}
