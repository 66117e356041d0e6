package s3api

import (
	"encoding/xml"
	"net/http"
	"net/textproto"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos"
)

// Throughput reservations (JOG extension; docs/QOS.md): bucket
// subresources, XML bodies in S3's style, JOG's own IAM actions
// (jog:CreateReservation, …) on the bucket.
//
//	POST   /{bucket}?reservations      create (body: reservationXML) → reservationXML
//	GET    /{bucket}?reservations      list → listReservationsResult
//	GET    /{bucket}?reservation={id}  show → reservationXML
//	DELETE /{bucket}?reservation={id}  cancel → 204

// reservationXML is a reservation on the wire. A request gives the rates,
// the window and optionally a Principal; the answer adds the rest.
type reservationXML struct {
	XMLName            xml.Name `xml:"Reservation"`
	Xmlns              string   `xml:"xmlns,attr,omitempty"`
	ID                 string   `xml:"Id,omitempty"`
	Bucket             string   `xml:"Bucket,omitempty"`
	ReadBytesPerSecond int64    `xml:"ReadBytesPerSecond"`
	WriteBytesPerSec   int64    `xml:"WriteBytesPerSecond"`
	RequestsPerSecond  int64    `xml:"RequestsPerSecond,omitempty"`
	Start              string   `xml:"Start"`
	End                string   `xml:"End"`
	Principal          string   `xml:"Principal,omitempty"`
	Owner              string   `xml:"Owner,omitempty"`
	CreationDate       string   `xml:"CreationDate,omitempty"`
	State              string   `xml:"State,omitempty"`
}

// listReservationsResult is ListReservations' answer: the bucket's
// reservations (expired ones included) and the server's capacity.
type listReservationsResult struct {
	XMLName      xml.Name         `xml:"ListReservationsResult"`
	Xmlns        string           `xml:"xmlns,attr,omitempty"`
	Bucket       string           `xml:"Bucket"`
	Capacity     capacityXML      `xml:"Capacity"`
	Reservations []reservationXML `xml:"Reservation"`
}

// capacityXML is the server's capacity; RequestsPerSecond only when a
// request capacity is configured.
type capacityXML struct {
	ReadBytesPerSecond  int64 `xml:"ReadBytesPerSecond"`
	WriteBytesPerSecond int64 `xml:"WriteBytesPerSecond"`
	RequestsPerSecond   int64 `xml:"RequestsPerSecond,omitempty"`
}

// errNoReservations answers the reservation routes of a server built
// without the service (no internal/qos wiring).
var errNoReservations = notImplemented("Throughput reservations are not enabled on this server.")

func (h *Handler) toReservationXML(r meta.Reservation) reservationXML {
	return reservationXML{
		ID: r.ID, Bucket: r.Bucket, ReadBytesPerSecond: r.ReadBPS, WriteBytesPerSec: r.WriteBPS,
		RequestsPerSecond: r.RequestsPerSecond, Start: r.Start.UTC().Format(time.RFC3339), End: r.End.UTC().Format(time.RFC3339),
		Principal: r.Principal, Owner: r.Owner, CreationDate: r.CreatedAt.UTC().Format(time.RFC3339),
		State: string(h.cfg.Reservations.State(r)),
	}
}

// writeReservation answers one reservation.
func (h *Handler) writeReservation(w http.ResponseWriter, res meta.Reservation) error {
	out := h.toReservationXML(res)
	out.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, out)
}

// parseWindowTime reads a Start or End: RFC 3339, to the second.
func parseWindowTime(name, v string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, apiErr(http.StatusBadRequest, "InvalidArgument", "%s must be an RFC 3339 time (2026-01-02T15:04:05Z), got %q.", name, v)
	}
	return t.UTC(), nil
}

func (h *Handler) createReservation(w http.ResponseWriter, r *request) error {
	if h.cfg.Reservations == nil {
		return errNoReservations
	}
	body, err := readSmallBody(r.Request, maxXMLBody, true)
	if err != nil {
		return err
	}
	var in reservationXML
	if err := xml.Unmarshal(body, &in); err != nil {
		return errMalformedXML
	}
	start, err := parseWindowTime("Start", in.Start)
	if err != nil {
		return err
	}
	end, err := parseWindowTime("End", in.End)
	if err != nil {
		return err
	}
	res, err := h.cfg.Reservations.Create(r.Context(), meta.Reservation{
		Bucket: r.route.Bucket, ReadBPS: in.ReadBytesPerSecond, WriteBPS: in.WriteBytesPerSec,
		RequestsPerSecond: in.RequestsPerSecond, Start: start, End: end,
		Owner: h.authz.ARN(r.who), Principal: in.Principal,
	})
	if err != nil {
		return err
	}
	return h.writeReservation(w, res)
}

func (h *Handler) listReservations(w http.ResponseWriter, r *request) error {
	if h.cfg.Reservations == nil {
		return errNoReservations
	}
	rs, err := h.cfg.Reservations.List(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c := h.cfg.Reservations.Capacity()
	out := listReservationsResult{Xmlns: s3Namespace, Bucket: r.route.Bucket,
		Capacity: capacityXML{ReadBytesPerSecond: c.Read, WriteBytesPerSecond: c.Write, RequestsPerSecond: c.Requests}}
	for _, res := range rs {
		out.Reservations = append(out.Reservations, h.toReservationXML(res))
	}
	return writeXML(w, http.StatusOK, out)
}

func (h *Handler) getReservation(w http.ResponseWriter, r *request) error {
	if h.cfg.Reservations == nil {
		return errNoReservations
	}
	res, err := h.cfg.Reservations.Get(r.Context(), r.route.Bucket, r.query().Get("reservation"))
	if err != nil {
		return err
	}
	return h.writeReservation(w, res)
}

func (h *Handler) deleteReservation(w http.ResponseWriter, r *request) error {
	if h.cfg.Reservations == nil {
		return errNoReservations
	}
	if err := h.cfg.Reservations.Delete(r.Context(), r.route.Bucket, r.query().Get("reservation")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// reservationOps are the operations that draw on a reservation: the
// object data moves (docs/QOS.md).
var reservationOps = opsWith(reserves)

// reservationHeaderKey is qos.Header as net/http keys it.
var reservationHeaderKey = textproto.CanonicalMIMEHeaderKey(qos.Header)

// presentReservation validates the reservation a request presents — by
// header, by query parameter, or bound to its principal — and keeps it on
// the request (request.reservation) for the data path's scheduler. A
// request that names one that is unknown, another bucket's, bound to
// another principal (qos.MayPresent), pending or expired is refused before
// anything is read or stored.
func (h *Handler) presentReservation(r *request) error {
	var id string
	if v := r.Header[reservationHeaderKey]; len(v) > 0 { // no canonicalising on every request
		id = v[0]
	}
	if id == "" && strings.Contains(r.URL.RawQuery, qos.Header) { // parse the query only then
		id = r.query().Get(qos.Header)
	}
	if !reservationOps.has(r.route.Op) || h.cfg.Reservations == nil {
		if id != "" { // presented where no bytes would be paced by it: not carried out
			return apiErr(http.StatusBadRequest, "InvalidArgument",
				"%s applies to GetObject, PutObject, UploadPart and UploadPartCopy, not %s.", qos.Header, r.route.Op)
		}
		return nil
	}
	if id != "" {
		res, err := h.cfg.Reservations.Active(r.Context(), r.route.Bucket, id)
		if err != nil {
			return err
		}
		if err := qos.MayPresent(res, h.authz.ARN(r.who), r.who.IsRoot()); err != nil {
			return err
		}
		r.reservation = &res
		return nil
	}
	if r.who.Type == policy.Anonymous || r.who.IsRoot() {
		return nil
	}
	res, ok, err := h.cfg.Reservations.Bound(r.Context(), r.route.Bucket, h.authz.ARN(r.who))
	if err != nil || !ok {
		return err
	}
	r.reservation = &res
	return nil
}
