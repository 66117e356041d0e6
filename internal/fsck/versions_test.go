package fsck_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

// TestVersions: fsck walks noncurrent versions (object_versions, ADR 0012)
// as it walks live objects: their blobs are checked and never orphans, and
// delete markers, which have no data, are no problem.
func TestVersions(t *testing.T) {
	dir, srv, c := serverWithBucket(t)
	ctx := t.Context()
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String(bucket),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	put(t, c, "k", seeded(1, 1000), "")
	put(t, c, "k", seeded(2, 2000), types.ChecksumAlgorithmSha256)
	put(t, c, "k", seeded(3, 3000), "")
	put(t, c, "deleted", seeded(4, 4000), "")
	multipart(t, c, "mp", "", true, 5<<20, 10)
	put(t, c, "mp", seeded(5, 500), "")
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("deleted")}); err != nil {
		t.Fatal(err)
	}
	srv.Stop()

	code, r := runJSON(t, dir, "--deep")
	if code != 0 || r.Status != "clean" || len(r.Problems) != 0 {
		t.Fatalf("fsck on a versioned store: exit %d, %+v", code, r)
	}
	if sum := r.Summary; sum.Objects != 6 || sum.MultipartObjects != 1 || sum.DeleteMarkers != 1 || sum.Orphans != 0 || sum.Versions != 0 {
		t.Errorf("fsck counts: %+v; want 6 versions (1 multipart), 1 delete marker, no orphan, no contradiction", sum)
	}
	wantBytes := int64(1000+2000+3000+4000+500) + 5<<20 + 10
	if r.Summary.BytesVerified != wantBytes {
		t.Errorf("fsck verified %d bytes, want %d (every version)", r.Summary.BytesVerified, wantBytes)
	}

	// A noncurrent version's blob lost is found, under its version.
	m, err := sqlite.Open(ctx, filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := m.ScanObjects(ctx, bucket, "", "", 100)
	m.Close()
	if err != nil {
		t.Fatal(err)
	}
	var oldest string
	for _, o := range objs {
		if o.Key == "k" && o.Size == 1000 && !o.IsLatest {
			oldest = o.BlobID
		}
	}
	if oldest == "" {
		t.Fatalf("no noncurrent version of k in %+v", objs)
	}
	b, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(b.Path(oldest)); err != nil {
		t.Fatal(err)
	}
	code, r = runJSON(t, dir)
	if code != 1 {
		t.Errorf("fsck after losing a noncurrent blob: exit %d", code)
	}
	wantFound(t, "fsck", r, "missing k")

	// A key whose versions contradict each other (here a live version
	// beside a latest delete marker) is a versions problem, which no
	// repair removes.
	db, err := sql.Open("sqlite", filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.ExecContext(ctx, "UPDATE object_versions SET is_latest = 1, delete_marker = 1 WHERE key = 'mp'")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, r = runJSON(t, dir, "--repair")
	if code != 1 || r.Summary.Versions != 1 {
		t.Errorf("fsck --repair of a contradiction: exit %d, summary %+v", code, r.Summary)
	}
	wantFound(t, "fsck", r, "missing k", "versions mp")
}
