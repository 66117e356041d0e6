package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// reservationDoc is a reservation as the API answers it.
type reservationDoc struct {
	ID                              string `xml:"Id"`
	Bucket, State, Owner, Principal string
	Read                            int64 `xml:"ReadBytesPerSecond"`
	Write                           int64 `xml:"WriteBytesPerSecond"`
	Start, End                      string
}

// rsvCall sends a signed request (as who: "" the root, else routeKeys'
// user) and returns the response and its body.
func rsvCall(t *testing.T, srv *testutil.Server, who, method, path string, body []byte, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := itest.RawRequest(t, srv, method, path, body)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	o := itest.SignOpts{}
	if who != "" {
		o.AccessKey, o.SecretKey = routeKeys[who][0], routeKeys[who][1]
	}
	itest.Sign(t, req, body, o)
	return itest.Do(t, req)
}

func rsvBody(read, write int64, start, end time.Time, principal string) []byte {
	p := ""
	if principal != "" {
		p = "<Principal>" + principal + "</Principal>"
	}
	return fmt.Appendf(nil, "<Reservation><ReadBytesPerSecond>%d</ReadBytesPerSecond><WriteBytesPerSecond>%d</WriteBytesPerSecond><Start>%s</Start><End>%s</End>%s</Reservation>",
		read, write, start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), p)
}

// createRsv creates a reservation as the root and returns it.
func createRsv(t *testing.T, srv *testutil.Server, bucket string, body []byte) reservationDoc {
	t.Helper()
	resp, out := rsvCall(t, srv, "", "POST", "/"+bucket+"?reservations", body, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create reservation: %s %s", resp.Status, out)
	}
	var r reservationDoc
	if err := xml.Unmarshal(out, &r); err != nil || r.ID == "" {
		t.Fatalf("create reservation answered %s: %v", out, err)
	}
	return r
}

// TestReservationsAPI: create, list, show and cancel through the S3
// endpoint and jog admin; admission refuses what does not fit, naming
// what is left; reservations survive a restart.
func TestReservationsAPI(t *testing.T) {
	dir := t.TempDir()
	opts := []testutil.Option{testutil.WithDataDir(dir), testutil.WithoutFsync(), testutil.WithQoSCapacity(300e6, 150e6)}
	srv := testutil.StartServer(t, opts...)
	root := itest.AWSClient(t, srv)
	itest.CreateBucket(t, root, "rsv")
	itest.CreateBucket(t, root, "rsv2")
	itest.CreateBucket(t, root, "rsv3")
	ctx := context.Background()
	admin := func(args ...string) (string, int) { return jogAdmin(srv, args...) }

	now := time.Now().UTC().Truncate(time.Second)
	out, code := admin("reservation", "create", "--read", "200MB/s", "--write", "50MB/s", "--duration", "2h", "rsv")
	if code != 0 {
		t.Fatalf("jog admin reservation create: exit %d: %s", code, out)
	}
	f := strings.Split(strings.TrimSpace(out), "\t")
	if len(f) < 7 || len(f[0]) != 32 || f[1] != "active" || f[2] != "200MB/s" || f[3] != "50MB/s" {
		t.Fatalf("reservation create printed %q", out)
	}
	id := f[0]
	// Admission: of the 95% of the capacity reservable (5% is best
	// effort's guard), 85 MB/s of reads and 92.5 MB/s of writes are left
	// over the next two hours; a reservation of more is refused, naming
	// them.
	resp, body := rsvCall(t, srv, "", "POST", "/rsv2?reservations", rsvBody(85e6+1, 0, now, now.Add(time.Hour), ""), nil)
	itest.WantRawErr(t, resp, body, http.StatusConflict, "InsufficientCapacity")
	if !bytes.Contains(body, []byte("85MB/s of reads, 92500KB/s of writes and 0 requests/s")) {
		t.Errorf("the refusal does not say what is left: %s", body)
	}
	out, code = admin("reservation", "create", "--read", "85MB/s", "--write", "93MB/s", "rsv2")
	if code != 1 || !strings.Contains(out, "InsufficientCapacity") || !strings.Contains(out, "92500KB/s of writes") {
		t.Errorf("jog admin over capacity: exit %d: %s", code, out)
	}
	// Later, after the first ends, everything is free again.
	later := createRsv(t, srv, "rsv2", rsvBody(285e6, 142.5e6, now.Add(3*time.Hour), now.Add(4*time.Hour), ""))
	if later.State != "pending" || later.Owner != "arn:aws:iam::"+accountOf(t, srv)+":root" {
		t.Errorf("created %+v: want pending, owned by the root's ARN", later)
	}
	// Bad requests.
	for name, b := range map[string][]byte{
		"no rate":       rsvBody(0, 0, now, now.Add(time.Hour), ""),
		"backwards":     rsvBody(1, 0, now.Add(time.Hour), now, ""),
		"past":          rsvBody(1, 0, now.Add(-2*time.Hour), now.Add(-time.Hour), ""),
		"bad time":      []byte("<Reservation><ReadBytesPerSecond>1</ReadBytesPerSecond><Start>tomorrow</Start><End>later</End></Reservation>"),
		"bad principal": rsvBody(1, 0, now, now.Add(time.Hour), "alice"),
	} {
		resp, body := rsvCall(t, srv, "", "POST", "/rsv?reservations", b, nil)
		if resp.StatusCode != http.StatusBadRequest || itest.BodyCode(body) != "InvalidArgument" {
			t.Errorf("%s: %s %s, want 400 InvalidArgument", name, resp.Status, body)
		}
	}
	resp, body = rsvCall(t, srv, "", "POST", "/nosuch?reservations", rsvBody(1, 0, now, now.Add(time.Hour), ""), nil)
	itest.WantRawErr(t, resp, body, http.StatusNotFound, "NoSuchBucket")

	// List and show.
	if out, code := admin("reservation", "ls", "rsv"); code != 0 || !strings.HasPrefix(out, "Id\tState\tReadBytesPerSecond\t") ||
		!strings.Contains(out, "\n"+id+"\tactive\t200MB/s\t50MB/s\t") || strings.Count(out, "\n") != 2 {
		t.Errorf("reservation ls: exit %d: %q; want a header line and the reservation", code, out)
	}
	if out, code := admin("reservation", "ls", "rsv", "--json"); code != 0 || !strings.Contains(out, `"Id": "`+id+`"`) || !strings.Contains(out, `"ReadBytesPerSecond": "200000000"`) {
		t.Errorf("reservation ls --json: exit %d: %q", code, out)
	}
	if out, code := admin("reservation", "ls", "rsv3"); code != 0 || out != "no reservations\n" {
		t.Errorf("reservation ls of a bucket with none: exit %d: %q", code, out)
	}
	resp, body = rsvCall(t, srv, "", "GET", "/rsv2?reservations", nil, nil)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("<Capacity><ReadBytesPerSecond>300000000</ReadBytesPerSecond><WriteBytesPerSecond>150000000</WriteBytesPerSecond></Capacity>")) ||
		!bytes.Contains(body, []byte(later.ID)) {
		t.Errorf("list rsv2: %s %s", resp.Status, body)
	}
	if out, code := admin("reservation", "show", "rsv", id); code != 0 || !strings.HasPrefix(out, id+"\tactive\t") {
		t.Errorf("reservation show: exit %d: %q", code, out)
	}
	// Another bucket's ID is not found there.
	resp, body = rsvCall(t, srv, "", "GET", "/rsv2?reservation="+id, nil, nil)
	itest.WantRawErr(t, resp, body, http.StatusNotFound, "NoSuchReservation")

	// A restart keeps them, and the capacity they hold.
	srv.Stop()
	srv = testutil.StartServer(t, opts...)
	root = itest.AWSClient(t, srv)
	if out, code := admin("reservation", "show", "rsv", id); code != 0 || !strings.HasPrefix(out, id+"\tactive\t200MB/s\t50MB/s\t") {
		t.Errorf("reservation show after a restart: exit %d: %q", code, out)
	}
	resp, body = rsvCall(t, srv, "", "POST", "/rsv2?reservations", rsvBody(86e6, 0, now, now.Add(time.Hour), ""), nil)
	itest.WantRawErr(t, resp, body, http.StatusConflict, "InsufficientCapacity")
	resp, body = rsvCall(t, srv, "", "PUT", "/rsv/k", []byte("data"), map[string]string{"x-jog-reservation-id": id})
	if resp.StatusCode != 200 || resp.Header.Get("X-Jog-Reservation-Id") != id {
		t.Errorf("PUT presenting the reservation after a restart: %s %s", resp.Status, body)
	}

	// Cancel: gone, and its capacity free.
	if out, code := admin("reservation", "rm", "rsv", id); code != 0 {
		t.Fatalf("reservation rm: exit %d: %s", code, out)
	}
	if out, code := admin("reservation", "rm", "rsv", id); code != 1 || !strings.Contains(out, "NoSuchReservation") {
		t.Errorf("reservation rm again: exit %d: %s", code, out)
	}
	gone := createRsv(t, srv, "rsv2", rsvBody(285e6, 142.5e6, now, now.Add(time.Hour), "")).ID
	resp, body = rsvCall(t, srv, "", "PUT", "/rsv2/k", []byte("data"), map[string]string{"x-jog-reservation-id": gone})
	if resp.StatusCode != 200 {
		t.Fatalf("PUT presenting %s: %s %s", gone, resp.Status, body)
	}
	// Deleting the bucket deletes its reservations, at once: a bucket
	// created again under the name has none.
	if _, err := root.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("rsv2"), Key: aws.String("k")}); err != nil {
		t.Fatal(err)
	}
	if _, err := root.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("rsv2")}); err != nil {
		t.Fatal(err)
	}
	itest.CreateBucket(t, root, "rsv2")
	resp, body = rsvCall(t, srv, "", "PUT", "/rsv2/k", []byte("data"), map[string]string{"x-jog-reservation-id": gone})
	itest.WantRawErr(t, resp, body, http.StatusNotFound, "NoSuchReservation")
	createRsv(t, srv, "rsv", rsvBody(285e6, 142.5e6, now, now.Add(time.Hour), ""))
}

// accountOf is the server's IAM account ID.
func accountOf(t *testing.T, srv *testutil.Server) string {
	t.Helper()
	id, err := stsClient(t, srv, srv.Config.AccessKey, srv.Config.SecretKey, "").GetCallerIdentity(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(id.Account)
}

// TestReservationsNotConfigured: without a capacity, creation is refused
// with an error that says how to configure one; after jog calibrate
// saved one in the data dir, the server admits against it (a flag still
// wins for its direction).
func TestReservationsNotConfigured(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithDataDir(dir))
	itest.CreateBucket(t, itest.AWSClient(t, srv), "bkt")
	now := time.Now()
	resp, body := rsvCall(t, srv, "", "POST", "/bkt?reservations", rsvBody(1, 0, now, now.Add(time.Hour), ""), nil)
	itest.WantRawErr(t, resp, body, http.StatusConflict, "CapacityNotConfigured")
	if !bytes.Contains(body, []byte("--qos-read-capacity")) || !bytes.Contains(body, []byte("jog calibrate")) {
		t.Errorf("the refusal does not say how to configure capacity: %s", body)
	}
	// A request rate without --qos-request-capacity is refused, not
	// stored and left unenforced.
	rps := fmt.Appendf(nil, "<Reservation><RequestsPerSecond>10</RequestsPerSecond><Start>%s</Start><End>%s</End></Reservation>",
		now.UTC().Format(time.RFC3339), now.Add(time.Hour).UTC().Format(time.RFC3339))
	resp, body = rsvCall(t, srv, "", "POST", "/bkt?reservations", rps, nil)
	itest.WantRawErr(t, resp, body, http.StatusConflict, "CapacityNotConfigured")
	if !bytes.Contains(body, []byte("--qos-request-capacity")) {
		t.Errorf("the refusal of a request rate does not name --qos-request-capacity: %s", body)
	}
	srv.Stop()

	var out, errOut bytes.Buffer
	if code := cli.Run(context.Background(), []string{"calibrate", "--data-dir", dir, "--size", "2MiB"}, &out, &errOut); code != 0 {
		t.Fatalf("jog calibrate: exit %d: %s %s", code, out.String(), errOut.String())
	}
	cal, ok, err := qos.LoadCalibration(dir)
	if err != nil || !ok {
		t.Fatalf("no calibration saved: %v", err)
	}
	srv = testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithDataDir(dir), testutil.WithQoSCapacity(0, 12345))
	resp, body = rsvCall(t, srv, "", "GET", "/bkt?reservations", nil, nil)
	want := fmt.Sprintf("<Capacity><ReadBytesPerSecond>%d</ReadBytesPerSecond><WriteBytesPerSecond>12345</WriteBytesPerSecond></Capacity>", cal.ReadBytesPerSecond)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(want)) {
		t.Errorf("capacity after jog calibrate: %s %s, want %s", resp.Status, body, want)
	}
	createRsv(t, srv, "bkt", rsvBody(1, 0, now, now.Add(time.Hour), ""))
}

// TestReservationPresented: GET, ranged GET, PUT, UploadPart and
// UploadPartCopy present a reservation by header or presigned query
// parameter; an unknown one, another bucket's, a pending or an expired
// one is refused with nothing done; a bound principal draws on its own
// without naming it.
func TestReservationPresented(t *testing.T) {
	srv := startRoutesServer(t)
	root := itest.AWSClient(t, srv)
	ctx := context.Background()
	itest.CreateBucket(t, root, "pbk")
	itest.CreateBucket(t, root, "other")
	itest.Put(t, root, "pbk", "obj", []byte("0123456789"))
	now := time.Now().UTC().Truncate(time.Second)
	active := createRsv(t, srv, "pbk", rsvBody(1e6, 1e6, now.Add(-time.Minute), now.Add(time.Hour), "")).ID
	pending := createRsv(t, srv, "pbk", rsvBody(1e6, 1e6, now.Add(time.Hour), now.Add(2*time.Hour), "")).ID
	others := createRsv(t, srv, "other", rsvBody(1e6, 1e6, now.Add(-time.Minute), now.Add(time.Hour), "")).ID
	expiring := createRsv(t, srv, "pbk", rsvBody(1e6, 1e6, now.Add(-time.Minute), now.Add(2*time.Second), "")).ID

	up, err := root.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("pbk"), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	upload := aws.ToString(up.UploadId)
	type call struct {
		name, method, path string
		body               []byte
		hdr                map[string]string
	}
	calls := []call{
		{"GetObject", "GET", "/pbk/obj", nil, nil},
		{"ranged GetObject", "GET", "/pbk/obj", nil, map[string]string{"Range": "bytes=2-5"}},
		{"PutObject", "PUT", "/pbk/new", []byte("new"), nil},
		{"UploadPart", "PUT", "/pbk/mp?partNumber=1&uploadId=" + upload, []byte("part"), nil},
		{"UploadPartCopy", "PUT", "/pbk/mp?partNumber=2&uploadId=" + upload, nil, map[string]string{"X-Amz-Copy-Source": "/pbk/obj"}},
	}
	with := func(c call, id string) map[string]string {
		h := map[string]string{"x-jog-reservation-id": id}
		for k, v := range c.hdr {
			h[k] = v
		}
		return h
	}
	parts := func() int {
		out, err := root.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String("pbk"), Key: aws.String("mp"), UploadId: aws.String(upload)})
		if err != nil {
			t.Fatal(err)
		}
		return len(out.Parts)
	}
	for _, c := range calls {
		for _, bad := range []struct {
			id     string
			status int
			code   string
		}{
			{"nosuchreservation", http.StatusNotFound, "NoSuchReservation"},
			{others, http.StatusBadRequest, "ReservationBucketMismatch"},
			{pending, http.StatusForbidden, "ReservationNotActive"},
		} {
			resp, body := rsvCall(t, srv, "", c.method, c.path, c.body, with(c, bad.id))
			if resp.StatusCode != bad.status || itest.BodyCode(body) != bad.code {
				t.Errorf("%s presenting %s: %s %s, want %d %s", c.name, bad.code, resp.Status, body, bad.status, bad.code)
			}
		}
		itest.WantNoObject(t, root, "pbk", "new")
		if n := parts(); n != 0 {
			t.Errorf("%s: refused requests left %d parts", c.name, n)
		}
	}
	for _, c := range calls {
		resp, body := rsvCall(t, srv, "", c.method, c.path, c.body, with(c, active))
		if resp.StatusCode/100 != 2 || resp.Header.Get("X-Jog-Reservation-Id") != active {
			t.Errorf("%s presenting an active reservation: %s %s (reservation header %q)", c.name, resp.Status, body, resp.Header.Get("X-Jog-Reservation-Id"))
		}
	}
	// Other operations refuse the header: it would not be carried out.
	resp, body := rsvCall(t, srv, "", "HEAD", "/pbk/obj", nil, map[string]string{"x-jog-reservation-id": active})
	if resp.StatusCode != 400 {
		t.Errorf("HEAD presenting a reservation: %s %s, want 400", resp.Status, body)
	}
	resp, body = rsvCall(t, srv, "", "PUT", "/pbk/copied", nil, map[string]string{"x-jog-reservation-id": active, "x-amz-copy-source": "/pbk/obj"})
	if resp.StatusCode != 400 || itest.BodyCode(body) != "InvalidArgument" {
		t.Errorf("CopyObject presenting a reservation: %s %s, want 400 InvalidArgument", resp.Status, body)
	}
	itest.WantNoObject(t, root, "pbk", "copied")

	// A presigned GET carries it as a query parameter, signed.
	presign := func(id string) string {
		req := itest.RawRequest(t, srv, "GET", "/pbk/obj?X-Amz-Expires=300&x-jog-reservation-id="+url.QueryEscape(id), nil)
		u, _, err := v4.NewSigner().PresignHTTP(ctx, aws.Credentials{AccessKeyID: testutil.AccessKey, SecretAccessKey: testutil.SecretKey},
			req, "UNSIGNED-PAYLOAD", "s3", testutil.Region, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	resp, body = itest.Do(t, itest.URLRequest(t, "GET", presign(active), nil))
	if resp.StatusCode != 200 || string(body) != "0123456789" || resp.Header.Get("X-Jog-Reservation-Id") != active {
		t.Errorf("presigned GET with an active reservation: %s %s", resp.Status, body)
	}
	resp, body = itest.Do(t, itest.URLRequest(t, "GET", presign(pending), nil))
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "ReservationNotActive")

	// Expiry: once its end has passed (the server's clock; the unit
	// tests pin the second), the reservation is refused.
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, body := rsvCall(t, srv, "", "GET", "/pbk?reservation="+expiring, nil, nil)
		if bytes.Contains(body, []byte("<State>expired</State>")) {
			break
		}
		if resp.StatusCode != 200 || time.Now().After(deadline) {
			t.Fatalf("the reservation never expired: %s %s", resp.Status, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	resp, body = rsvCall(t, srv, "", "GET", "/pbk/obj", nil, map[string]string{"x-jog-reservation-id": expiring})
	itest.WantRawErr(t, resp, body, http.StatusForbidden, "ReservationNotActive")
	if !bytes.Contains(body, []byte("expired")) {
		t.Errorf("the refusal does not say the reservation expired: %s", body)
	}

	// A reservation bound to grantee: its requests draw on it without
	// the header; denier's do not.
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	grantee := "arn:aws:iam::" + accountOf(t, srv) + ":user/grantee"
	bound := createRsv(t, srv, "pbk", rsvBody(1e6, 0, now.Add(-time.Minute), now.Add(time.Hour), grantee))
	if bound.Principal != grantee {
		t.Errorf("bound reservation answered principal %q", bound.Principal)
	}
	for _, u := range []string{"grantee", "denier"} {
		setUserPolicy(t, admin, u, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)
	}
	resp, body = rsvCall(t, srv, "grantee", "GET", "/pbk/obj", nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("X-Jog-Reservation-Id") != bound.ID {
		t.Errorf("GET by the bound principal: %s %s, reservation %q, want %s", resp.Status, body, resp.Header.Get("X-Jog-Reservation-Id"), bound.ID)
	}
	resp, _ = rsvCall(t, srv, "denier", "GET", "/pbk/obj", nil, nil)
	if resp.StatusCode != 200 || resp.Header.Get("X-Jog-Reservation-Id") != "" {
		t.Errorf("GET by another principal: %s, reservation %q, want none", resp.Status, resp.Header.Get("X-Jog-Reservation-Id"))
	}
}

// TestReservationsIAM: only a principal allowed jog:CreateReservation on
// the bucket may reserve; s3:* does not allow it.
func TestReservationsIAM(t *testing.T) {
	srv := startRoutesServer(t)
	itest.CreateBucket(t, itest.AWSClient(t, srv), "ibk")
	itest.CreateBucket(t, itest.AWSClient(t, srv), "ibk2")
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	setUserPolicy(t, admin, "grantee", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":["jog:CreateReservation","jog:ListReservations"],"Resource":"arn:aws:s3:::ibk"}]}`)
	setUserPolicy(t, admin, "denier", `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)
	now := time.Now()
	b := rsvBody(1e6, 0, now, now.Add(time.Hour), "")
	resp, body := rsvCall(t, srv, "grantee", "POST", "/ibk?reservations", b, nil)
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte(":user/grantee</Owner>")) {
		t.Errorf("grantee creating on ib: %s %s, want 200 owned by grantee", resp.Status, body)
	}
	for _, c := range []struct{ who, path string }{{"grantee", "/ibk2?reservations"}, {"denier", "/ibk?reservations"}, {"nobody", "/ibk?reservations"}} {
		resp, body := rsvCall(t, srv, c.who, "POST", c.path, b, nil)
		itest.WantRawErr(t, resp, body, http.StatusForbidden, "AccessDenied")
	}
	resp, body = rsvCall(t, srv, "grantee", "GET", "/ibk?reservations", nil, nil)
	if resp.StatusCode != 200 || bytes.Count(body, []byte("<Reservation>")) != 1 {
		t.Errorf("grantee listing ib: %s %s", resp.Status, body)
	}
}

// setUserStatements gives user an inline policy of the statements (through
// setUserPolicy).
func setUserStatements(t *testing.T, c *iam.Client, user string, stmts ...map[string]any) {
	t.Helper()
	doc, err := json.Marshal(map[string]any{"Version": "2012-10-17", "Statement": stmts})
	if err != nil {
		t.Fatal(err)
	}
	setUserPolicy(t, c, user, string(doc))
}

// setUserPolicy gives user the inline policy doc (named "rsv").
func setUserPolicy(t *testing.T, c *iam.Client, user, doc string) {
	t.Helper()
	if _, err := c.PutUserPolicy(context.Background(), &iam.PutUserPolicyInput{UserName: aws.String(user), PolicyName: aws.String("rsv"), PolicyDocument: aws.String(doc)}); err != nil {
		t.Fatal(err)
	}
}
