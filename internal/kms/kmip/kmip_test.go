package kmip_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/kms/kmip"
	"github.com/jogstore/jog/internal/kms/kmip/kmiptest"
)

var ec = kms.ObjectContext("bucket", "key", kms.Context{"project": "x"})

func open(t *testing.T, cfg kmip.Config) *kmip.KMS {
	t.Helper()
	k, err := kmip.Open(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k.Close() })
	return k
}

// refuses checks that err is the kms error want and that no data key came
// with it.
func refuses(t *testing.T, what string, plain []byte, err, want error) {
	t.Helper()
	var ke *kms.Error
	if !errors.Is(err, want) || !errors.As(err, &ke) {
		t.Errorf("%s: %v, want %v", what, err, want)
	}
	if plain != nil {
		t.Errorf("%s: returned %d bytes with its error", what, len(plain))
	}
}

// TestKMIP drives a KMS against a real PyKMIP server (one for all the
// subtests: PyKMIP is slow to start).
func TestKMIP(t *testing.T) {
	ctx := context.Background()
	srv := kmiptest.Start(t)
	srv.CreateKey("tenant-a", true)
	srv.CreateKey("tenant-b", true)
	k := open(t, srv.Config)

	dk, err := k.GenerateDataKey(ctx, "tenant-a", ec)
	if err != nil {
		t.Fatalf("GenerateDataKey: %v\n%s", err, srv.Log)
	}
	if len(dk.Plaintext) != kms.DataKeySize || bytes.Contains(dk.Sealed, dk.Plaintext) {
		t.Fatalf("data key of %d bytes, or in clear in the sealed one", len(dk.Plaintext))
	}
	if !kmip.IsSealed(dk.Sealed) {
		t.Error("IsSealed: false for a sealed data key")
	}
	if _, err := kms.ParseSealed(dk.Sealed); err == nil {
		t.Error("the built-in KMS takes a KMIP sealed key for its own")
	}

	t.Run("round trip", func(t *testing.T) {
		got, err := k.Decrypt(ctx, "tenant-a", dk.Sealed, ec)
		if err != nil || !bytes.Equal(got, dk.Plaintext) {
			t.Fatalf("Decrypt: %x, %v; want %x", got, err, dk.Plaintext)
		}
		if err := k.Status(ctx, "tenant-a"); err != nil {
			t.Errorf("Status: %v", err)
		}
		again, err := k.GenerateDataKey(ctx, "tenant-a", ec)
		if err != nil || bytes.Equal(again.Plaintext, dk.Plaintext) || bytes.Equal(again.Sealed, dk.Sealed) {
			t.Errorf("a second data key repeats the first (%v)", err)
		}
	})

	t.Run("bound to context and key", func(t *testing.T) {
		other := kms.ObjectContext("bucket", "other-key", kms.Context{"project": "x"})
		got, err := k.Decrypt(ctx, "tenant-a", dk.Sealed, other)
		refuses(t, "another object's context", got, err, kms.ErrOpen)
		got, err = k.Decrypt(ctx, "tenant-a", dk.Sealed, kms.ObjectContext("bucket", "key", nil))
		refuses(t, "without the client's pairs", got, err, kms.ErrOpen)
		got, err = k.Decrypt(ctx, "tenant-b", dk.Sealed, ec)
		refuses(t, "under another key ID", got, err, kms.ErrOpen)
		for i := range dk.Sealed {
			bad := bytes.Clone(dk.Sealed)
			bad[i] ^= 1
			got, err := k.Decrypt(ctx, "tenant-a", bad, ec)
			if err == nil || got != nil {
				t.Fatalf("byte %d flipped: %x, %v", i, got, err)
			}
		}
	})

	t.Run("not found", func(t *testing.T) {
		_, err := k.GenerateDataKey(ctx, "no-such-key", ec)
		refuses(t, "GenerateDataKey", nil, err, kms.ErrNotFound)
		refuses(t, "Status", nil, k.Status(ctx, "no-such-key"), kms.ErrNotFound)
		refuses(t, "Status of a malformed ID", nil, k.Status(ctx, "arn:aws:kms:x"), kms.ErrInvalidKeyID)
	})

	t.Run("disabled", func(t *testing.T) {
		uid := srv.CreateKey("tenant-c", true)
		sealed, err := k.GenerateDataKey(ctx, "tenant-c", ec)
		if err != nil {
			t.Fatal(err)
		}
		srv.Deactivate(uid)
		refuses(t, "Status", nil, k.Status(ctx, "tenant-c"), kms.ErrDisabled)
		_, err = k.GenerateDataKey(ctx, "tenant-c", ec)
		refuses(t, "GenerateDataKey", nil, err, kms.ErrDisabled)
		got, err := k.Decrypt(ctx, "tenant-c", sealed.Sealed, ec)
		refuses(t, "Decrypt", got, err, kms.ErrDisabled)

		srv.CreateKey("tenant-pending", false) // created, never activated
		refuses(t, "Status of a Pre-Active key", nil, k.Status(ctx, "tenant-pending"), kms.ErrDisabled)
	})

	t.Run("routed", func(t *testing.T) { testRouted(t, srv) })
}

// TestKMIPUnavailable: a server that is gone, or that does not answer,
// makes every operation fail with ErrUnavailable, within the timeout.
func TestKMIPUnavailable(t *testing.T) {
	ctx := context.Background()
	srv := kmiptest.Start(t)
	srv.CreateKey("tenant-a", true)
	k := open(t, srv.Config)
	dk, err := k.GenerateDataKey(ctx, "tenant-a", ec)
	if err != nil {
		t.Fatal(err)
	}
	srv.Stop()
	check := func(k *kmip.KMS, sealed []byte) {
		t.Helper()
		_, err := k.GenerateDataKey(ctx, "tenant-a", ec)
		refuses(t, "GenerateDataKey", nil, err, kms.ErrUnavailable)
		got, err := k.Decrypt(ctx, "tenant-a", sealed, ec)
		refuses(t, "Decrypt", got, err, kms.ErrUnavailable)
		refuses(t, "Status", nil, k.Status(ctx, "tenant-a"), kms.ErrUnavailable)
	}
	check(k, dk.Sealed)

	// A server that accepts connections and never answers: the timeout
	// ends each operation. The test's own deadline catches a hang.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				_ = c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	silent := srv.Config
	silent.Endpoint = l.Addr().String()
	silent.Timeout = time.Second
	check(open(t, silent), dk.Sealed)
}

// testRouted: SSE-S3 data keys stay in the built-in KMS, others go to
// KMIP, and each sealed key opens where it was sealed.
func testRouted(t *testing.T, srv *kmiptest.Server) {
	ctx := context.Background()
	dir := t.TempDir()
	b, err := kms.OpenDataDir(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Create(ctx, "old-key", "sealed before KMIP"); err != nil {
		t.Fatal(err)
	}
	old, err := b.GenerateDataKey(ctx, "old-key", ec)
	if err != nil {
		t.Fatal(err)
	}
	r := kms.Routed{Builtin: b, External: open(t, srv.Config)}
	s3, err := r.GenerateDataKey(ctx, kms.SSES3KeyID, ec)
	if err != nil || kmip.IsSealed(s3.Sealed) {
		t.Fatalf("SSE-S3 key: %v, sealed by KMIP %v", err, kmip.IsSealed(s3.Sealed))
	}
	ext, err := r.GenerateDataKey(ctx, "tenant-a", ec)
	if err != nil || !kmip.IsSealed(ext.Sealed) {
		t.Fatalf("tenant-a: %v, sealed by KMIP %v", err, kmip.IsSealed(ext.Sealed))
	}
	for _, c := range []struct {
		id string
		dk kms.DataKey
	}{{kms.SSES3KeyID, s3}, {"tenant-a", ext}, {"old-key", old}} {
		got, err := r.Decrypt(ctx, c.id, c.dk.Sealed, ec)
		if err != nil || !bytes.Equal(got, c.dk.Plaintext) {
			t.Errorf("Decrypt %s: %v", c.id, err)
		}
	}
	refuses(t, "Status of a built-in key through KMIP", nil, r.Status(ctx, "old-key"), kms.ErrNotFound)
	if err := r.Status(ctx, kms.SSES3KeyID); err != nil {
		t.Errorf("Status of the SSE-S3 key: %v", err)
	}
}
