package s3api

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
)

const notifyTarget = "arn:jog:sqs:us-east-1:hook:webhook"

// memQueue is an in-memory notify.Queue with one target, notifyTarget.
type memQueue struct {
	mu sync.Mutex
	ds []notify.Delivery
}

func (q *memQueue) Enqueue(_ context.Context, ds []notify.Delivery) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ds = append(q.ds, ds...)
	return nil
}

func (q *memQueue) Target(arn string) bool { return arn == notifyTarget }

// notifyHandler is a handler over a real service with q (nil: the
// feature off) and bucket "bkt".
func notifyHandler(t *testing.T, q notify.Queue) *Handler {
	t.Helper()
	dir := t.TempDir()
	m, err := sqlite.OpenWith(t.Context(), filepath.Join(dir, "jog.db"), sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	blobs, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	blobs.NoSync = true
	log := slog.New(slog.DiscardHandler)
	svc := service.NewWith(m, blobs, log, service.Options{Notify: q})
	if err := svc.CreateBucket(t.Context(), "bkt", fuzzRegion, fuzzAccessKey); err != nil {
		t.Fatal(err)
	}
	return New(svc, Config{Region: fuzzRegion, Logger: log, Credentials: StaticCredentials{fuzzAccessKey: fuzzSecretKey}})
}

// do sends a signed request with body and the given header pairs.
func do(t *testing.T, h *Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.RemoteAddr = "192.0.2.9:1234"
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	sum := sha256.Sum256([]byte(body))
	sigv4.SignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, time.Now(), hex.EncodeToString(sum[:]))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

func errorCode(t *testing.T, rec *httptest.ResponseRecorder) (code, msg string) {
	t.Helper()
	var e struct{ Code, Message string }
	if err := xml.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	return e.Code, e.Message
}

const notifyConfig = `<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><QueueConfiguration>` +
	`<Id>images</Id><Queue>` + notifyTarget + `</Queue><Event>s3:ObjectCreated:*</Event><Event>s3:ObjectRemoved:Delete</Event>` +
	`<Filter><S3Key><FilterRule><Name>prefix</Name><Value>images/</Value></FilterRule>` +
	`<FilterRule><Name>suffix</Name><Value>.jpg</Value></FilterRule></S3Key></Filter>` +
	`</QueueConfiguration></NotificationConfiguration>`

// TestBucketNotificationPutGet: the empty document first, the stored one
// as S3 answers it after a PUT, the empty one again after an empty PUT.
func TestBucketNotificationPutGet(t *testing.T) {
	h := notifyHandler(t, &memQueue{})
	rec := do(t, h, "GET", "/bkt?notification", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET: %d %s", rec.Code, rec.Body)
	}
	checkGolden(t, "notification-empty", rec.Body.Bytes())
	if rec := do(t, h, "PUT", "/bkt?notification", notifyConfig); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
	}
	rec = do(t, h, "GET", "/bkt?notification", "")
	checkGolden(t, "notification", rec.Body.Bytes())
	if rec := do(t, h, "PUT", "/bkt?notification", `<NotificationConfiguration/>`); rec.Code != http.StatusOK {
		t.Fatalf("empty PUT: %d %s", rec.Code, rec.Body)
	}
	rec = do(t, h, "GET", "/bkt?notification", "")
	checkGolden(t, "notification-empty", rec.Body.Bytes())
	if rec := do(t, h, "GET", "/nobucket?notification", ""); rec.Code != http.StatusNotFound {
		t.Fatalf("GET of a missing bucket: %d", rec.Code)
	}
	if rec := do(t, h, "PUT", "/nobucket?notification", notifyConfig); rec.Code != http.StatusNotFound {
		t.Fatalf("PUT to a missing bucket: %d", rec.Code)
	}
}

// TestBucketNotificationRefusals: S3's answers to what cannot be stored.
func TestBucketNotificationRefusals(t *testing.T) {
	h := notifyHandler(t, &memQueue{})
	other := strings.ReplaceAll(notifyConfig, notifyTarget, "arn:jog:sqs:us-east-1:other:webhook")
	sum := md5.Sum([]byte("something else"))
	for _, c := range []struct {
		name, body string
		header     []string
		status     int
		code, msg  string
	}{
		{"unknown target", other, nil, 400, "InvalidArgument", notify.MsgUnvalidated},
		{"topic", `<NotificationConfiguration><TopicConfiguration><Topic>arn:aws:sns:us-east-1:1:t</Topic><Event>s3:ObjectCreated:*</Event></TopicConfiguration></NotificationConfiguration>`,
			nil, 400, "InvalidArgument", notify.MsgUnvalidated},
		{"eventbridge", `<NotificationConfiguration><EventBridgeConfiguration/></NotificationConfiguration>`, nil, 501, "NotImplemented", ""},
		{"unknown event", strings.ReplaceAll(notifyConfig, "s3:ObjectRemoved:Delete", "s3:ObjectRemoved:Shred"), nil, 400, "InvalidArgument", "The event is not supported for notifications"},
		{"overlap", strings.ReplaceAll(notifyConfig, "</QueueConfiguration>", "</QueueConfiguration><QueueConfiguration><Queue>"+notifyTarget+"</Queue><Event>s3:ObjectCreated:Put</Event></QueueConfiguration>"),
			nil, 400, "InvalidArgument", notify.MsgOverlap},
		{"malformed", "<NotificationConfiguration><QueueConfiguration>", nil, 400, "MalformedXML", ""},
		{"bad Content-MD5", notifyConfig, []string{"Content-MD5", base64.StdEncoding.EncodeToString(sum[:])}, 400, "BadDigest", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := do(t, h, "PUT", "/bkt?notification", c.body, c.header...)
			code, msg := errorCode(t, rec)
			if rec.Code != c.status || code != c.code || (c.msg != "" && msg != c.msg) {
				t.Fatalf("got %d %s %q, want %d %s %q", rec.Code, code, msg, c.status, c.code, c.msg)
			}
		})
	}
	// x-amz-skip-destination-validation: the unknown target is accepted.
	if rec := do(t, h, "PUT", "/bkt?notification", other, "x-amz-skip-destination-validation", "true"); rec.Code != http.StatusOK {
		t.Fatalf("skipped validation: %d %s", rec.Code, rec.Body)
	}
	// Without targets (the feature off) every destination is refused.
	off := notifyHandler(t, nil)
	if rec := do(t, off, "PUT", "/bkt?notification", notifyConfig); rec.Code != http.StatusBadRequest {
		t.Fatalf("no targets: %d %s", rec.Code, rec.Body)
	}
}

// TestBucketNotificationRequestInfo: an event carries the request's IDs as
// answered, its principal and source address.
func TestBucketNotificationRequestInfo(t *testing.T) {
	q := &memQueue{}
	h := notifyHandler(t, q)
	if rec := do(t, h, "PUT", "/bkt?notification", notifyConfig); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
	}
	rec := do(t, h, "PUT", "/bkt/images/a%20b.jpg", "data")
	if rec.Code != http.StatusOK {
		t.Fatalf("PutObject: %d %s", rec.Code, rec.Body)
	}
	do(t, h, "PUT", "/bkt/other.jpg", "data")
	if len(q.ds) != 1 {
		t.Fatalf("%d deliveries, want 1", len(q.ds))
	}
	d := q.ds[0]
	e := d.Event
	if d.Target != notifyTarget || e.EventName != "ObjectCreated:Put" || e.S3.Object.Key != "images/a+b.jpg" ||
		e.ResponseElements.RequestID != rec.Header().Get("x-amz-request-id") || e.ResponseElements.HostID != rec.Header().Get("x-amz-id-2") ||
		e.UserIdentity.PrincipalID != fuzzAccessKey || e.RequestParameters.SourceIPAddress != "192.0.2.9" ||
		`"`+e.S3.Object.ETag+`"` != rec.Header().Get("ETag") || e.S3.Object.Size == nil || *e.S3.Object.Size != 4 {
		t.Errorf("delivery %+v for answer %v", d, rec.Header())
	}
	if !bytes.Contains([]byte(e.EventTime), []byte("Z")) {
		t.Errorf("eventTime %q", e.EventTime)
	}

	// DeleteObjects: an event per key removed, with the request's ID.
	del := `<Delete><Object><Key>images/a b.jpg</Key></Object><Object><Key>images/gone.jpg</Key></Object><Object><Key>other.jpg</Key></Object></Delete>`
	sum := md5.Sum([]byte(del))
	rec = do(t, h, "POST", "/bkt?delete", del, "Content-MD5", base64.StdEncoding.EncodeToString(sum[:]))
	if rec.Code != http.StatusOK {
		t.Fatalf("DeleteObjects: %d %s", rec.Code, rec.Body)
	}
	var got []string
	for _, d := range q.ds[1:] {
		got = append(got, d.Event.EventName+" "+d.Event.S3.Object.Key)
		if d.Event.ResponseElements.RequestID != rec.Header().Get("x-amz-request-id") {
			t.Errorf("DeleteObjects event with request ID %q", d.Event.ResponseElements.RequestID)
		}
	}
	if strings.Join(got, ",") != "ObjectRemoved:Delete images/a+b.jpg,ObjectRemoved:Delete images/gone.jpg" {
		t.Errorf("DeleteObjects events %v", got)
	}
}

// TestBucketNotificationPost: a browser-based upload is ObjectCreated:Post,
// with the form's signer as principal.
func TestBucketNotificationPost(t *testing.T) {
	q := &memQueue{}
	h := notifyHandler(t, q)
	if rec := do(t, h, "PUT", "/bkt?notification", notifyConfig); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
	}
	now := time.Now().UTC()
	cred := fuzzAccessKey + "/" + now.Format("20060102") + "/" + fuzzRegion + "/s3/aws4_request"
	date := now.Format(sigv4.AmzDateFormat)
	doc, err := json.Marshal(map[string]any{"expiration": now.Add(time.Hour).Format("2006-01-02T15:04:05.000Z"),
		"conditions": []any{map[string]string{"bucket": "bkt"}, []string{"starts-with", "$key", "images/"},
			map[string]string{"x-amz-algorithm": sigv4.Algorithm}, map[string]string{"x-amz-credential": cred}, map[string]string{"x-amz-date": date}}})
	if err != nil {
		t.Fatal(err)
	}
	policy := base64.StdEncoding.EncodeToString(doc)
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range [][2]string{{"key", "images/form.jpg"}, {"x-amz-algorithm", sigv4.Algorithm}, {"x-amz-credential", cred},
		{"x-amz-date", date}, {"policy", policy}, {"x-amz-signature", sigv4.SignPOST(fuzzSecretKey, now, fuzzRegion, policy)}} {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("file", "form.jpg")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte("jpeg"))
	mw.Close()
	r := httptest.NewRequest("POST", "/bkt", &b)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code/100 != 2 {
		t.Fatalf("PostObject: %d %s", rec.Code, rec.Body)
	}
	if len(q.ds) != 1 {
		t.Fatalf("%d deliveries, want 1", len(q.ds))
	}
	if e := q.ds[0].Event; e.EventName != "ObjectCreated:Post" || e.S3.Object.Key != "images/form.jpg" ||
		e.UserIdentity.PrincipalID != fuzzAccessKey || e.ResponseElements.RequestID != rec.Header().Get("x-amz-request-id") {
		t.Errorf("event %+v", e)
	}
}
