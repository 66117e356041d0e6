package itest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
)

// FormField is one field of an HTML form upload (PostObject), in order.
type FormField struct{ Name, Value string }

// SignedForm returns the fields that authenticate a browser-based upload
// with SigV4 for the test credentials: x-amz-algorithm, x-amz-credential,
// x-amz-date, policy (base64 of a document expiring at exp with the
// conditions given plus those on the three x-amz-* fields) and
// x-amz-signature. Conditions are JSON values: {"key": "k"},
// ["starts-with", "$key", "p/"], ["content-length-range", 1, 10].
func SignedForm(t testing.TB, exp time.Time, conditions ...any) []FormField {
	t.Helper()
	return SignedFormAs(t, testutil.AccessKey, testutil.SecretKey, exp, conditions...)
}

// SignedFormAs is SignedForm signed with another key pair (an IAM user's).
func SignedFormAs(t testing.TB, accessKey, secretKey string, exp time.Time, conditions ...any) []FormField {
	t.Helper()
	now := time.Now().UTC()
	cred := accessKey + "/" + now.Format("20060102") + "/" + testutil.Region + "/s3/aws4_request"
	date := now.Format(sigv4.AmzDateFormat)
	conds := append(conditions,
		map[string]string{"x-amz-algorithm": sigv4.Algorithm},
		map[string]string{"x-amz-credential": cred},
		map[string]string{"x-amz-date": date})
	doc, err := json.Marshal(map[string]any{"expiration": exp.UTC().Format("2006-01-02T15:04:05.000Z"), "conditions": conds})
	if err != nil {
		t.Fatal(err)
	}
	policy := base64.StdEncoding.EncodeToString(doc)
	return []FormField{
		{"x-amz-algorithm", sigv4.Algorithm}, {"x-amz-credential", cred}, {"x-amz-date", date},
		{"policy", policy}, {"x-amz-signature", sigv4.SignPOST(secretKey, now, testutil.Region, policy)},
	}
}

// PostForm sends a browser-style upload to url: the fields in order, then
// the file part (fileName, content), as multipart/form-data.
func PostForm(t testing.TB, url string, fields []FormField, fileName string, content []byte) (*http.Response, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		if err := mw.WriteField(f.Name, f.Value); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("file", fileName)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	mw.Close()
	req, err := http.NewRequest(http.MethodPost, url, &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	// A browser follows a redirect; the tests look at it.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}
