package s3api

import (
	"io"

	"github.com/jogstore/jog/internal/qos/sched"
	"github.com/jogstore/jog/internal/service"
)

// The data path's scheduler (docs/QOS.md) is applied here and only here:
// uploadBody wraps PutObject's and UploadPart's bodies and postObject the
// form's file (scheduledUpload), getObject the writer the body is copied
// to (scheduledDownload), and copyObject and uploadPartCopy the copied
// bytes (scheduledCopy). A request's flow is the
// reservation it presents (request.reservation), or best effort under its
// principal. In the byte directions a reservation of requests alone
// covers the first sched.RequestBytes of each body (sched.Scheduler.Reserve):
// the wrappers count a request's bytes, one wrapper per request.
//
// The request direction (sched.Scheduler.Requests, present when the server
// has a request capacity) is charged one request per S3 operation, once,
// after authorisation and before any body moves (awaitRequest): GET, PUT,
// UploadPart and UploadPartCopy on the reservation they draw on, every
// other operation (HEAD, listings, deletes, bucket configuration, the
// reservation routes themselves, CopyObject, multipart create and
// complete, PostObject once its form is authorised) as best effort under
// its principal, so that a flood of cheap requests cannot starve a
// request-rate reservation. Requests refused before that point (CORS
// preflights, failed authentication or authorisation, malformed requests,
// an invalid reservation) are not charged: they end before they cost
// more than their parsing.
//
// With no reservation active a direction is unscheduled: a transfer that
// fits in unwrappedMax costs one atomic load (Flow.Scheduled) and is not
// wrapped at all; a longer one is wrapped, so a reservation that starts
// while it runs applies to it, and the wrapper costs one atomic load per
// Read or per sendfile slice (sched.Writer keeps io.CopyN from a blob file
// on the connection's ReadFrom).

// unwrappedMax is the longest transfer left unwrapped while its direction
// is unscheduled: a reservation starting meanwhile waits at most this
// much per request.
const unwrappedMax = 4 << 20

// flow is r's flow in d.
func (r *request) flow(d *sched.Direction) sched.Flow {
	id := ""
	if r.reservation != nil {
		id = r.reservation.ID
	}
	return d.Flow(id, r.who.Name())
}

// schedule returns r's flow in the direction of h's scheduler that dir
// picks, and whether a transfer of size bytes (-1: unknown) on it must be
// wrapped: false without a scheduler, and for a known size up to
// unwrappedMax while nothing is reserved.
func (h *Handler) schedule(r *request, dir func(*sched.Scheduler) *sched.Direction, size int64) (sched.Flow, bool) {
	if h.cfg.Scheduler == nil {
		return sched.Flow{}, false
	}
	f := r.flow(dir(h.cfg.Scheduler))
	return f, f.Scheduled() || size < 0 || size > unwrappedMax
}

// awaitRequest waits for r's one grant in the request direction: on its
// reservation (request.reservation; best effort in this direction when
// that reserves no request rate) or best effort under its principal. With
// no request direction, or no request-rate reservation active in it, it
// costs one atomic load (Flow.Wait's) and returns at once. An error is the
// request's context ending while it waits.
func (h *Handler) awaitRequest(r *request) error {
	if h.cfg.Scheduler == nil || h.cfg.Scheduler.Requests == nil {
		return nil
	}
	return r.flow(h.cfg.Scheduler.Requests).Wait(r.Context(), 1)
}

func readsOf(s *sched.Scheduler) *sched.Direction  { return s.Read }
func writesOf(s *sched.Scheduler) *sched.Direction { return s.Write }

// scheduledUpload returns the body of an upload of size bytes paced as
// r's write flow.
func (h *Handler) scheduledUpload(r *request, body io.Reader, size int64) io.Reader {
	if f, wrap := h.schedule(r, writesOf, size); wrap {
		return sched.Reader(r.Context(), body, f)
	}
	return body
}

// scheduledDownload returns w paced as r's read flow for n bytes.
func (h *Handler) scheduledDownload(r *request, w io.Writer, n int64) io.Writer {
	if f, wrap := h.schedule(r, readsOf, n); wrap {
		return sched.Writer(r.Context(), w, f)
	}
	return w
}

// scheduledCopy returns what CopyObject and UploadPartCopy wrap the n
// copied bytes in: they are read from the blob store and written to it, so
// they are paced as r's read flow and then as its write flow (each only
// when schedule says so).
func (h *Handler) scheduledCopy(r *request) service.Throttle {
	if h.cfg.Scheduler == nil {
		return nil
	}
	return func(src io.Reader, n int64) io.Reader {
		if f, wrap := h.schedule(r, readsOf, n); wrap {
			src = sched.Reader(r.Context(), src, f)
		}
		if f, wrap := h.schedule(r, writesOf, n); wrap {
			src = sched.Reader(r.Context(), src, f)
		}
		return src
	}
}
