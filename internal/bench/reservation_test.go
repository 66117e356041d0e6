package bench

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/testutil"
)

// TestReservationOnDataRequests checks that --reservation goes on GET, PUT
// and UploadPart and on nothing else, against a real JOG server: presenting
// an unknown reservation, the data requests are refused NoSuchReservation
// (so they carried it) while the others succeed (a server refuses a
// reservation on an operation that takes none, so they did not).
func TestReservationOnDataRequests(t *testing.T) {
	s := testutil.StartServer(t, testutil.WithoutFsync())
	ctx := context.Background()
	cfg := smokeConfig(s.URL, s.Config.AccessKey, s.Config.SecretKey)
	plain, err := NewClient(cfg, NewPayload(1), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if err := plain.CreateBucket(ctx, "res"); err != nil {
		t.Fatal(err)
	}
	if err := plain.PutObject(ctx, "res", "k", 1<<10); err != nil {
		t.Fatal(err)
	}
	cfg.Reservation = strings.Repeat("a", 32)
	c, err := NewClient(cfg, NewPayload(1), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	refused := func(op string, err error) {
		t.Helper()
		var s3 *S3Error
		if !errors.As(err, &s3) || s3.Code != "NoSuchReservation" {
			t.Errorf("%s with an unknown reservation: %v, want NoSuchReservation (the header not sent?)", op, err)
		}
	}
	passed := func(op string, err error) {
		t.Helper()
		if err != nil {
			t.Errorf("%s: %v (a reservation sent where none is taken?)", op, err)
		}
	}
	_, _, err = c.GetObject(ctx, "res", "k", false)
	refused("GET", err)
	_, _, err = c.GetRange(ctx, "res", "k", 0, 10, false)
	refused("ranged GET", err)
	refused("PUT", c.PutObject(ctx, "res", "k2", 1<<10))
	_, err = c.HeadObject(ctx, "res", "k")
	passed("HEAD", err)
	_, err = c.ListObjects(ctx, "res", "", "", 10)
	passed("ListObjects", err)
	id, err := c.CreateMultipartUpload(ctx, "res", "mp")
	passed("CreateMultipartUpload", err)
	_, err = c.UploadPart(ctx, "res", "mp", id, 1, 0, 1<<10)
	refused("UploadPart", err)
	passed("AbortMultipartUpload", c.AbortMultipartUpload(ctx, "res", "mp", id))
	passed("DELETE", c.DeleteObject(ctx, "res", "k"))
	passed("HeadBucket", c.HeadBucket(ctx, "res"))
	passed("DeleteBucket", c.DeleteBucket(ctx, "res"))
}
