package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestDataDirGone: a server whose data dir is deleted under it (an
// operator's mistake, a disaster drill) acknowledges no write after: 503
// ServiceUnavailable, where SQLite would otherwise go on writing into its
// unlinked file and the answered write would be lost with it.
func TestDataDirGone(t *testing.T) {
	srv, c := itest.StartBucket(t, "gone", testutil.WithoutFsync())
	itest.Put(t, c, "gone", "before", []byte("kept"))
	if err := os.RemoveAll(filepath.Join(srv.DataDir, "jog.db")); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"small", "again"} {
		_, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("gone"), Key: aws.String(key), Body: strings.NewReader("x")}, func(o *s3.Options) { o.RetryMaxAttempts = 1 })
		itest.WantErr(t, err, http.StatusServiceUnavailable, "ServiceUnavailable")
	}
}
