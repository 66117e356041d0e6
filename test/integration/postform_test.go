package integration

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"hash/crc32"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// Browser-based uploads (PostObject): an HTML form POSTed to the bucket,
// authenticated by its signed policy.

// TestPostObjectMinio uploads with minio-go's PresignedPostPolicy, an
// independent implementation of the form and its SigV4 signature.
func TestPostObjectMinio(t *testing.T) {
	srv, mc, bucket := itest.StartMinio(t)
	c := srv.AWSClient(t)
	ctx := context.Background()
	p := minio.NewPostPolicy()
	_ = p.SetBucket(bucket)
	_ = p.SetKey("uploads/photo.png")
	_ = p.SetExpires(time.Now().Add(10 * time.Minute))
	_ = p.SetContentType("image/png")
	_ = p.SetContentLengthRange(1, 1<<20)
	_ = p.SetUserMetadata("origin", "browser")
	_ = p.SetSuccessStatusAction("201")
	u, fields, err := mc.PresignedPostPolicy(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var form []itest.FormField
	for k, v := range fields {
		form = append(form, itest.FormField{Name: k, Value: v})
	}
	data := itest.RandBytes(1, 70_000)
	resp, body := itest.PostForm(t, u.String(), form, "photo.png", data)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var pr struct {
		Location, Bucket, Key, ETag string
	}
	if err := xml.Unmarshal(body, &pr); err != nil {
		t.Fatalf("201 body %q: %v", body, err)
	}
	if pr.Bucket != bucket || pr.Key != "uploads/photo.png" || pr.ETag != itest.ETag(data) ||
		!strings.HasSuffix(pr.Location, "/"+bucket+"/uploads/photo.png") {
		t.Errorf("PostResponse %+v", pr)
	}
	if resp.Header.Get("ETag") != itest.ETag(data) {
		t.Errorf("ETag header %q", resp.Header.Get("ETag"))
	}
	itest.WantObject(t, c, bucket, "uploads/photo.png", data)
	_, out := itest.Get(t, c, bucket, "uploads/photo.png")
	if aws.ToString(out.ContentType) != "image/png" || out.Metadata["origin"] != "browser" {
		t.Errorf("stored Content-Type %q, metadata %v", aws.ToString(out.ContentType), out.Metadata)
	}

	// Out of content-length-range: refused, nothing stored.
	resp, body = itest.PostForm(t, u.String(), form, "photo.png", nil)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "EntityTooSmall")
	resp, body = itest.PostForm(t, u.String(), form, "photo.png", itest.RandBytes(2, 1<<20+1))
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "EntityTooLarge")
	itest.WantObject(t, c, bucket, "uploads/photo.png", data)
	itest.WantNoStrayFiles(t, srv, c)
}

func postURL(srv *testutil.Server, bucket string) string { return srv.URL + "/" + bucket }

func errMessage(body []byte) string {
	var e itest.XMLError
	_ = xml.Unmarshal(body, &e)
	return e.Message
}

// TestPostObjectForms builds forms by hand: what S3 stores, answers and
// refuses. Every refusal leaves the bucket as it was.
func TestPostObjectForms(t *testing.T) {
	bucket := "forms"
	srv, c := itest.StartBucket(t, bucket)
	endpoint := postURL(srv, bucket)
	future := time.Now().Add(time.Hour)
	base := []any{map[string]string{"bucket": bucket}, []any{"starts-with", "$key", "user/"}}
	with := func(fields []itest.FormField, extra ...itest.FormField) []itest.FormField {
		return append(append([]itest.FormField{}, extra...), fields...)
	}

	t.Run("filename, headers, metadata, tagging, checksum", func(t *testing.T) {
		data := []byte("hello, form")
		sum := crc32.ChecksumIEEE(data)
		crc := base64.StdEncoding.EncodeToString([]byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
		tagging := "<Tagging><TagSet><Tag><Key>team</Key><Value>web</Value></Tag></TagSet></Tagging>"
		fields := with(itest.SignedForm(t, future, append(base,
			[]any{"starts-with", "$Content-Type", "text/"},
			map[string]string{"Cache-Control": "max-age=60"},
			map[string]string{"Content-Disposition": "inline"},
			[]any{"starts-with", "$x-amz-meta-", ""},
			map[string]string{"x-amz-meta-color": "blue"},
			map[string]string{"tagging": tagging},
			map[string]string{"x-amz-checksum-crc32": crc},
			[]any{"content-length-range", 0, 100})...),
			itest.FormField{Name: "key", Value: "user/${filename}"},
			itest.FormField{Name: "Content-Type", Value: "text/plain"},
			itest.FormField{Name: "Cache-Control", Value: "max-age=60"},
			itest.FormField{Name: "Content-Disposition", Value: "inline"},
			itest.FormField{Name: "X-Amz-Meta-Color", Value: "blue"},
			itest.FormField{Name: "tagging", Value: tagging},
			itest.FormField{Name: "x-amz-checksum-crc32", Value: crc},
			itest.FormField{Name: "x-ignore-submit", Value: "Upload"})
		resp, body := itest.PostForm(t, endpoint, fields, "greeting.txt", data)
		if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
			t.Fatalf("status %d %q, want 204 and no body", resp.StatusCode, body)
		}
		if resp.Header.Get("X-Amz-Checksum-Crc32") != crc {
			t.Errorf("checksum header %q, want %q", resp.Header.Get("X-Amz-Checksum-Crc32"), crc)
		}
		itest.WantObject(t, c, bucket, "user/greeting.txt", data)
		_, out := itest.Get(t, c, bucket, "user/greeting.txt")
		if aws.ToString(out.ContentType) != "text/plain" || aws.ToString(out.CacheControl) != "max-age=60" ||
			aws.ToString(out.ContentDisposition) != "inline" || out.Metadata["color"] != "blue" || aws.ToInt32(out.TagCount) != 1 {
			t.Errorf("stored %q %q %q %v tags %d", aws.ToString(out.ContentType), aws.ToString(out.CacheControl),
				aws.ToString(out.ContentDisposition), out.Metadata, aws.ToInt32(out.TagCount))
		}
		// The policy names the checksum: a form with another one breaks it.
		bad := with(fields)
		for i := range bad {
			if bad[i].Name == "x-amz-checksum-crc32" {
				bad[i].Value = "AAAAAA=="
			}
		}
		resp, body = itest.PostForm(t, endpoint, bad, "greeting.txt", []byte("other"))
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
		itest.WantObject(t, c, bucket, "user/greeting.txt", data)
	})

	t.Run("checksum mismatch", func(t *testing.T) {
		fields := with(itest.SignedForm(t, future, append(base, []any{"starts-with", "$x-amz-checksum-crc32", ""})...),
			itest.FormField{Name: "key", Value: "user/bad-sum"},
			itest.FormField{Name: "x-amz-checksum-crc32", Value: "AAAAAA=="})
		resp, body := itest.PostForm(t, endpoint, fields, "f", []byte("data"))
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "BadDigest")
		itest.WantNoObject(t, c, bucket, "user/bad-sum")
	})

	t.Run("success_action_status 200 and 201", func(t *testing.T) {
		for _, status := range []string{"200", "201"} {
			fields := with(itest.SignedForm(t, future, append(base, map[string]string{"success_action_status": status})...),
				itest.FormField{Name: "key", Value: "user/s" + status},
				itest.FormField{Name: "success_action_status", Value: status})
			resp, body := itest.PostForm(t, endpoint, fields, "f", []byte(status))
			if want := map[string]int{"200": 200, "201": 201}[status]; resp.StatusCode != want {
				t.Fatalf("%s: status %d %s", status, resp.StatusCode, body)
			}
			if status == "201" && !bytes.Contains(body, []byte("<PostResponse>")) {
				t.Errorf("201 body %q", body)
			}
			itest.WantObject(t, c, bucket, "user/s"+status, []byte(status))
		}
	})

	t.Run("redirect", func(t *testing.T) {
		target := "https://app.example.com/done?from=form"
		fields := with(itest.SignedForm(t, future, append(base, []any{"starts-with", "$success_action_redirect", "https://app.example.com/"})...),
			itest.FormField{Name: "key", Value: "user/redirected"},
			itest.FormField{Name: "success_action_redirect", Value: target})
		resp, body := itest.PostForm(t, endpoint, fields, "f", []byte("r"))
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("status %d %s", resp.StatusCode, body)
		}
		loc, err := url.Parse(resp.Header.Get("Location"))
		if err != nil || loc.Host != "app.example.com" || loc.Query().Get("from") != "form" ||
			loc.Query().Get("bucket") != bucket || loc.Query().Get("key") != "user/redirected" || loc.Query().Get("etag") != itest.ETag([]byte("r")) {
			t.Errorf("Location %q", resp.Header.Get("Location"))
		}
	})

	t.Run("SigV2", func(t *testing.T) {
		doc := `{"expiration":"` + future.UTC().Format(time.RFC3339) + `","conditions":[{"bucket":"` + bucket + `"},["starts-with","$key","user/"]]}`
		policy := base64.StdEncoding.EncodeToString([]byte(doc))
		fields := []itest.FormField{{Name: "key", Value: "user/v2"}, {Name: "AWSAccessKeyId", Value: testutil.AccessKey},
			{Name: "policy", Value: policy}, {Name: "signature", Value: sigv2.SignPOST(testutil.SecretKey, policy)}}
		resp, body := itest.PostForm(t, endpoint, fields, "f", []byte("v2"))
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("status %d %s", resp.StatusCode, body)
		}
		itest.WantObject(t, c, bucket, "user/v2", []byte("v2"))
		// No Content-Type field: S3's default, not the file part's own
		// Content-Type (application/octet-stream here), which S3 ignores.
		head, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("user/v2")})
		if err != nil || aws.ToString(head.ContentType) != "binary/octet-stream" {
			t.Errorf("Content-Type %q (%v), want binary/octet-stream", aws.ToString(head.ContentType), err)
		}
		fields[3].Value = sigv2.SignPOST("wrong", policy)
		resp, body = itest.PostForm(t, endpoint, fields, "f", []byte("x"))
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
	})

	refusals := []struct {
		name    string
		fields  []itest.FormField
		data    []byte
		status  int
		code    string
		message string
	}{
		{"expired", with(itest.SignedForm(t, time.Now().Add(-time.Second), base...), itest.FormField{Name: "key", Value: "user/x"}),
			[]byte("x"), 403, "AccessDenied", "Invalid according to Policy: Policy expired."},
		{"key outside starts-with", with(itest.SignedForm(t, future, base...), itest.FormField{Name: "key", Value: "admin/x"}),
			[]byte("x"), 403, "AccessDenied", `Invalid according to Policy: Policy Condition failed: ["starts-with", "$key", "user/"]`},
		{"field not covered", with(itest.SignedForm(t, future, base...), itest.FormField{Name: "key", Value: "user/x"},
			itest.FormField{Name: "x-amz-meta-sneaky", Value: "1"}),
			[]byte("x"), 403, "AccessDenied", "Invalid according to Policy: Extra input fields: x-amz-meta-sneaky"},
		{"too large", with(itest.SignedForm(t, future, append(base, []any{"content-length-range", 1, 1000})...), itest.FormField{Name: "key", Value: "user/x"}),
			itest.RandBytes(3, 300_000), 400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size"},
		{"too small", with(itest.SignedForm(t, future, append(base, []any{"content-length-range", 10, 1000})...), itest.FormField{Name: "key", Value: "user/x"}),
			[]byte("x"), 400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size"},
		{"no key", itest.SignedForm(t, future, base...), []byte("x"), 400, "InvalidArgument",
			"Bucket POST must contain a field named 'key'.  If it is specified, please check the order of the fields."},
		{"no policy", []itest.FormField{{Name: "key", Value: "user/x"}, {Name: "x-amz-algorithm", Value: "AWS4-HMAC-SHA256"}},
			[]byte("x"), 400, "InvalidArgument", "Bucket POST must contain a field named 'x-amz-credential'."},
		{"unsigned", []itest.FormField{{Name: "key", Value: "user/x"}}, []byte("x"), 403, "AccessDenied", "Access Denied"},
		{"public-read acl", with(itest.SignedForm(t, future, append(base, map[string]string{"acl": "public-read"})...),
			itest.FormField{Name: "key", Value: "user/x"}, itest.FormField{Name: "acl", Value: "public-read"}),
			[]byte("x"), 400, "AccessControlListNotSupported", "The bucket does not allow ACLs"},
	}
	for _, tc := range refusals {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := itest.PostForm(t, endpoint, tc.fields, "f", tc.data)
			itest.WantRawErr(t, resp, body, tc.status, tc.code)
			if tc.message != "" && errMessage(body) != tc.message {
				t.Errorf("message %q, want %q", errMessage(body), tc.message)
			}
			itest.WantNoObject(t, c, bucket, "user/x")
		})
	}
	t.Run("bad signature", func(t *testing.T) {
		fields := with(itest.SignedForm(t, future, base...), itest.FormField{Name: "key", Value: "user/x"})
		for i := range fields {
			if fields[i].Name == "x-amz-signature" {
				fields[i].Value = strings.Repeat("0", 64)
			}
		}
		resp, body := itest.PostForm(t, endpoint, fields, "f", []byte("x"))
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "SignatureDoesNotMatch")
		itest.WantNoObject(t, c, bucket, "user/x")
	})
	t.Run("fields before the file too large", func(t *testing.T) {
		fields := with(itest.SignedForm(t, future, base...), itest.FormField{Name: "key", Value: "user/x"},
			itest.FormField{Name: "x-ignore-pad", Value: strings.Repeat("p", 21<<10)})
		resp, body := itest.PostForm(t, endpoint, fields, "f", []byte("x"))
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "MaxPostPreDataLengthExceeded")
	})
	t.Run("no file", func(t *testing.T) {
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		for _, f := range with(itest.SignedForm(t, future, base...), itest.FormField{Name: "key", Value: "user/x"}) {
			_ = mw.WriteField(f.Name, f.Value)
		}
		mw.Close()
		req := itest.URLRequest(t, http.MethodPost, endpoint, b.Bytes())
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, body := itest.Do(t, req)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
	})
	itest.WantNoStrayFiles(t, srv, c)
}

// TestPostObjectCurl uploads with curl's multipart form (-F), as a shell
// script or a browser's form would.
func TestPostObjectCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	bucket := "curlform"
	srv, c := itest.StartBucket(t, bucket)
	file := filepath.Join(t.TempDir(), "report.csv")
	data := []byte("a,b\n1,2\n")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	fields := append([]itest.FormField{{Name: "key", Value: "in/${filename}"}, {Name: "Content-Type", Value: "text/csv"}},
		itest.SignedForm(t, time.Now().Add(time.Hour),
			map[string]string{"bucket": bucket}, []any{"starts-with", "$key", "in/"},
			map[string]string{"Content-Type": "text/csv"}, []any{"content-length-range", 1, 1 << 20})...)
	args := []string{"-sS", "-o", "/dev/null", "-w", "%{http_code}"}
	for _, f := range fields {
		args = append(args, "--form-string", f.Name+"="+f.Value)
	}
	args = append(args, "-F", "file=@"+file, postURL(srv, bucket))
	out, err := exec.Command(curl, args...).CombinedOutput()
	if err != nil || string(out) != "204" {
		t.Fatalf("curl: %v: %s", err, out)
	}
	itest.WantObject(t, c, bucket, "in/report.csv", data)
	head, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String("in/report.csv")})
	if err != nil || aws.ToString(head.ContentType) != "text/csv" {
		t.Fatalf("head: %v %q", err, aws.ToString(head.ContentType))
	}
}
