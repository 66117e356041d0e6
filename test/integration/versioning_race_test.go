package integration

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// TestVersioningEnabledDuringPut: a PUT whose body is still streaming when
// versioning is enabled commits under the state its commit sees — a new
// version, keeping the null version the bucket had — not as a null
// version that replaces (and frees) the data versioning was turned on to
// keep. The first 32 MiB of the body pass before versioning changes: more
// than loopback's socket buffers hold, so the server has read the bucket's
// state and is streaming the body by then.
func TestVersioningEnabledDuringPut(t *testing.T) {
	srv, c := itest.StartBucket(t, "race")
	itest.Put(t, c, "race", "k", []byte("the null version"))

	const first, rest = 32 << 20, 1 << 20
	data := itest.RandBytes(7, first+rest)
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPut, srv.URL+"/race/k", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(data))
	itest.Sign(t, req, nil, itest.SignOpts{PayloadHash: "UNSIGNED-PAYLOAD"})
	type result struct {
		resp *http.Response
		body []byte
	}
	done := make(chan result, 1)
	go func() {
		resp, body := itest.Do(t, req)
		done <- result{resp, body}
	}()
	if _, err := pw.Write(data[:first]); err != nil {
		t.Fatalf("writing the first part of the body: %v", err)
	}
	setVersioning(t, c, "race", types.BucketVersioningStatusEnabled)
	if _, err := pw.Write(data[first:]); err != nil {
		t.Fatalf("writing the rest of the body: %v", err)
	}
	pw.Close()
	r := <-done
	if r.resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT = %d %s", r.resp.StatusCode, r.body)
	}
	vid := r.resp.Header.Get("X-Amz-Version-Id")
	if vid == "" || vid == "null" {
		t.Fatalf("PUT committed after versioning was enabled: x-amz-version-id %q, want a new version", vid)
	}
	if got, want := versionsOf(t, srv, c, "race", 1000), []string{"k@" + vid + "*", "k@null"}; !slices.Equal(got, want) {
		t.Fatalf("versions = %q, want %q (the null version kept)", got, want)
	}
	got, _ := itest.Get(t, c, "race", "k", func(in *s3.GetObjectInput) { in.VersionId = aws.String("null") })
	if string(got) != "the null version" {
		t.Fatalf("GET null = %q", itest.Short(got))
	}
	if got, _ := itest.Get(t, c, "race", "k"); !bytes.Equal(got, data) {
		t.Fatalf("GET latest = %s, want the streamed body", itest.Short(got))
	}
}
