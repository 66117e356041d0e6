package s3api

import (
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/notify"
)

// Event notifications (PutBucketNotificationConfiguration,
// GetBucketNotificationConfiguration): the configuration is parsed and
// validated by internal/notify against the server's targets
// (service.NotifyTarget) and stored by the service, which emits the
// events of every write once committed. The request's IDs, principal and
// source address reach those events in the context (withNotify).

func (h *Handler) putBucketNotification(w http.ResponseWriter, r *request) error {
	body, err := readSmallBody(r.Request, notify.MaxDocument, true)
	if err != nil {
		return err
	}
	skip := strings.EqualFold(r.Header.Get("x-amz-skip-destination-validation"), "true")
	c, err := notify.Parse(body, h.svc.NotifyTarget, skip)
	if err != nil {
		return err
	}
	return answer(w, http.StatusOK, h.svc.PutBucketNotification(r.Context(), r.route.Bucket, c))
}

func (h *Handler) getBucketNotification(w http.ResponseWriter, r *request) error {
	c, err := h.svc.GetBucketNotification(r.Context(), r.route.Bucket)
	if err != nil {
		return err
	}
	c.Xmlns = s3Namespace
	return writeXML(w, http.StatusOK, c)
}

// notifying are the operations whose changes emit events: their requests
// carry a notify.Request in their context.
var notifying = opsWith(notifies)

// withNotify puts what an event says of r (notify.Request) in its
// context, for the service's events: on the operations that emit some,
// once r is authenticated.
func (h *Handler) withNotify(r *request) {
	if !notifying.has(r.route.Op) || r.auth == nil || !h.svc.Notifying() {
		return // a PostObject is authenticated by its form, then comes back
	}
	r.Request = r.Request.WithContext(notify.WithRequest(r.Context(), notify.Request{
		ID: r.id, HostID: hostID(r.id), PrincipalID: r.auth.AccessKey,
		SourceIP: h.authz.SourceIP(r.orig), Post: r.route.Op == OpPostObject,
	}))
}
