package s3api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/bodytimeout"
	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/cors"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/permissions"
	"github.com/jogstore/jog/internal/postpolicy"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/tagging"
)

// APIError is an S3 wire error: the code and HTTP status S3 uses, and a
// message for people.
type APIError struct {
	Code    string
	Message string
	Status  int
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

// apiErr builds an APIError; handlers use it for request validation.
func apiErr(status int, code, format string, args ...any) *APIError {
	return &APIError{Code: code, Status: status, Message: fmt.Sprintf(format, args...)}
}

// Common wire errors raised by the edge itself.
var (
	errMethodNotAllowed      = &APIError{"MethodNotAllowed", "The specified method is not allowed against this resource.", http.StatusMethodNotAllowed}
	errAccessDenied          = &APIError{"AccessDenied", "Access Denied", http.StatusForbidden}
	errMalformedXML          = &APIError{"MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema.", http.StatusBadRequest}
	errPrecondition          = &APIError{"PreconditionFailed", "At least one of the pre-conditions you specified did not hold.", http.StatusPreconditionFailed}
	errNotModified           = &APIError{"NotModified", "Not Modified", http.StatusNotModified}
	errInvalidRange          = &APIError{"InvalidRange", "The requested range is not satisfiable.", http.StatusRequestedRangeNotSatisfiable}
	errInvalidPartNumber     = &APIError{"InvalidPartNumber", "The requested partnumber is not satisfiable", http.StatusRequestedRangeNotSatisfiable}
	errMissingLength         = &APIError{"MissingContentLength", "You must provide the Content-Length HTTP header.", http.StatusLengthRequired}
	errSlowDown              = &APIError{"SlowDown", "Please reduce your request rate.", http.StatusServiceUnavailable}
	errNoSuchVersion         = &APIError{"NoSuchVersion", "The specified version does not exist.", http.StatusNotFound}
	errEmptyVersionID        = &APIError{"InvalidArgument", "Version id cannot be the empty string", http.StatusBadRequest}
	errInvalidVersionID      = &APIError{"InvalidArgument", "Invalid version id specified", http.StatusBadRequest}
	errInvalidReplicaVersion = &APIError{"InvalidArgument", "X-Jog-Replica-Version-Id is not a version ID this server could have made", http.StatusBadRequest}
	// errInsufficientStorage: the storage under the data dir is full
	// (blob.ErrNoSpace, meta.ErrNoSpace). Nothing of the request was stored.
	errInsufficientStorage = &APIError{"InsufficientStorage", "There is not enough free space on the server to store the request.", http.StatusInsufficientStorage}
	// errUnavailable: the metadata store cannot be reached
	// (meta.ErrUnavailable); sent with a Retry-After of retryAfter.
	errUnavailable = &APIError{"ServiceUnavailable", "The server's metadata store cannot be reached. Please retry later.", http.StatusServiceUnavailable}
	// errRequestTimeout: the client stopped sending the request body, or
	// sent it too slowly (bodytimeout), or went while it was served.
	errRequestTimeout = &APIError{bodytimeout.Code, bodytimeout.Message, http.StatusBadRequest}
)

// ClientError is an error written for S3 clients below the edge (the
// refusals of acl, lifecycle, bucketrepl, tagging, notify, qos, postpolicy, cors,
// permissions and kms, which names every SSE-S3, SSE-KMS and SSE-C refusal):
// its S3 code, HTTP status and
// message reach the client as they are. It is the only way a domain
// error's own text reaches a client: any other error gets its row's
// message in errorTable (its text, which may hold a path or a socket
// address, stays in the log) unless its row opts in with detail.
type ClientError interface {
	error
	S3Error() (code string, status int, message string)
}

// The packages whose errors are ClientErrors.
var (
	_ ClientError = (*acl.Error)(nil)
	_ ClientError = (*lifecycle.RuleError)(nil)
	_ ClientError = (*bucketrepl.RuleError)(nil)
	_ ClientError = (*tagging.Error)(nil)
	_ ClientError = (*notify.ConfigError)(nil)
	_ ClientError = (*qos.Error)(nil)
	_ ClientError = (*postpolicy.Error)(nil)
	_ ClientError = (*cors.RuleError)(nil)
	_ ClientError = (*cors.MethodError)(nil)
	_ ClientError = (*kms.Error)(nil)
	_ ClientError = (*permissions.Error)(nil)
)

// Whether the text wrapped around a sentinel (fmt.Errorf("%w: ...")) is
// sent as the message: only for sentinels whose wrappers write that text
// for clients (a signature's or a name's fault, said in its terms).
const (
	fixed  = false // the row's message, whatever wraps the sentinel
	detail = true  // the error's text, when something wraps the sentinel
)

// errorTable maps domain sentinels to wire errors. It is the one place where
// storage, service and auth errors become S3 codes.
var errorTable = []struct {
	err    error
	api    APIError
	detail bool
}{
	// First: a failed read of the body is the connection's fault whatever
	// else the error wraps, and its text names the client's socket.
	{errClientRead, APIError{"IncompleteBody", "The request body could not be read to its end.", http.StatusBadRequest}, fixed},
	{meta.ErrBucketNotFound, APIError{"NoSuchBucket", "The specified bucket does not exist.", http.StatusNotFound}, fixed},
	{meta.ErrBucketExists, APIError{"BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.", http.StatusConflict}, fixed},
	{meta.ErrBucketNotEmpty, APIError{"BucketNotEmpty", "The bucket you tried to delete is not empty.", http.StatusConflict}, fixed},
	{meta.ErrObjectNotFound, APIError{"NoSuchKey", "The specified key does not exist.", http.StatusNotFound}, fixed},
	{meta.ErrPreconditionFailed, *errPrecondition, fixed},
	{service.ErrVersioningBusy, *errSlowDown, fixed}, // an unconditional write: SDKs retry 503, not 409
	{meta.ErrConflict, APIError{"ConditionalRequestConflict", "A conflicting operation occurred. Retry the request.", http.StatusConflict}, fixed},
	{meta.ErrUploadNotFound, APIError{"NoSuchUpload", "The specified multipart upload does not exist. The upload ID might be invalid, or the multipart upload might have been aborted or completed.", http.StatusNotFound}, fixed},
	{cors.ErrNoConfig, APIError{"NoSuchCORSConfiguration", "The CORS configuration does not exist", http.StatusNotFound}, fixed},
	{cors.ErrNoOrigin, APIError{"BadRequest", "Insufficient information. Origin request header needed.", http.StatusBadRequest}, fixed},
	{cors.ErrNoBucket, APIError{"AccessForbidden", "CORSResponse: Bucket not found", http.StatusForbidden}, fixed},
	{cors.ErrNotEnabled, APIError{"AccessForbidden", "CORSResponse: CORS is not enabled for this bucket.", http.StatusForbidden}, fixed},
	{cors.ErrNotAllowed, APIError{"AccessForbidden", "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.", http.StatusForbidden}, fixed},
	{service.ErrNoEncryptionConfig, APIError{"ServerSideEncryptionConfigurationNotFoundError", "The server side encryption configuration was not found", http.StatusNotFound}, fixed},
	{service.ErrNoSuchBucketPolicy, APIError{"NoSuchBucketPolicy", "The bucket policy does not exist", http.StatusNotFound}, fixed},
	// The message is the parser's reason ("Policy has invalid resource").
	{policy.ErrMalformed, APIError{"MalformedPolicy", "Policies must be valid JSON and the first byte must be '{'", http.StatusBadRequest}, detail},
	{tagging.ErrNoTagSet, APIError{"NoSuchTagSet", "The TagSet does not exist", http.StatusNotFound}, fixed},
	{service.ErrNoOwnershipControls, APIError{"OwnershipControlsNotFoundError", "The bucket ownership controls were not found", http.StatusNotFound}, fixed},
	{service.ErrNoPublicAccessBlock, APIError{"NoSuchPublicAccessBlockConfiguration", "The public access block configuration was not found", http.StatusNotFound}, fixed},
	{lifecycle.ErrNoConfig, APIError{"NoSuchLifecycleConfiguration", "The lifecycle configuration does not exist", http.StatusNotFound}, fixed},
	{lifecycle.ErrTransition, APIError{"NotImplemented", "Lifecycle transitions are not implemented: JOG has one storage tier, so Transition and NoncurrentVersionTransition cannot be carried out.", http.StatusNotImplemented}, fixed},
	{bucketrepl.ErrNoConfig, APIError{"ReplicationConfigurationNotFoundError", "The replication configuration was not found", http.StatusNotFound}, fixed},
	{bucketrepl.ErrNotVersioned, APIError{"InvalidRequest", "Versioning must be 'Enabled' on the bucket to apply a replication configuration", http.StatusBadRequest}, fixed},
	{service.ErrReplicaVersion, APIError{"InvalidRequest", "A replicated version needs a bucket with versioning Enabled.", http.StatusBadRequest}, fixed},
	{meta.ErrStoreGone, APIError{"ServiceUnavailable", "The server's data directory is gone; it accepts no writes.", http.StatusServiceUnavailable}, fixed},
	{meta.ErrUnavailable, *errUnavailable, fixed},
	{service.ErrReplicationBacklog, APIError{"SlowDown", "The replication queue is full: the delete cannot be recorded for replication. Please retry later.", http.StatusServiceUnavailable}, fixed},
	{bucketrepl.ErrNoResync, APIError{"NoSuchResync", "This bucket's replication was never resynced.", http.StatusNotFound}, fixed},
	{bucketrepl.ErrNoDelivery, APIError{"InvalidRequest", "This server has no replication targets (--replication-target): nothing would deliver a resync.", http.StatusBadRequest}, fixed},
	{bucketrepl.ErrVersioningLocked, APIError{"InvalidBucketState", "A replication configuration is present on this bucket, so the versioning state cannot be changed.", http.StatusConflict}, fixed},
	{meta.ErrVersionMarker, *errInvalidVersionID, fixed},
	{meta.ErrUnstorableKey, APIError{"InvalidArgument", "The metadata backend cannot store an object key with a NUL byte or invalid UTF-8.", http.StatusBadRequest}, fixed},
	{meta.ErrPartChanged, APIError{"InvalidPart", "One or more of the specified parts changed while the upload was being completed.", http.StatusBadRequest}, fixed},
	{service.ErrInvalidPart, APIError{"InvalidPart", "One or more of the specified parts could not be found. The part might not have been uploaded, or the specified entity tag might not have matched the part's entity tag.", http.StatusBadRequest}, detail},
	{service.ErrInvalidPartOrder, APIError{"InvalidPartOrder", "The list of parts was not in ascending order. The parts list must be specified in order by part number.", http.StatusBadRequest}, fixed},
	{service.ErrEntityTooSmall, APIError{"EntityTooSmall", "Your proposed upload is smaller than the minimum allowed object size.", http.StatusBadRequest}, detail},
	{service.ErrInvalidPartNumber, APIError{"InvalidArgument", "Part number must be an integer between 1 and 10000, inclusive", http.StatusBadRequest}, fixed},
	{service.ErrNoParts, *errMalformedXML, fixed},
	{cors.ErrMalformed, *errMalformedXML, fixed},
	{lifecycle.ErrMalformed, *errMalformedXML, fixed},
	{bucketrepl.ErrMalformed, *errMalformedXML, fixed},
	{tagging.ErrMalformed, *errMalformedXML, fixed},
	{notify.ErrMalformed, *errMalformedXML, fixed},
	{service.ErrVersioningState, *errMalformedXML, fixed},
	{meta.ErrObjectLocked, APIError{"AccessDenied", "Access Denied because object protected by object lock.", http.StatusForbidden}, fixed},
	{meta.ErrNoObjectLock, *errNoLock, fixed},
	{service.ErrLockedVersioning, APIError{"InvalidBucketState", "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed.", http.StatusConflict}, fixed},
	{service.ErrLockNotEnabled, APIError{"InvalidBucketState", "Versioning must be 'Enabled' on the bucket to apply a Object Lock configuration", http.StatusConflict}, fixed},
	{service.ErrNoLockConfig, APIError{"ObjectLockConfigurationNotFoundError", "Object Lock configuration does not exist for this bucket", http.StatusNotFound}, fixed},
	{service.ErrNoVersionLock, APIError{"NoSuchObjectLockConfiguration", "The specified object does not have a ObjectLock configuration", http.StatusNotFound}, fixed},
	{service.ErrRetainUntilPast, APIError{"InvalidArgument", "The retain until date must be in the future!", http.StatusBadRequest}, fixed},
	{service.ErrLockNeedsIntegrity, APIError{"InvalidRequest", "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Object requests with Object Lock parameters", http.StatusBadRequest}, fixed},
	{service.ErrLockPartNeedsIntegrity, APIError{"InvalidRequest", "Content-MD5 OR x-amz-checksum- HTTP header is required for Put Part requests with Object Lock parameters", http.StatusBadRequest}, fixed},
	{service.ErrObjectSizeMismatch, APIError{"InvalidRequest", "The provided 'x-amz-mp-object-size' header value does not match what was computed.", http.StatusBadRequest}, detail},
	{service.ErrChecksumTypeMismatch, APIError{"InvalidRequest", "The upload was created using a different checksum type than the one given in x-amz-checksum-type.", http.StatusBadRequest}, fixed},
	{service.ErrBadChecksumType, APIError{"InvalidRequest", "The checksum type is not valid for the checksum algorithm.", http.StatusBadRequest}, detail},
	{service.ErrInvalidCopyRange, APIError{"InvalidArgument", "The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy", http.StatusBadRequest}, fixed},
	{sigv4.ErrChunkSignatureMismatch, APIError{"SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.", http.StatusForbidden}, fixed},
	{sigv4.ErrTrailerSignatureMismatch, APIError{"SignatureDoesNotMatch", "The trailer signature we calculated does not match the signature you provided.", http.StatusForbidden}, fixed},
	{sigv4.ErrDecodedLengthMismatch, APIError{"IncompleteBody", "You did not provide the number of bytes specified by the x-amz-decoded-content-length HTTP header.", http.StatusBadRequest}, detail},
	{sigv4.ErrMissingDecodedLength, *errMissingLength, fixed},
	{sigv4.ErrMalformedTrailer, APIError{"MalformedTrailerError", "The request contained trailing data that was not well-formed or did not conform to our published schema.", http.StatusBadRequest}, detail},
	{sigv4.ErrEmptyTrailer, APIError{"InvalidRequest", "A trailing header announced in x-amz-trailer has no value.", http.StatusBadRequest}, detail},
	{service.ErrInvalidBucketName, APIError{"InvalidBucketName", "The specified bucket is not valid.", http.StatusBadRequest}, detail},
	{service.ErrKeyTooLong, APIError{"KeyTooLongError", "Your key is too long.", http.StatusBadRequest}, fixed},
	{service.ErrInvalidKey, APIError{"InvalidArgument", "The object key is not valid.", http.StatusBadRequest}, detail},
	{service.ErrBadDigest, APIError{"BadDigest", "The Content-MD5 you specified did not match what we received.", http.StatusBadRequest}, detail},
	{service.ErrIncompleteBody, APIError{"IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.", http.StatusBadRequest}, detail},
	{service.ErrEntityTooLarge, APIError{"EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size.", http.StatusBadRequest}, fixed},
	{sigv4.ErrMissingAuth, *errAccessDenied, fixed},
	{sigv4.ErrInvalidAccessKeyID, APIError{"InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", http.StatusForbidden}, fixed},
	{sigv4.ErrInvalidToken, APIError{"InvalidToken", "The provided token is malformed or otherwise invalid.", http.StatusBadRequest}, detail},
	{sigv4.ErrExpiredToken, APIError{"ExpiredToken", "The provided token has expired.", http.StatusBadRequest}, detail},
	{sigv4.ErrSignatureDoesNotMatch, APIError{"SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided. Check your key and signing method.", http.StatusForbidden}, fixed},
	{sigv4.ErrRequestTimeTooSkewed, APIError{"RequestTimeTooSkewed", "The difference between the request time and the current time is too large.", http.StatusForbidden}, fixed},
	{sigv4.ErrExpired, APIError{"AccessDenied", "Request has expired", http.StatusForbidden}, fixed},
	{sigv4.ErrAuthHeaderMalformed, APIError{"AuthorizationHeaderMalformed", "The authorization header is malformed.", http.StatusBadRequest}, detail},
	{sigv4.ErrQueryMalformed, APIError{"AuthorizationQueryParametersError", "The authorization query parameters are malformed.", http.StatusBadRequest}, detail},
	{sigv4.ErrMissingDate, APIError{"AccessDenied", "AWS authentication requires a valid Date or x-amz-date header", http.StatusForbidden}, fixed},
	{sigv4.ErrMultipleAuth, APIError{"InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter or the Authorization header should be specified.", http.StatusBadRequest}, detail},
	{sigv4.ErrUnsupportedAlgorithm, APIError{"InvalidArgument", "Unsupported authorization algorithm.", http.StatusBadRequest}, detail},
	{sigv4.ErrContentSHA256Mismatch, APIError{"XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", http.StatusBadRequest}, detail},
	{sigv4.ErrMissingContentSHA256, APIError{"InvalidRequest", "Missing required header for this request: x-amz-content-sha256", http.StatusBadRequest}, fixed},
	{sigv4.ErrInvalidContentSHA256, APIError{"InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or a valid sha256 value.", http.StatusBadRequest}, detail},
}

// toAPIError maps any error to the wire error to send. Unknown errors become
// InternalError (the caller logs them with the request ID). Only a
// ClientError's message, or the detail wrapped around a sentinel whose row
// opts in, is the error's own text.
func toAPIError(err error) (*APIError, bool) {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae, true
	}
	if errors.Is(err, bodytimeout.ErrTimeout) { // before errClientRead, which wraps it too
		return errRequestTimeout, true
	}
	for _, e := range errorTable {
		if errors.Is(err, e.err) {
			out := e.api
			if e.detail && err.Error() != e.err.Error() {
				out.Message = err.Error()
			}
			return &out, true
		}
	}
	var denial *authz.Denial
	if errors.As(err, &denial) {
		return &APIError{errAccessDenied.Code, denialMessage(denial), errAccessDenied.Status}, true
	}
	var ce ClientError
	if errors.As(err, &ce) {
		code, status, msg := ce.S3Error()
		return &APIError{Code: code, Message: msg, Status: status}, true
	}
	var capErr *meta.CapacityError
	if errors.As(err, &capErr) {
		return apiErr(http.StatusConflict, "InsufficientCapacity", "The reservation does not fit: %s.", capErr.Error()), true
	}
	if errors.Is(err, meta.ErrQuotaExceeded) {
		return apiErr(http.StatusForbidden, "QuotaExceeded", "The write would exceed the bucket's quota (%s); nothing was stored.", err.Error()), true
	}
	if errors.Is(err, meta.ErrTooManyReservations) {
		return apiErr(http.StatusBadRequest, "TooManyReservations",
			"The bucket has %d reservations that have not ended, the most it may have: cancel one or wait for one to end.", meta.MaxReservationsPerBucket), true
	}
	if errors.Is(err, meta.ErrNoSuchReservation) {
		return apiErr(http.StatusNotFound, "NoSuchReservation", "The specified reservation does not exist (%s).", err.Error()), true
	}
	var size *policy.SizeError
	if errors.As(err, &size) {
		return apiErr(http.StatusBadRequest, "MalformedPolicy", "Policy exceeds the maximum allowed document size."), true
	}
	var mismatch checksum.ErrChecksumMismatch
	if errors.As(err, &mismatch) {
		return apiErr(http.StatusBadRequest, "BadDigest", "The %s you specified did not match the calculated checksum.",
			mismatch.Algorithm.HeaderName()), true
	}
	if errors.Is(err, sigv4.ErrMalformedChunk) {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return apiErr(http.StatusBadRequest, "IncompleteBody", "The aws-chunked body ended early."), true
		}
		return apiErr(http.StatusBadRequest, "InvalidRequest", "%v", err), true
	}
	if errors.Is(err, blob.ErrNoSpace) || errors.Is(err, meta.ErrNoSpace) {
		return errInsufficientStorage, true
	}
	if errors.Is(err, context.Canceled) {
		return errRequestTimeout, true
	}
	return &APIError{"InternalError", "We encountered an internal error. Please try again.", http.StatusInternalServerError}, false
}

// denialMessage is AccessDenied's message for a refusal by authorization.
// To an authenticated caller it is AWS's for a same-account denial (S3
// User Guide, "Access denied message examples"): who, the action, the
// resource asked for (left out for "*", as AWS's examples leave it out
// for an action on no resource) and the kind of policy, never its
// content. To anyone else it is S3's bare "Access Denied", which tells an
// outsider nothing of the policies (SECURITY.md).
func denialMessage(d *authz.Denial) string {
	if !d.Explained() {
		return errAccessDenied.Message
	}
	var b strings.Builder
	b.WriteString("User: " + d.Principal + " is not authorized to perform: " + d.Action)
	if d.Resource != "" && d.Resource != authz.ServiceARN {
		b.WriteString(` on resource: "` + d.Resource + `"`)
	}
	b.WriteString(" " + denialReason(d))
	return b.String()
}

// denialReason is AWS's phrase for why a denial was made, "" when the
// denial carries no reason: "with an explicit deny in a resource-based
// policy", "because no identity-based policy allows the s3:GetObject
// action" (IAM User Guide, "Troubleshoot access denied error messages").
func denialReason(d *authz.Denial) string {
	switch {
	case d.Source == policy.NoSource:
		return ""
	case d.Decision == policy.ExplicitDeny:
		article := "a "
		if d.Source == policy.IdentityPolicy {
			article = "an "
		}
		return "with an explicit deny in " + article + d.Source.String()
	}
	return "because no " + d.Source.String() + " allows the " + d.Action + " action"
}
