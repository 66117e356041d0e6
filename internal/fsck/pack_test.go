package fsck_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/testutil"
)

// TestPackedBlobs: objects stored as records in pack files are checked
// like blob files. A flipped byte in a record is corrupt (--deep), a
// punched-out record is missing, a record no metadata refers to is an
// orphan that --repair frees, and the other records stay intact.
func TestPackedBlobs(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithDataDir(dir))
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	put(t, c, "p-good", seeded(11, 100_000), "")
	put(t, c, "p-flipped", seeded(12, 200_000), types.ChecksumAlgorithmCrc32c)
	put(t, c, "p-gone", seeded(13, 50_000), "")
	srv.Stop()

	blobs, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !blobs.Packing {
		t.Skip("file system cannot punch holes: no packs")
	}
	m, err := sqlite.Open(t.Context(), filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, k := range []string{"p-good", "p-flipped", "p-gone"} {
		o, err := m.GetObject(t.Context(), bucket, k, "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(o.BlobID, ".") != 2 {
			t.Fatalf("%s is not packed: blob %q", k, o.BlobID)
		}
		ids[k] = o.BlobID
	}
	m.Close()

	// Flip a byte in the middle of p-flipped's data.
	parts := strings.Split(ids["p-flipped"], ".")
	off, _ := strconv.ParseInt(parts[1], 16, 64)
	f, err := os.OpenFile(blobs.Path(ids["p-flipped"]), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	at := off + 48 + 100_000
	_, _ = f.ReadAt(b, at)
	b[0] ^= 0x40
	_, _ = f.WriteAt(b, at)
	f.Close()
	if err := blobs.Delete(t.Context(), ids["p-gone"]); err != nil {
		t.Fatal(err)
	}
	w, err := blobs.Create(t.Context(), 5000)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(seeded(14, 5000))
	orphan, err := w.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(orphan, ".") != 2 {
		t.Fatalf("orphan %q is not packed", orphan)
	}
	blobs.Close() // as a crashed server's packs are: no longer appended to

	code, r := runJSON(t, dir, "--deep")
	if code != 1 {
		t.Errorf("fsck --deep: exit %d", code)
	}
	wantFound(t, "fsck --deep", r, "corrupt p-flipped", "missing p-gone", "orphan -")
	code, r = runJSON(t, dir, "--repair")
	if code != 1 {
		t.Errorf("fsck --repair: exit %d", code)
	}
	wantFound(t, "fsck --repair", r, "missing p-gone", "orphan - removed")
	code, r = runJSON(t, dir, "--deep")
	wantFound(t, "fsck --deep after the repair", r, "corrupt p-flipped", "missing p-gone")
	if r.Summary.Orphans != 0 || code != 1 {
		t.Errorf("after the repair: exit %d, %d orphans", code, r.Summary.Orphans)
	}
	if _, err := blobs.Open(t.Context(), orphan); err == nil {
		t.Error("the repaired orphan record still opens")
	}
	if got, err := blobs.Open(t.Context(), ids["p-good"]); err != nil {
		t.Errorf("p-good after the repair: %v", err)
	} else {
		got.Close()
	}
}
