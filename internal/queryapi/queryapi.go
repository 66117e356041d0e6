// Package queryapi is what AWS's query-protocol APIs served by JOG share
// (IAM's, internal/iamapi, and STS's, internal/stsapi): reading a
// request's parameters from its query and form body with the body's hash
// made part of what the signature covers, the XML envelope of answers and
// errors, request IDs, and the mapping of errors to codes, the signature
// verifier's included.
package queryapi

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/jogstore/jog/internal/bodytimeout"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sigv4"
)

// MaxBody bounds a request's form body: the largest parameters are policy
// documents (at most 10 KiB once stored), URL-encoded.
const MaxBody = 1 << 20

// Error is an error as a query API answers it: a code, a message, an
// HTTP status (5xx: the service is at fault, else the sender).
type Error struct {
	Code    string
	Message string
	Status  int
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error.
func Errorf(status int, code, format string, args ...any) error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Status: status}
}

// Code maps an error (tested with errors.Is) to its answer.
type Code struct {
	Err error
	Error
}

// Missing is the ValidationError for a required parameter absent.
func Missing(field string) error {
	return Errorf(http.StatusBadRequest, "ValidationError", "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", field)
}

// C is a Code.
func C(err error, code, message string, status int) Code {
	return Code{Err: err, Error: Error{Code: code, Message: message, Status: status}}
}

// AuthCodes are the signature verifier's errors as IAM and STS answer
// them.
var AuthCodes = []Code{
	C(sigv4.ErrMissingAuth, "MissingAuthenticationToken", "Request is missing Authentication Token", http.StatusForbidden),
	C(sigv4.ErrInvalidAccessKeyID, "InvalidClientTokenId", "The security token included in the request is invalid.", http.StatusForbidden),
	C(sigv4.ErrInvalidToken, "InvalidClientTokenId", "The security token included in the request is invalid.", http.StatusForbidden),
	C(sigv4.ErrExpiredToken, "ExpiredToken", "The security token included in the request is expired", http.StatusForbidden),
	C(sigv4.ErrSignatureDoesNotMatch, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.", http.StatusForbidden),
	C(sigv4.ErrRequestTimeTooSkewed, "SignatureDoesNotMatch", "Signature expired: the request time is too far from the server's.", http.StatusForbidden),
	C(sigv4.ErrExpired, "ExpiredToken", "The request has expired.", http.StatusForbidden),
	C(sigv4.ErrMissingDate, "MissingAuthenticationToken", "AWS authentication requires a valid Date or x-amz-date header.", http.StatusForbidden),
	C(sigv4.ErrAuthHeaderMalformed, "IncompleteSignature", "The authorization header is malformed.", http.StatusBadRequest),
	C(sigv4.ErrQueryMalformed, "IncompleteSignature", "The authorization query parameters are malformed.", http.StatusBadRequest),
	C(sigv4.ErrUnsupportedAlgorithm, "IncompleteSignature", "Unsupported authorization algorithm.", http.StatusBadRequest),
	C(sigv4.ErrMultipleAuth, "InvalidParameterCombination", "Only one auth mechanism allowed.", http.StatusBadRequest),
	C(sigv4.ErrContentSHA256Mismatch, "IncompleteSignature", "The signed payload hash does not match the request body.", http.StatusBadRequest),
	C(sigv4.ErrInvalidContentSHA256, "IncompleteSignature", "The signed payload hash does not match the request body.", http.StatusBadRequest),
}

// Map maps err: an *Error is itself, else the first Code of tables it
// matches (a *meta.IAMError's own message kept), else the 500
// ServiceFailure.
func Map(err error, tables ...[]Code) *Error {
	var qe *Error
	if errors.As(err, &qe) {
		return qe
	}
	for _, codes := range tables {
		for _, c := range codes {
			if errors.Is(err, c.Err) {
				e := c.Error
				var ie *meta.IAMError
				if errors.As(err, &ie) {
					e.Message = ie.Message
				}
				return &e
			}
		}
	}
	return &Error{Code: "ServiceFailure", Message: "The request processing has failed because of an unknown error, exception or failure.", Status: http.StatusInternalServerError}
}

// Share is the server's share of request slots for requests not
// authenticated yet (s3api.AnonymousShare, which the console's sign-ins
// and S3's anonymous requests and form uploads take too).
type Share interface {
	Take() bool
	Release()
}

// ReadBody reads the form body (bounded) and makes sure the signature
// covers it: the payload hash a client signed must be the body's (the
// SDKs send no x-amz-content-sha256 to query APIs; the verifier then
// signs the body's hash, set here). An unsigned payload is refused: the
// body names the action. The body is read before the signature can be
// checked, so while it is read the request holds a place in share (nil:
// no bound), or is refused at once with 503 SlowDown when the share is
// full: however slowly clients send IAM or STS forms, signed requests
// find the server's other slots free.
func ReadBody(r *http.Request, share Share) ([]byte, error) {
	if share != nil {
		if !share.Take() {
			return nil, Errorf(http.StatusServiceUnavailable, "SlowDown", "Please reduce your request rate.")
		}
		defer share.Release()
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		if errors.Is(err, bodytimeout.ErrTimeout) {
			return nil, Errorf(http.StatusBadRequest, bodytimeout.Code, "%s", bodytimeout.Message)
		}
		if err != nil {
			return nil, Errorf(http.StatusBadRequest, "MalformedQueryString", "The request body could not be read.")
		}
		if len(body) > MaxBody {
			return nil, Errorf(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "The request body is larger than %d bytes.", MaxBody)
		}
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	switch v := r.Header.Values("X-Amz-Content-Sha256"); {
	case len(v) == 0:
		r.Header.Set("X-Amz-Content-Sha256", hash)
	case len(v) != 1 || v[0] != hash:
		return nil, sigv4.ErrContentSHA256Mismatch
	}
	return body, nil
}

// Params are the query's parameters and the form body's; a POST's body
// must be a form.
func Params(r *http.Request, body []byte) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, "MalformedQueryString", "The query string is malformed.")
	}
	if len(body) == 0 {
		return q, nil
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(strings.ToLower(ct), "application/x-www-form-urlencoded") {
		return nil, Errorf(http.StatusBadRequest, "MalformedQueryString", "The request body must be application/x-www-form-urlencoded.")
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, "MalformedQueryString", "The request body is not a valid form.")
	}
	for k, v := range form {
		q[k] = append(q[k], v...)
	}
	return q, nil
}

// WriteResponse writes <ActionResponse xmlns=…><ActionResult>result
// </ActionResult><ResponseMetadata/></ActionResponse>; a nil result has
// no Result element.
func WriteResponse(w http.ResponseWriter, xmlns, action, requestID string, result any) error {
	var b strings.Builder
	enc := xml.NewEncoder(&b)
	start := xml.StartElement{Name: xml.Name{Local: action + "Response"}, Attr: []xml.Attr{{Name: xml.Name{Local: "xmlns"}, Value: xmlns}}}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	if result != nil {
		if err := enc.EncodeElement(result, xml.StartElement{Name: xml.Name{Local: action + "Result"}}); err != nil {
			return err
		}
	}
	meta := struct {
		RequestID string `xml:"RequestId"`
	}{requestID}
	if err := enc.EncodeElement(meta, xml.StartElement{Name: xml.Name{Local: "ResponseMetadata"}}); err != nil {
		return err
	}
	if err := enc.EncodeToken(start.End()); err != nil {
		return err
	}
	if err := enc.Flush(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, xml.Header+b.String()) // a client gone is no error to answer
	return nil
}

// errorResponse is the query protocol's error body.
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

// WriteError writes e as the query protocol's ErrorResponse.
func WriteError(w http.ResponseWriter, xmlns, requestID string, e *Error) {
	var body errorResponse
	body.Xmlns = xmlns
	body.Error.Type = "Sender"
	if e.Status >= 500 {
		body.Error.Type = "Receiver"
	}
	body.Error.Code, body.Error.Message, body.RequestID = e.Code, e.Message, requestID
	out, _ := xml.Marshal(body)
	w.Header().Set("Content-Type", "text/xml")
	w.WriteHeader(e.Status)
	_, _ = io.WriteString(w, xml.Header+string(out))
}

// NewRequestID returns a request ID as AWS's query APIs write them (a
// UUID's form).
func NewRequestID() string {
	b := make([]byte, 16)
	rand.Read(b)
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
