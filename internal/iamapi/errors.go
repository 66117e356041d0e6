package iamapi

import (
	"log/slog"
	"net/http"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/queryapi"
	"github.com/jogstore/jog/internal/sts"
)

// apiError is an error as IAM answers it (the query APIs' error).
type apiError = queryapi.Error

func apiErrorf(status int, code, format string, args ...any) error {
	return queryapi.Errorf(status, code, format, args...)
}

// errAccessDenied is IAM's refusal of an action to a caller.
func errAccessDenied(caller, action, resource string) error {
	return apiErrorf(http.StatusForbidden, "AccessDenied", "User: %s is not authorized to perform: %s on resource: %s", caller, action, resource)
}

// errMissing is IAM's ValidationError for a required parameter absent.
func errMissing(field string) error {
	return queryapi.Missing(field)
}

// codes maps the IAM layer's errors (meta's IAM sentinels and iam's) and
// the verifier's to IAM's codes and statuses: the one place they are
// mapped. A domain error's own message (*meta.IAMError) is kept; the
// message here is for errors without one.
var codes = []queryapi.Code{
	queryapi.C(meta.ErrNoSuchEntity, "NoSuchEntity", "The entity does not exist.", http.StatusNotFound),
	queryapi.C(meta.ErrEntityAlreadyExists, "EntityAlreadyExists", "The entity already exists.", http.StatusConflict),
	queryapi.C(meta.ErrLimitExceeded, "LimitExceeded", "A quota was exceeded.", http.StatusConflict),
	queryapi.C(meta.ErrDeleteConflict, "DeleteConflict", "The entity is still in use.", http.StatusConflict),
	queryapi.C(iam.ErrMalformedPolicyDocument, "MalformedPolicyDocument", "The policy document is malformed.", http.StatusBadRequest),
	queryapi.C(iam.ErrValidation, "ValidationError", "A parameter is invalid.", http.StatusBadRequest),
	queryapi.C(iam.ErrInvalidInput, "InvalidInput", "A parameter is invalid.", http.StatusBadRequest),
	queryapi.C(sts.ErrRevoked, "AccessDenied", "The role or user of these temporary credentials no longer exists.", http.StatusForbidden),
}

// toAPIError maps err; anything unknown is IAM's 500 ServiceFailure.
func toAPIError(err error) *apiError { return queryapi.Map(err, codes, queryapi.AuthCodes) }

func (h *Handler) writeError(w http.ResponseWriter, req *request, err error) {
	e := toAPIError(err)
	level := slog.LevelDebug
	if e.Status >= 500 {
		level = slog.LevelError
	}
	h.cfg.Logger.Log(req.ctx, level, "iam request failed", "id", req.id, "action", req.action, "code", e.Code, "err", err)
	queryapi.WriteError(w, xmlns, req.id, e)
}
