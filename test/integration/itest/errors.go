package itest

import (
	"errors"
	"net/http"
	"testing"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/minio/minio-go/v7"
)

// ErrInfo extracts the S3 error code and HTTP status from an aws-sdk-go-v2
// or a minio-go error (status 0 when the error never reached a response).
func ErrInfo(err error) (code string, status int) {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		code = ae.ErrorCode()
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	if code == "" && status == 0 {
		er := minio.ToErrorResponse(err)
		code, status = er.Code, er.StatusCode
	}
	return code, status
}

// Code is the S3 error code of err ("" for nil or a non-S3 error).
func Code(err error) string {
	code, _ := ErrInfo(err)
	return code
}

// WantErr asserts that err, from either SDK, is an S3 error with exactly
// status and code.
func WantErr(t testing.TB, err error, status int, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got success, want %d %s", status, code)
	}
	gotCode, gotStatus := ErrInfo(err)
	if gotCode != code || gotStatus != status {
		t.Fatalf("got error %d %q (%v), want %d %q", gotStatus, gotCode, err, status, code)
	}
}

// ErrHeader returns a header of the HTTP response behind an aws-sdk-go-v2
// error.
func ErrHeader(err error, name string) string {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.Header.Get(name)
	}
	return ""
}

// rawResponse returns the HTTP response behind an aws-sdk-go-v2 result.
func rawResponse(md middleware.Metadata) *http.Response {
	if r, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		return r.Response
	}
	return nil
}

// Status returns the HTTP status of an aws-sdk-go-v2 result (0 if unknown).
func Status(md middleware.Metadata) int {
	if r := rawResponse(md); r != nil { //nolint:bodyclose // the SDK has read and closed it
		return r.StatusCode
	}
	return 0
}
