package integration

import (
	"bytes"
	"context"
	"os"
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
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(routesBootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testutil.StartServer(t, testutil.WithIAMBootstrap(file), testutil.WithoutFsync(), testutil.WithQoSCapacity(1e9, 1e9))
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
