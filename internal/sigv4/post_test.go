package sigv4

import (
	"errors"
	"testing"
	"time"
)

// The example of AWS's "Example: Browser-Based Upload using HTTP POST
// (Using AWS Signature Version 4)"
// (https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-post-example.html):
// its base64 policy, credentials and the signature the page gives.
const (
	awsPostPolicy     = "eyAiZXhwaXJhdGlvbiI6ICIyMDE1LTEyLTMwVDEyOjAwOjAwLjAwMFoiLA0KICAiY29uZGl0aW9ucyI6IFsNCiAgICB7ImJ1Y2tldCI6ICJzaWd2NGV4YW1wbGVidWNrZXQifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRrZXkiLCAidXNlci91c2VyMS8iXSwNCiAgICB7ImFjbCI6ICJwdWJsaWMtcmVhZCJ9LA0KICAgIHsic3VjY2Vzc19hY3Rpb25fcmVkaXJlY3QiOiAiaHR0cDovL3NpZ3Y0ZXhhbXBsZWJ1Y2tldC5zMy5hbWF6b25hd3MuY29tL3N1Y2Nlc3NmdWxfdXBsb2FkLmh0bWwifSwNCiAgICBbInN0YXJ0cy13aXRoIiwgIiRDb250ZW50LVR5cGUiLCAiaW1hZ2UvIl0sDQogICAgeyJ4LWFtei1tZXRhLXV1aWQiOiAiMTQzNjUxMjM2NTEyNzQifSwNCiAgICB7IngtYW16LXNlcnZlci1zaWRlLWVuY3J5cHRpb24iOiAiQUVTMjU2In0sDQogICAgWyJzdGFydHMtd2l0aCIsICIkeC1hbXotbWV0YS10YWciLCAiIl0sDQoNCiAgICB7IngtYW16LWNyZWRlbnRpYWwiOiAiQUtJQUlPU0ZPRE5ON0VYQU1QTEUvMjAxNTEyMjkvdXMtZWFzdC0xL3MzL2F3czRfcmVxdWVzdCJ9LA0KICAgIHsieC1hbXotYWxnb3JpdGhtIjogIkFXUzQtSE1BQy1TSEEyNTYifSwNCiAgICB7IngtYW16LWRhdGUiOiAiMjAxNTEyMjlUMDAwMDAwWiIgfQ0KICBdDQp9"
	awsPostCredential = "AKIAIOSFODNN7EXAMPLE/20151229/us-east-1/s3/aws4_request"
	awsPostSignature  = "8afdbf4008c03f22c2cd3cdb72e4afbb1f6a588f3255ac628749a66d7f09699e"
)

type postCreds map[string]string

func (c postCreds) SecretKey(ak string) (string, bool) { s, ok := c[ak]; return s, ok }

func TestVerifyPOSTAWSExample(t *testing.T) {
	v := &Verifier{Region: "us-east-1", Credentials: postCreds{"AKIAIOSFODNN7EXAMPLE": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}}
	res, err := v.VerifyPOST(awsPostCredential, "20151229T000000Z", awsPostPolicy, awsPostSignature)
	if err != nil {
		t.Fatal(err)
	}
	if res.AccessKey != "AKIAIOSFODNN7EXAMPLE" || res.Scope != "20151229/us-east-1/s3/aws4_request" {
		t.Errorf("result %+v", res)
	}
	if got := SignPOST("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", time.Date(2015, 12, 29, 0, 0, 0, 0, time.UTC), "us-east-1", awsPostPolicy); got != awsPostSignature {
		t.Errorf("SignPOST = %s, AWS gives %s", got, awsPostSignature)
	}
	for _, tc := range []struct {
		name                    string
		cred, date, policy, sig string
		want                    error
	}{
		{"policy changed", awsPostCredential, "20151229T000000Z", awsPostPolicy[:len(awsPostPolicy)-4] + "fQ==", awsPostSignature, ErrSignatureDoesNotMatch},
		{"signature changed", awsPostCredential, "20151229T000000Z", awsPostPolicy, "0" + awsPostSignature[1:], ErrSignatureDoesNotMatch},
		{"unknown key", "AKIDOTHER/20151229/us-east-1/s3/aws4_request", "20151229T000000Z", awsPostPolicy, awsPostSignature, ErrInvalidAccessKeyID},
		{"date not the scope's", awsPostCredential, "20151230T000000Z", awsPostPolicy, awsPostSignature, ErrQueryMalformed},
		{"other region", "AKIAIOSFODNN7EXAMPLE/20151229/eu-west-1/s3/aws4_request", "20151229T000000Z", awsPostPolicy, awsPostSignature, ErrQueryMalformed},
		{"bad date", awsPostCredential, "2015-12-29", awsPostPolicy, awsPostSignature, ErrQueryMalformed},
		{"bad credential", "AKIAIOSFODNN7EXAMPLE", "20151229T000000Z", awsPostPolicy, awsPostSignature, ErrQueryMalformed},
	} {
		if _, err := v.VerifyPOST(tc.cred, tc.date, tc.policy, tc.sig); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
