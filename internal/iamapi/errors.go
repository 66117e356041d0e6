package iamapi

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sigv4"
)

// apiError is an error as IAM answers it: a code, a message, an HTTP
// status (5xx: the service is at fault, else the sender).
type apiError struct {
	Code    string
	Message string
	Status  int
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

func apiErrorf(status int, code, format string, args ...any) error {
	return &apiError{Code: code, Message: fmt.Sprintf(format, args...), Status: status}
}

// errAccessDenied is IAM's refusal of an action to a caller.
func errAccessDenied(caller, action, resource string) error {
	return apiErrorf(http.StatusForbidden, "AccessDenied", "User: %s is not authorized to perform: %s on resource: %s", caller, action, resource)
}

// errMissing is IAM's ValidationError for a required parameter absent.
func errMissing(field string) error {
	return apiErrorf(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
}

// codes maps the IAM layer's errors (meta's IAM sentinels and iam's) and
// the verifier's to IAM's codes and statuses: the one place they are
// mapped. A domain error's own message (*meta.IAMError) is kept; the
// message here is for errors without one.
var codes = []struct {
	err error
	apiError
}{
	{meta.ErrNoSuchEntity, apiError{"NoSuchEntity", "The entity does not exist.", http.StatusNotFound}},
	{meta.ErrEntityAlreadyExists, apiError{"EntityAlreadyExists", "The entity already exists.", http.StatusConflict}},
	{meta.ErrLimitExceeded, apiError{"LimitExceeded", "A quota was exceeded.", http.StatusConflict}},
	{meta.ErrDeleteConflict, apiError{"DeleteConflict", "The entity is still in use.", http.StatusConflict}},
	{iam.ErrMalformedPolicyDocument, apiError{"MalformedPolicyDocument", "The policy document is malformed.", http.StatusBadRequest}},
	{iam.ErrValidation, apiError{"ValidationError", "A parameter is invalid.", http.StatusBadRequest}},
	{iam.ErrInvalidInput, apiError{"InvalidInput", "A parameter is invalid.", http.StatusBadRequest}},

	{sigv4.ErrMissingAuth, apiError{"MissingAuthenticationToken", "Request is missing Authentication Token", http.StatusForbidden}},
	{sigv4.ErrInvalidAccessKeyID, apiError{"InvalidClientTokenId", "The security token included in the request is invalid.", http.StatusForbidden}},
	{sigv4.ErrSignatureDoesNotMatch, apiError{"SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.", http.StatusForbidden}},
	{sigv4.ErrRequestTimeTooSkewed, apiError{"SignatureDoesNotMatch", "Signature expired: the request time is too far from the server's.", http.StatusForbidden}},
	{sigv4.ErrExpired, apiError{"ExpiredToken", "The request has expired.", http.StatusForbidden}},
	{sigv4.ErrMissingDate, apiError{"MissingAuthenticationToken", "AWS authentication requires a valid Date or x-amz-date header.", http.StatusForbidden}},
	{sigv4.ErrAuthHeaderMalformed, apiError{"IncompleteSignature", "The authorization header is malformed.", http.StatusBadRequest}},
	{sigv4.ErrQueryMalformed, apiError{"IncompleteSignature", "The authorization query parameters are malformed.", http.StatusBadRequest}},
	{sigv4.ErrUnsupportedAlgorithm, apiError{"IncompleteSignature", "Unsupported authorization algorithm.", http.StatusBadRequest}},
	{sigv4.ErrMultipleAuth, apiError{"InvalidParameterCombination", "Only one auth mechanism allowed.", http.StatusBadRequest}},
	{sigv4.ErrContentSHA256Mismatch, apiError{"IncompleteSignature", "The signed payload hash does not match the request body.", http.StatusBadRequest}},
	{sigv4.ErrInvalidContentSHA256, apiError{"IncompleteSignature", "The signed payload hash does not match the request body.", http.StatusBadRequest}},
}

// toAPIError maps err; anything unknown is IAM's 500 ServiceFailure.
func toAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	for _, c := range codes {
		if errors.Is(err, c.err) {
			e := c.apiError
			var ie *meta.IAMError
			if errors.As(err, &ie) {
				e.Message = ie.Message
			}
			return &e
		}
	}
	return &apiError{"ServiceFailure", "The request processing has failed because of an unknown error, exception or failure.", http.StatusInternalServerError}
}

// errorResponse is IAM's error body.
type errorResponse struct {
	XMLName xml.Name `xml:"ErrorResponse"`
	Xmlns   string   `xml:"xmlns,attr"`
	Error   struct {
		Type    string
		Code    string
		Message string
	}
	RequestID string `xml:"RequestId"`
}

func (h *Handler) writeError(w http.ResponseWriter, req *request, err error) {
	e := toAPIError(err)
	level := slog.LevelDebug
	if e.Status >= 500 {
		level = slog.LevelError
	}
	h.cfg.Logger.Log(req.ctx, level, "iam request failed", "id", req.id, "action", req.action, "code", e.Code, "err", err)
	var body errorResponse
	body.Xmlns = xmlns
	body.Error.Type = "Sender"
	if e.Status >= 500 {
		body.Error.Type = "Receiver"
	}
	body.Error.Code, body.Error.Message, body.RequestID = e.Code, e.Message, req.id
	out, _ := xml.Marshal(body)
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(e.Status)
	io.WriteString(w, xml.Header+string(out))
}
