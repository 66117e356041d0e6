package stsapi

import (
	"log/slog"
	"net/http"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/queryapi"
	"github.com/jogstore/jog/internal/sts"
)

// codes maps the STS layer's errors (sts's, and iam's it returns) to
// STS's codes and statuses, the one place they are mapped; the
// verifier's are queryapi.AuthCodes. A domain error's own message
// (*meta.IAMError) is kept.
var codes = []queryapi.Code{
	queryapi.C(sts.ErrAccessDenied, "AccessDenied", "Access denied.", http.StatusForbidden),
	queryapi.C(sts.ErrRevoked, "AccessDenied", "The role or user of these temporary credentials no longer exists.", http.StatusForbidden),
	queryapi.C(sts.ErrPackedPolicyTooLarge, "PackedPolicyTooLarge", "The session policies are too large.", http.StatusBadRequest),
	queryapi.C(iam.ErrMalformedPolicyDocument, "MalformedPolicyDocument", "The policy document is malformed.", http.StatusBadRequest),
	queryapi.C(iam.ErrValidation, "ValidationError", "A parameter is invalid.", http.StatusBadRequest),
	queryapi.C(iam.ErrInvalidInput, "ValidationError", "A parameter is invalid.", http.StatusBadRequest),
	queryapi.C(meta.ErrNoSuchEntity, "InvalidParameterValue", "A managed session policy does not exist.", http.StatusBadRequest),
}

// errMissing is STS's ValidationError for a required parameter absent.
func errMissing(field string) error {
	return queryapi.Missing(field)
}

func (h *Handler) writeError(w http.ResponseWriter, req *request, err error) {
	e := queryapi.Map(err, codes, queryapi.AuthCodes)
	level := slog.LevelDebug
	if e.Status >= 500 {
		level = slog.LevelError
	} else if e.Code == "AccessDenied" {
		level = slog.LevelInfo
	}
	h.cfg.Logger.Log(req.ctx, level, "sts request failed", "id", req.id, "action", req.action, "code", e.Code, "err", err)
	queryapi.WriteError(w, xmlns, req.id, e)
}
