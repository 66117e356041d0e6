package integration

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// presenting is an aws-sdk-go-v2 client of who (routeKeys' user, "" the
// root) that presents reservation id on every request, signed.
func presenting(t *testing.T, srv *testutil.Server, who, id string) *s3.Client {
	return srv.AWSClient(t, func(o *s3.Options) {
		if who != "" {
			o.Credentials = credentials.NewStaticCredentialsProvider(routeKeys[who][0], routeKeys[who][1], "")
		}
		o.RetryMaxAttempts = 1
		o.APIOptions = append(o.APIOptions, smithyhttp.AddHeaderValue(qos.Header, id))
	})
}

// drewOn is the reservation a successful aws-sdk-go-v2 call says it drew
// on (the x-jog-reservation-id response header).
func drewOn(md middleware.Metadata) string {
	if resp, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		return resp.Header.Get(qos.Header)
	}
	return ""
}

// TestReservationBoundToPrincipal: a reservation bound to grantee serves
// grantee (and the root) only. denier, allowed s3:* on the bucket and
// presenting its ID through aws-sdk-go-v2 and jog cp, is refused with 403
// AccessDenied naming the binding, and nothing is stored; a reservation
// bound to no one serves both users.
func TestReservationBoundToPrincipal(t *testing.T) {
	srv := startRoutesServer(t)
	root := itest.AWSClient(t, srv)
	ctx := context.Background()
	itest.CreateBucket(t, root, "bnd")
	itest.Put(t, root, "bnd", "obj", []byte("0123456789"))
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	for _, u := range []string{"grantee", "denier"} {
		setUserPolicy(t, admin, u, `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}`)
	}
	grantee := "arn:aws:iam::" + accountOf(t, srv) + ":user/grantee"
	now := time.Now().UTC().Truncate(time.Second)
	bound := createRsv(t, srv, "bnd", rsvBody(1e6, 1e6, now, now.Add(time.Hour), grantee)).ID
	open := createRsv(t, srv, "bnd", rsvBody(1e6, 1e6, now, now.Add(time.Hour), "")).ID

	get := func(c *s3.Client) (string, error) {
		out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("bnd"), Key: aws.String("obj")})
		if err != nil {
			return "", err
		}
		out.Body.Close()
		return drewOn(out.ResultMetadata), nil
	}
	put := func(c *s3.Client, key string) (string, error) {
		out, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("bnd"), Key: aws.String(key), Body: strings.NewReader("new")})
		if err != nil {
			return "", err
		}
		return drewOn(out.ResultMetadata), nil
	}

	denied := presenting(t, srv, "denier", bound)
	_, err := get(denied)
	itest.WantErr(t, err, 403, "AccessDenied")
	if !strings.Contains(err.Error(), "bound to "+grantee) {
		t.Errorf("the refusal does not name the binding: %v", err)
	}
	_, err = put(denied, "by-denier")
	itest.WantErr(t, err, 403, "AccessDenied")
	itest.WantNoObject(t, root, "bnd", "by-denier")
	// jog cp, as denier, with --reservation.
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, []byte("copied"))
	var stdout, stderr bytes.Buffer
	code := cli.Run(ctx, []string{"cp", "--endpoint", srv.URL, "--access-key", routeKeys["denier"][0],
		"--secret-key", routeKeys["denier"][1], "--region", testutil.Region, "--reservation", bound, src, "s3://bnd/cp-denier"}, &stdout, &stderr)
	if code == 0 || !strings.Contains(stderr.String(), "AccessDenied") {
		t.Errorf("jog cp as denier presenting grantee's reservation: exit %d: %s", code, stderr.String())
	}
	itest.WantNoObject(t, root, "bnd", "cp-denier")

	for _, who := range []string{"grantee", ""} { // its principal, and the root
		c := presenting(t, srv, who, bound)
		if got, err := get(c); err != nil || got != bound {
			t.Errorf("GetObject by %q presenting the bound reservation: drew on %q, %v", who, got, err)
		}
		if got, err := put(c, "by-"+who); err != nil || got != bound {
			t.Errorf("PutObject by %q presenting the bound reservation: drew on %q, %v", who, got, err)
		}
	}
	for _, who := range []string{"grantee", "denier"} {
		if got, err := get(presenting(t, srv, who, open)); err != nil || got != open {
			t.Errorf("GetObject by %s presenting an unbound reservation: drew on %q, %v", who, got, err)
		}
	}
}

// jogAdmin runs `jog admin args` in process as srv's root and returns its
// output (stdout and stderr) and exit code.
func jogAdmin(srv *testutil.Server, args ...string) (string, int) {
	var out, errOut bytes.Buffer
	flags := []string{"admin", "--endpoint", srv.URL, "--access-key", srv.Config.AccessKey, "--secret-key", srv.Config.SecretKey, "--region", srv.Config.Region}
	code := cli.Run(context.Background(), append(flags, args...), &out, &errOut)
	return out.String() + errOut.String(), code
}

// TestReservationBounds: a bucket holds at most
// meta.MaxReservationsPerBucket reservations that have not ended — the
// next is refused with 400 TooManyReservations (jog admin and the raw
// API), nothing stored, while another bucket still reserves and a cancel
// makes room — and a Start more than a year ahead (year 9999) or an hour
// ago is refused with 400 InvalidArgument, while one a minute ago (a
// client's "now") is taken as now.
func TestReservationBounds(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync(), testutil.WithQoSCapacity(1e9, 1e9))
	root := itest.AWSClient(t, srv)
	itest.CreateBucket(t, root, "many")
	itest.CreateBucket(t, root, "few")
	count := func(bucket string) int {
		resp, body := rsvCall(t, srv, "", "GET", "/"+bucket+"?reservations", nil, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("list %s: %s %s", bucket, resp.Status, body)
		}
		return bytes.Count(body, []byte("<Reservation>"))
	}
	now := time.Now().UTC().Truncate(time.Second)
	var ids []string
	for i := range meta.MaxReservationsPerBucket {
		ids = append(ids, createRsv(t, srv, "many", rsvBody(1, 0, now.Add(time.Duration(i)*time.Minute), now.Add(3*time.Hour), "")).ID)
	}
	if out, code := jogAdmin(srv, "reservation", "create", "--read", "1", "many"); code == 0 || !strings.Contains(out, "TooManyReservations") {
		t.Errorf("jog admin reservation create past the bound: exit %d: %s", code, out)
	}
	resp, body := rsvCall(t, srv, "", "POST", "/many?reservations", rsvBody(1, 0, now.Add(time.Hour), now.Add(2*time.Hour), ""), nil)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "TooManyReservations")
	if n := count("many"); n != meta.MaxReservationsPerBucket {
		t.Errorf("bucket many lists %d reservations, want %d: refusals store nothing", n, meta.MaxReservationsPerBucket)
	}
	createRsv(t, srv, "few", rsvBody(1, 0, now, now.Add(time.Hour), ""))
	if resp, body := rsvCall(t, srv, "", "DELETE", "/many?reservation="+ids[0], nil, nil); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("cancel: %s %s", resp.Status, body)
	}
	if out, code := jogAdmin(srv, "reservation", "create", "--read", "1", "many"); code != 0 {
		t.Errorf("jog admin reservation create after a cancel: exit %d: %s", code, out)
	}

	for name, start := range map[string]time.Time{
		"in year 9999": time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
		"a year ahead": now.Add(qos.MaxLead + time.Hour),
		"an hour ago":  now.Add(-time.Hour),
	} {
		end := start.Add(time.Hour)
		if !end.After(now) {
			end = now.Add(time.Hour) // only the Start is wrong
		}
		resp, body := rsvCall(t, srv, "", "POST", "/few?reservations", rsvBody(1, 0, start, end, ""), nil)
		itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
		if !bytes.Contains(body, []byte("Start")) {
			t.Errorf("a Start %s: the refusal does not say why: %s", name, body)
		}
	}
	if out, code := jogAdmin(srv, "reservation", "create", "--read", "1", "--start", "9999-01-01T00:00:00Z", "few"); code == 0 || !strings.Contains(out, "InvalidArgument") {
		t.Errorf("jog admin reservation create --start 9999-01-01: exit %d: %s", code, out)
	}
	if n := count("few"); n != 1 {
		t.Errorf("bucket few lists %d reservations, want 1: refusals store nothing", n)
	}
	r := createRsv(t, srv, "few", rsvBody(1, 0, now.Add(-time.Minute), now.Add(time.Hour), ""))
	if start, err := time.Parse(time.RFC3339, r.Start); err != nil || start.Before(now) || r.State != "active" {
		t.Errorf("a Start a minute ago: created %+v, want it starting now (%s or later) and active", r, now.Format(time.RFC3339))
	}
}
