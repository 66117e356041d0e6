package fsck_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/storage"
)

var customerKey = bytes.Repeat([]byte{0x5c}, kms.DataKeySize)

// sealedStore writes encrypted data through the service over the real
// stores of a new data dir and its built-in KMS: SSE-S3 in a blob file and
// inline, SSE-KMS (key "app") in a blob file and as a multipart object,
// SSE-C, uploads in progress under SSE-S3 and SSE-C, and a plain object.
// It returns the data dir and the blob of each object or part by name
// ("s3", "mp/2", …).
func sealedStore(t *testing.T) (string, map[string]string) {
	t.Helper()
	ctx := t.Context()
	dir := t.TempDir()
	k, err := kms.OpenDataDir(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Create(ctx, "app", "fsck test"); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.DataDir, cfg.Fsync, cfg.PackMax = dir, "never", 0
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(ctx, cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := service.NewWith(st.Meta, st.Blobs, quiet, service.Options{InlineMax: 4096, Keys: sse.NewKeys(k)})
	if err := svc.CreateBucket(ctx, bucket, "us-east-1", "owner"); err != nil {
		t.Fatal(err)
	}
	s3 := sse.Request{Mode: sse.ModeS3}
	app := sse.Request{Mode: sse.ModeKMS, KeyID: "app", Context: kms.Context{"team": "blue"}}
	ssec := sse.Request{Mode: sse.ModeC, CustomerKey: customerKey}
	for i, o := range []struct {
		key  string
		size int
		req  sse.Request
	}{{"s3", 200_000, s3}, {"inline", 1000, s3}, {"kms", 100_000, app}, {"ssec", 50_000, ssec}, {"plain", 3000, sse.Request{}}} {
		_, err := svc.PutObject(ctx, service.PutInput{Bucket: bucket, Key: o.key, Body: bytes.NewReader(seeded(uint64(200+i), o.size)),
			Size: int64(o.size), SSE: o.req})
		if err != nil {
			t.Fatalf("PutObject %s: %v", o.key, err)
		}
	}
	upload := func(key string, req sse.Request, complete bool, sizes ...int) {
		u, err := svc.CreateUpload(ctx, meta.Upload{Bucket: bucket, Key: key}, req)
		if err != nil {
			t.Fatal(err)
		}
		var parts []service.CompletedPart
		for i, n := range sizes {
			p, err := svc.UploadPart(ctx, service.PartInput{Bucket: bucket, Key: key, UploadID: u.UploadID, Number: i + 1,
				Body: bytes.NewReader(seeded(uint64(300+i), n)), Size: int64(n), CustomerKey: req.CustomerKey})
			if err != nil {
				t.Fatalf("UploadPart %s %d: %v", key, i+1, err)
			}
			parts = append(parts, service.CompletedPart{Number: p.Number, ETag: p.ETag})
		}
		if complete {
			if _, err := svc.CompleteUpload(ctx, service.CompleteInput{Bucket: bucket, Key: key, UploadID: u.UploadID, Parts: parts, ObjectSize: -1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	upload("mp", app, true, service.MinPartSize, 70_000)
	upload("upload", s3, false, 90_000)
	upload("ssec-upload", ssec, false, 1000)

	blobs := map[string]string{}
	for _, key := range []string{"s3", "kms", "ssec", "mp"} {
		o, err := st.Meta.GetObject(ctx, bucket, key, "")
		if err != nil {
			t.Fatal(err)
		}
		if !o.Encryption.Encrypted() {
			t.Fatalf("%s was stored unencrypted", key)
		}
		blobs[key] = o.BlobID
		parts, err := st.Meta.ObjectParts(ctx, o.UploadID)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			blobs[fmt.Sprintf("%s/%d", key, p.Number)] = p.BlobID
		}
	}
	return dir, blobs
}

// sealedBytes is what sealedStore's data adds up to, and the part of it
// sealed under a customer key (SSE-C: not read by --deep).
const (
	sealedBytes = 200_000 + 1000 + 100_000 + 50_000 + 3000 + service.MinPartSize + 70_000 + 90_000 + 1000
	ssecBytes   = 50_000 + 1000
)

// TestEncrypted: fsck checks encrypted objects at their stored size, and
// --deep decrypts them — a clean store is clean, with SSE-C data counted
// as unverifiable; a flipped byte in a blob file, a part or an inline row
// fails to authenticate and is corrupt; a data key that no longer opens
// (its KMS key disabled) is damage that --repair-drop-lost keeps.
func TestEncrypted(t *testing.T) {
	dir, blobs := sealedStore(t)
	unverifiable := []string{"unverifiable ssec", "unverifiable ssec-upload"}

	code, r := runJSON(t, dir)
	if code != 0 || r.Status != "clean" || len(r.Problems) != 0 || r.Summary.BytesChecked != sealedBytes {
		t.Fatalf("fsck of a clean encrypted store: exit %d, %d bytes checked (want %d), %+v", code, r.Summary.BytesChecked, sealedBytes, r)
	}
	code, r = runJSON(t, dir, "--deep")
	wantFound(t, "--deep on a clean store", r, unverifiable...)
	if code != 0 || r.Status != "clean" || r.Summary.Unverifiable != 2 || r.Summary.BytesVerified != sealedBytes-ssecBytes {
		t.Fatalf("fsck --deep of a clean encrypted store: exit %d, %+v", code, r)
	}

	d, err := disk.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	flip(t, d.Path(blobs["s3"]), 100_000) // in its second package
	flip(t, d.Path(blobs["mp/2"]), 20)
	db, err := sql.Open("sqlite", filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	var data []byte
	if err := db.QueryRow("SELECT d.id, d.data FROM inline_data d JOIN objects o ON d.id = o.inline_id WHERE o.key = 'inline'").Scan(&id, &data); err != nil {
		t.Fatal(err)
	}
	data[500] ^= 1
	if _, err := db.Exec("UPDATE inline_data SET data = ? WHERE id = ?", data, id); err != nil {
		t.Fatal(err)
	}
	db.Close()

	if code, r = runJSON(t, dir); code != 0 || len(r.Problems) != 0 {
		t.Errorf("fsck without --deep sees flipped bytes of the right size: exit %d, %+v", code, r.Problems)
	}
	code, r = runJSON(t, dir, "--deep")
	wantFound(t, "--deep after flipping bytes", r, append([]string{"corrupt s3", "corrupt mp/2", "corrupt inline"}, unverifiable...)...)
	if code != 1 || r.Summary.DamagedObjects != 3 || r.Summary.Corrupt != 3 {
		t.Errorf("fsck --deep of damaged encrypted data: exit %d, %+v", code, r.Summary)
	}
	for _, p := range r.Problems {
		if p.Kind == "corrupt" && !strings.Contains(p.Detail, "authenticate") {
			t.Errorf("%s: %s", p.Key, p.Detail)
		}
	}

	k, err := kms.OpenDataDir(t.Context(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := k.SetEnabled(t.Context(), "app", false); err != nil {
		t.Fatal(err)
	}
	code, r = runJSON(t, dir, "--deep", "--repair-drop-lost")
	wantFound(t, "--deep --repair-drop-lost with key app disabled", r,
		append([]string{"corrupt s3 dropped", "corrupt inline dropped", "key kms", "key mp"}, unverifiable...)...)
	if code != 1 || r.Summary.KeyErrors != 2 || r.Summary.Dropped != 2 {
		t.Errorf("fsck with a disabled key: exit %d, %+v", code, r.Summary)
	}
	for _, p := range r.Problems {
		if p.Kind == "key" && (!strings.Contains(p.Detail, `"app"`) || p.Bucket != bucket) {
			t.Errorf("key problem of %s: %+v", p.Key, p)
		}
	}
	m := openMeta(t, dir)
	for _, key := range []string{"kms", "mp"} {
		if _, err := m.GetObject(t.Context(), bucket, key, ""); err != nil {
			t.Errorf("%s, whose key is disabled, was dropped: %v", key, err)
		}
	}
}

// TestEncryptedNoMasterKey: without the master key, --deep cannot open a
// data key and stops (exit 2) rather than call every object damaged; it
// makes no master key of its own. Without --deep none is needed.
func TestEncryptedNoMasterKey(t *testing.T) {
	dir, _ := sealedStore(t)
	key := filepath.Join(dir, kms.MasterKeyFile)
	if err := os.Rename(key, key+".away"); err != nil {
		t.Fatal(err)
	}
	t.Setenv(kms.MasterKeyEnv, "")
	if code, r := runJSON(t, dir); code != 0 || r.Status != "clean" {
		t.Errorf("fsck without the master key, not --deep: exit %d, %+v", code, r)
	}
	code, out, errOut := runCLI(t, "--data-dir", dir, "--deep")
	if code != 2 || !strings.Contains(errOut, kms.MasterKeyEnv) {
		t.Errorf("fsck --deep without the master key: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if exists(key) {
		t.Errorf("fsck made a master key")
	}
}

func openMeta(t *testing.T, dir string) meta.Store {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = dir
	st, err := storage.OpenWith(context.Background(), cfg, nil, storage.Options{Existing: true, Unlocked: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st.Meta
}
