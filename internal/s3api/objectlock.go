package s3api

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// Object lock: the bucket's configuration (?object-lock), each version's
// retention (?retention) and legal hold (?legal-hold), and the lock
// headers of object writes and reads. The store enforces the locks
// (meta.ObjectStore.DeleteObject); this file only speaks the wire.

type objectLockConfiguration struct {
	XMLName           xml.Name        `xml:"ObjectLockConfiguration"`
	Xmlns             string          `xml:"xmlns,attr,omitempty"`
	ObjectLockEnabled string          `xml:"ObjectLockEnabled,omitempty"`
	Rule              *objectLockRule `xml:"Rule,omitempty"`
}

type objectLockRule struct {
	DefaultRetention *defaultRetention `xml:"DefaultRetention"`
}

type defaultRetention struct {
	Mode  string `xml:"Mode,omitempty"`
	Days  *int   `xml:"Days,omitempty"`
	Years *int   `xml:"Years,omitempty"`
}

type objectRetention struct {
	XMLName         xml.Name `xml:"Retention"`
	Xmlns           string   `xml:"xmlns,attr,omitempty"`
	Mode            string   `xml:"Mode,omitempty"`
	RetainUntilDate string   `xml:"RetainUntilDate,omitempty"`
}

type objectLegalHold struct {
	XMLName xml.Name `xml:"LegalHold"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	Status  string   `xml:"Status"`
}

// The longest default retention S3 takes.
const (
	maxLockDays  = 36500
	maxLockYears = 100
)

var (
	errLockPeriod    = apiErr(http.StatusBadRequest, "InvalidArgument", "Default retention period must be a positive integer value.")
	errLockPeriodMax = apiErr(http.StatusBadRequest, "InvalidArgument", "Default retention period must not exceed 100 years (36500 days).")
	errLockMode      = apiErr(http.StatusBadRequest, "InvalidArgument", "Unknown wormMode directive.")
	errLockDate      = apiErr(http.StatusBadRequest, "InvalidArgument", "The retain until date must be provided in ISO 8601 format.")
	errLockBoth      = apiErr(http.StatusBadRequest, "InvalidArgument",
		"x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied.")
	errLegalHoldStatus = apiErr(http.StatusBadRequest, "InvalidArgument", "Legal Hold must be either of 'ON' or 'OFF'.")
)

func validMode(m string) bool { return m == meta.LockGovernance || m == meta.LockCompliance }

func (h *Handler) putObjectLockConfiguration(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var c objectLockConfiguration
	if err := xml.Unmarshal(body, &c); err != nil || c.ObjectLockEnabled != "Enabled" {
		return errMalformedXML
	}
	var lc service.LockConfig
	if c.Rule != nil {
		d := c.Rule.DefaultRetention
		if d == nil || (d.Days == nil) == (d.Years == nil) {
			return errMalformedXML
		}
		if !validMode(d.Mode) {
			return errMalformedXML
		}
		lc.Mode = d.Mode
		if d.Days != nil {
			lc.Days = *d.Days
		} else {
			lc.Years = *d.Years
		}
		if lc.Days <= 0 && lc.Years <= 0 {
			return errLockPeriod
		}
		// S3's bound (100 years), which also keeps every retain-until
		// date a default gives within what the store can hold.
		if lc.Days > maxLockDays || lc.Years > maxLockYears {
			return errLockPeriodMax
		}
	}
	if err := h.svc.PutObjectLockConfiguration(r.Context(), r.route.Bucket, lc); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getObjectLockConfiguration(w http.ResponseWriter, r *request) error {
	lc, err := h.svc.GetObjectLockConfiguration(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c := objectLockConfiguration{Xmlns: s3Namespace, ObjectLockEnabled: "Enabled"}
	if lc.Mode != "" {
		d := &defaultRetention{Mode: lc.Mode}
		if lc.Years > 0 {
			d.Years = &lc.Years
		} else {
			d.Days = &lc.Days
		}
		c.Rule = &objectLockRule{DefaultRetention: d}
	}
	return writeXML(w, http.StatusOK, c)
}

// bypassGovernance reports x-amz-bypass-governance-retention: true.
func bypassGovernance(h http.Header) bool {
	return strings.EqualFold(h.Get("X-Amz-Bypass-Governance-Retention"), "true")
}

// lockVersion answers errors of the lock calls on a version as S3 does: a
// delete marker named by versionId is 405, a missing version NoSuchVersion.
func lockVersion(w http.ResponseWriter, r *request, err error) error {
	version := r.query().Get("versionId")
	if dm := deleteMarkerError(w, err, version != ""); dm != nil {
		return dm
	}
	if version != "" && errors.Is(err, meta.ErrObjectNotFound) {
		return errNoSuchVersion
	}
	return err
}

func (h *Handler) putObjectRetention(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var c objectRetention
	if err := xml.Unmarshal(body, &c); err != nil || (c.Mode == "") != (c.RetainUntilDate == "") {
		return errMalformedXML
	}
	var l meta.ObjectLock
	if c.Mode != "" {
		if !validMode(c.Mode) {
			return errMalformedXML
		}
		until, err := time.Parse(time.RFC3339, c.RetainUntilDate)
		if err != nil {
			return errLockDate
		}
		l = meta.ObjectLock{Mode: c.Mode, RetainUntil: until.UTC()}
	}
	err = h.svc.PutObjectRetention(r.Context(), r.route.Bucket, r.route.Key, r.query().Get("versionId"), l, bypassGovernance(r.Header))
	if err != nil {
		return lockVersion(w, r, err)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getObjectRetention(w http.ResponseWriter, r *request) error {
	l, err := h.svc.GetObjectRetention(r.Context(), r.route.Bucket, r.route.Key, r.query().Get("versionId"))
	if err != nil {
		return lockVersion(w, r, err)
	}
	return writeXML(w, http.StatusOK, objectRetention{Xmlns: s3Namespace, Mode: l.Mode, RetainUntilDate: lockDate(l.RetainUntil)})
}

func (h *Handler) putObjectLegalHold(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var c objectLegalHold
	if err := xml.Unmarshal(body, &c); err != nil || (c.Status != "ON" && c.Status != "OFF") {
		return errMalformedXML
	}
	err = h.svc.PutObjectLegalHold(r.Context(), r.route.Bucket, r.route.Key, r.query().Get("versionId"), c.Status == "ON")
	if err != nil {
		return lockVersion(w, r, err)
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func (h *Handler) getObjectLegalHold(w http.ResponseWriter, r *request) error {
	on, err := h.svc.GetObjectLegalHold(r.Context(), r.route.Bucket, r.route.Key, r.query().Get("versionId"))
	if err != nil {
		return lockVersion(w, r, err)
	}
	return writeXML(w, http.StatusOK, objectLegalHold{Xmlns: s3Namespace, Status: onOff(on)})
}

func onOff(on bool) string {
	if on {
		return "ON"
	}
	return "OFF"
}

// lockDate renders a retain-until date as S3 does.
func lockDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// lockRequest parses the lock headers of PutObject and CopyObject.
func lockRequest(h http.Header) (service.LockRequest, error) {
	mode, date, hold := h.Get("X-Amz-Object-Lock-Mode"), h.Get("X-Amz-Object-Lock-Retain-Until-Date"), h.Get("X-Amz-Object-Lock-Legal-Hold")
	var req service.LockRequest
	if mode == "" && date == "" && hold == "" {
		return req, nil
	}
	req.Set = true
	if (mode == "") != (date == "") {
		return req, errLockBoth
	}
	if mode != "" {
		if !validMode(mode) {
			return req, errLockMode
		}
		until, err := time.Parse(time.RFC3339, date)
		if err != nil {
			return req, errLockDate
		}
		req.Lock.Mode, req.Lock.RetainUntil = mode, until.UTC().Truncate(time.Millisecond)
	}
	switch hold {
	case "":
	case "OFF":
		req.Lock.HoldSet = true
	case "ON":
		req.Lock.LegalHold, req.Lock.HoldSet = true, true
	default:
		return req, errLegalHoldStatus
	}
	return service.LockRequestOf(req.Lock), nil
}

// setLockHeaders sends a version's lock on GET and HEAD: nothing, and no
// query, on a bucket without object lock.
func (h *Handler) setLockHeaders(hdr http.Header, r *request, o meta.Object) error {
	l, err := h.svc.ObjectLockOf(r.Context(), r.route.Bucket, o.Key, o.VersionID)
	if err != nil || l.IsZero() {
		return err
	}
	if l.Mode != "" {
		hdr.Set("X-Amz-Object-Lock-Mode", l.Mode)
		hdr.Set("X-Amz-Object-Lock-Retain-Until-Date", lockDate(l.RetainUntil))
	}
	if l.HoldSet { // S3 sends no legal hold for a version that never had one
		hdr.Set("X-Amz-Object-Lock-Legal-Hold", onOff(l.LegalHold))
	}
	return nil
}
