package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// mountTmpfs mounts a tmpfs of the given size on a fresh directory and
// unmounts it at cleanup (registered first, so it runs after the server
// started later has stopped). It skips the test when not root or when the
// mount fails (no CAP_SYS_ADMIN, e.g. in an unprivileged container).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("disk-full test needs root to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a %s tmpfs on %s: %v: %s", size, dir, err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// TestDiskFull runs a server (fsync on) with its data dir on a 64 MiB tmpfs
// and fills it. The PUT that does not fit fails with 507
// InsufficientStorage and leaves nothing behind: no partial object, no temp
// file, the previous version of an overwritten key intact, every earlier
// object byte-exact and listable. UploadPart fails the same way. Once
// objects are deleted, writes succeed again.
// It runs with blob files only and with the default layout (small objects
// inline or in pack files).
func TestDiskFull(t *testing.T) {
	t.Run("files", func(t *testing.T) { testDiskFull(t, testutil.WithFilesOnly()) })
	t.Run("default", func(t *testing.T) { testDiskFull(t) })
}

func testDiskFull(t *testing.T, opts ...testutil.Option) {
	mnt := mountTmpfs(t, "64m")
	srv := testutil.StartServer(t, append([]testutil.Option{testutil.WithDataDir(filepath.Join(mnt, "data"))}, opts...)...)
	c := itest.AWSClient(t, srv, func(o *s3.Options) {
		o.RetryMaxAttempts = 1
		// Wait for the server's answer to "Expect: 100-continue" however
		// loaded the machine is: a client that gives up waiting after the
		// default 1 s sends the body, and a refusal then ends in a reset.
		o.HTTPClient = awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) {
			tr.ExpectContinueTimeout = time.Minute
		})
	})
	ctx := context.Background()
	const bucket = "full"
	itest.CreateBucket(t, c, bucket)

	// A multipart upload with one part, started while there is room.
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp")})
	if err != nil {
		t.Fatal(err)
	}
	part1 := itest.RandBytes(900, 5<<20)
	p1, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(1), Body: bytes.NewReader(part1)})
	if err != nil {
		t.Fatal(err)
	}

	// Fill with 1 MiB objects until one does not fit, then with 64 KiB and
	// 4 KiB ones, so the file system is full to the last block.
	stored := map[string][]byte{}
	var keys []string
	seed := uint64(1)
	for _, size := range []int{1 << 20, 64 << 10, 4 << 10} {
		for i := 0; ; i++ {
			if i > 200 {
				t.Fatalf("%d-byte PUTs never filled the file system (%d bytes free)", size, freeBytes(t, mnt))
			}
			key := fmt.Sprintf("fill-%07d-%03d", size, i)
			body := itest.RandBytes(seed, size)
			seed++
			_, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)})
			if err != nil {
				itest.WantErr(t, err, http.StatusInsufficientStorage, "InsufficientStorage")
				itest.WantNoObject(t, c, bucket, key)
				t.Logf("%d-byte PUT #%d: 507 InsufficientStorage with %d bytes free", size, i, freeBytes(t, mnt))
				break
			}
			stored[key] = body
			keys = append(keys, key)
		}
	}
	t.Logf("full: %d objects stored, %d bytes free", len(keys), freeBytes(t, mnt))

	// Overwriting an existing key with a body that does not fit keeps the
	// old version. (The SDK sends "Expect: 100-continue" for bodies over
	// 2 MiB; JOG refuses those before asking for the body.)
	victim := keys[0]
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(victim), Body: bytes.NewReader(itest.RandBytes(999, 3<<20))})
	wantRefusedFull(t, "overwrite", err)
	itest.WantObject(t, c, bucket, victim, stored[victim])

	// UploadPart on the full disk: refused, the upload keeps its part 1.
	_, err = c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(2), Body: bytes.NewReader(itest.RandBytes(901, 3<<20))})
	wantRefusedFull(t, "UploadPart", err)
	parts, err := c.ListParts(ctx, &s3.ListPartsInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId})
	if err != nil {
		t.Fatalf("ListParts on a full disk: %v", err)
	}
	if len(parts.Parts) != 1 || aws.ToInt32(parts.Parts[0].PartNumber) != 1 || aws.ToString(parts.Parts[0].ETag) != aws.ToString(p1.ETag) {
		t.Fatalf("parts after a refused UploadPart: %+v", parts.Parts)
	}

	// Nothing half-written: no temp file, the listing is exactly the stored
	// keys, every object reads back byte-exact.
	if tmp, err := os.ReadDir(filepath.Join(srv.DataDir, "tmp")); err != nil || len(tmp) != 0 {
		t.Fatalf("temp files after refused writes: %v %v", tmp, err)
	}
	var listed []string
	pg := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pg.HasMorePages() {
		out, err := pg.NextPage(ctx)
		if err != nil {
			t.Fatalf("list on a full disk: %v", err)
		}
		for _, o := range out.Contents {
			listed = append(listed, aws.ToString(o.Key))
		}
	}
	if !slices.Equal(listed, slices.Sorted(slices.Values(keys))) {
		t.Fatalf("listed %d keys, stored %d", len(listed), len(keys))
	}
	for _, k := range keys {
		itest.WantObject(t, c, bucket, k, stored[k])
	}

	// Free space by deleting through the API; service resumes.
	var del []types.ObjectIdentifier
	for _, k := range keys[:8] {
		del = append(del, types.ObjectIdentifier{Key: aws.String(k)})
	}
	if _, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(keys[8])}); err != nil {
		t.Fatalf("DeleteObject on a full disk: %v", err)
	}
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String(bucket), Delete: &types.Delete{Objects: del}})
	if err != nil || len(out.Errors) != 0 {
		t.Fatalf("DeleteObjects on a full disk: %v %+v", err, out)
	}
	t.Logf("after deleting 9 objects: %d bytes free", freeBytes(t, mnt))
	again := itest.RandBytes(1000, 4<<20)
	itest.Put(t, c, bucket, "after", again)
	itest.WantObject(t, c, bucket, "after", again)
	part2 := itest.RandBytes(902, 1<<20)
	p2, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		PartNumber: aws.Int32(2), Body: bytes.NewReader(part2)})
	if err != nil {
		t.Fatalf("UploadPart after freeing space: %v", err)
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String("mp"), UploadId: up.UploadId,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: []types.CompletedPart{
			{PartNumber: aws.Int32(1), ETag: p1.ETag}, {PartNumber: aws.Int32(2), ETag: p2.ETag}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := itest.Get(t, c, bucket, "mp"); !bytes.Equal(got, append(bytes.Clone(part1), part2...)) {
		t.Fatalf("completed upload reads back %d bytes, not its two parts", len(got))
	}
	for _, k := range keys[9:] {
		itest.WantObject(t, c, bucket, k, stored[k])
	}
	wantBlobFiles(t, srv, c, bucket, 1)

	// Something else fills the file system to the last block (a ballast
	// file next to the data dir): blob writes and metadata-only writes
	// (SQLite's "database or disk is full") both fail with 507, reads go on,
	// and once the space is back, so are writes.
	ballast := filepath.Join(mnt, "ballast")
	fillFile(t, ballast)
	t.Logf("ballast written: %d bytes free", freeBytes(t, mnt))
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String("blocked"), Body: bytes.NewReader([]byte("x"))})
	itest.WantErr(t, err, http.StatusInsufficientStorage, "InsufficientStorage")
	var uploads []*string
	for i := 0; ; i++ {
		if i == 2000 {
			t.Fatal("2000 metadata-only writes fitted on a full file system")
		}
		out, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(fmt.Sprintf("meta-%04d", i)),
			Metadata: map[string]string{"pad": string(bytes.Repeat([]byte("m"), 2000))}})
		if err != nil {
			itest.WantErr(t, err, http.StatusInsufficientStorage, "InsufficientStorage")
			t.Logf("metadata-only write #%d: 507 InsufficientStorage", i)
			break
		}
		uploads = append(uploads, out.UploadId)
	}
	itest.WantObject(t, c, bucket, "after", again)
	if _, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)}); err != nil {
		t.Fatalf("list with the file system full: %v", err)
	}
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	itest.Put(t, c, bucket, "after-ballast", again[:1<<20])
	for i, id := range uploads {
		if _, err := c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket),
			Key: aws.String(fmt.Sprintf("meta-%04d", i)), UploadId: id}); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range keys[9:] {
		itest.WantObject(t, c, bucket, k, stored[k])
	}
	wantBlobFiles(t, srv, c, bucket, 1)
}

// wantBlobFiles asserts that the data dir holds no temp file and exactly
// one blob (a file or a pack record) per object of bucket stored outside
// the database, plus extra (the parts of multipart objects beyond their
// first): refused writes left nothing.
func wantBlobFiles(t *testing.T, srv *testutil.Server, c *s3.Client, bucket string, extra int) {
	t.Helper()
	if tmp, err := os.ReadDir(filepath.Join(srv.DataDir, "tmp")); err != nil || len(tmp) != 0 {
		t.Fatalf("temp files left: %v %v", tmp, err)
	}
	want := extra
	pg := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	for pg.HasMorePages() {
		out, err := pg.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			if aws.ToInt64(o.Size) > int64(srv.Config.InlineMax) {
				want++
			}
		}
	}
	got := 0
	if err := srv.Blobs.Walk(context.Background(), func(blob.Info) error { got++; return nil }); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("%d blobs, want %d", got, want)
	}
}

// fillFile writes zeros to path until the file system is full.
func fillFile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	buf = buf[:512] // the last partial blocks
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
}

// wantRefusedFull checks a large write to the full disk was refused: with
// 507 InsufficientStorage, or with a connection reset when the body was
// already on its way as the refusal closed the connection (the client's
// Expect: 100-continue wait can time out; seen under load and on some
// runs without). What must hold either way, the caller checks next: the
// write failed and the old data is intact.
func wantRefusedFull(t *testing.T, what string, err error) {
	t.Helper()
	if _, status := itest.ErrInfo(err); status != 0 || err == nil {
		itest.WantErr(t, err, http.StatusInsufficientStorage, "InsufficientStorage")
		return
	}
	t.Logf("%s refused with a transport error: %v", what, err)
}
