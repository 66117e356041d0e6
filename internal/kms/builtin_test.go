package kms

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/keyring/keyringtest"
)

// newBuiltin returns a built-in KMS over a FileStore in dir (a fresh one
// when dir is ""), its master key of fill.
func newBuiltin(t testing.TB, dir string, fill byte) *Builtin {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	return newBuiltinKey(t, dir, keyringtest.New(t, fill))
}

func newBuiltinKey(t testing.TB, dir string, master *keyring.Keyring) *Builtin {
	t.Helper()
	store, err := OpenFileStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBuiltin(context.Background(), master, store)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustCreate(t *testing.T, b *Builtin, id string) {
	t.Helper()
	if _, err := b.Create(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
}

func mustGenerate(t *testing.T, b *Builtin, id string, ec Context) DataKey {
	t.Helper()
	dk, err := b.GenerateDataKey(context.Background(), id, ec)
	if err != nil {
		t.Fatal(err)
	}
	return dk
}

func mustDecrypt(t *testing.T, b *Builtin, id string, sealed []byte, ec Context, want []byte) {
	t.Helper()
	got, err := b.Decrypt(context.Background(), id, sealed, ec)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Decrypt(%s) = %x, %v; want %x", id, got, err, want)
	}
}

// wantS3 checks the S3 answer err carries.
func wantS3(t *testing.T, err error, code string, status int, message string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v is not a *kms.Error", err)
	}
	c, s, m := e.S3Error()
	if c != code || s != status || (message != "" && m != message) {
		t.Errorf("S3Error = %s %d %q; want %s %d %q", c, s, m, code, status, message)
	}
}

func TestDataKeyRoundTrip(t *testing.T) {
	b := newBuiltin(t, "", 1)
	ec := ObjectContext("bucket", "photos/a.jpg", nil)
	dk := mustGenerate(t, b, SSES3KeyID, ec)
	if len(dk.Plaintext) != DataKeySize {
		t.Fatalf("data key of %d bytes", len(dk.Plaintext))
	}
	if bytes.Contains(dk.Sealed, dk.Plaintext) {
		t.Fatal("the sealed data key holds the plain one")
	}
	if again := mustGenerate(t, b, SSES3KeyID, ec); bytes.Equal(again.Plaintext, dk.Plaintext) {
		t.Fatal("two data keys are equal")
	}
	sk, err := ParseSealed(dk.Sealed)
	if err != nil || sk.KeyID != SSES3KeyID || sk.Version != 1 {
		t.Errorf("ParseSealed = %+v, %v; want %s version 1", sk, err, SSES3KeyID)
	}
	mustDecrypt(t, b, SSES3KeyID, dk.Sealed, ObjectContext("bucket", "photos/a.jpg", nil), dk.Plaintext)

	mustCreate(t, b, "team-a")
	kmsCtx := ObjectContext("bucket", "k", Context{"project": "x"})
	dk = mustGenerate(t, b, "team-a", kmsCtx)
	mustDecrypt(t, b, "team-a", dk.Sealed, kmsCtx, dk.Plaintext)
}

func TestDecryptRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := newBuiltin(t, dir, 1)
	mustCreate(t, b, "a")
	mustCreate(t, b, "b")
	ec := ObjectContext("bucket", "key", Context{"x": "y=z"})
	dk := mustGenerate(t, b, "a", ec)
	if _, err := b.Rotate(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	// The same data key sealed under version 2 reads as version 1.
	v2, err := b.Rewrap(ctx, dk.Sealed, ec)
	if err != nil {
		t.Fatal(err)
	}
	asV1 := setVersion(v2, 1)
	tampered := bytes.Clone(dk.Sealed)
	tampered[len(tampered)-5] ^= 1
	// The sealed key of "a" relabelled as "b"'s (same length of ID).
	relabelled := bytes.Clone(dk.Sealed)
	relabelled[2] = 'b'
	cases := []struct {
		name   string
		id     string
		sealed []byte
		ec     Context
	}{
		{"another object", "a", dk.Sealed, ObjectContext("bucket", "other", Context{"x": "y=z"})},
		{"another bucket", "a", dk.Sealed, ObjectContext("other", "key", Context{"x": "y=z"})},
		{"no client context", "a", dk.Sealed, ObjectContext("bucket", "key", nil)},
		{"pairs cut elsewhere", "a", dk.Sealed, ObjectContext("bucket", "key", Context{"x=y": "z"})},
		{"another key ID", "b", dk.Sealed, ec},
		{"relabelled to another key", "b", relabelled, ec},
		{"another version", "a", asV1, ec},
		{"a version the key lacks", "a", setVersion(dk.Sealed, 9), ec},
		{"tampered", "a", tampered, ec},
		{"truncated", "a", dk.Sealed[:len(dk.Sealed)-1], ec},
		{"header only", "a", dk.Sealed[:7], ec},
		{"unknown format", "a", append([]byte{9}, dk.Sealed[1:]...), ec},
		{"empty", "a", nil, ec},
	}
	for _, c := range cases {
		got, err := b.Decrypt(ctx, c.id, c.sealed, c.ec)
		if !errors.Is(err, ErrOpen) || got != nil {
			t.Errorf("%s: Decrypt = %x, %v; want ErrOpen", c.name, got, err)
		}
	}
	wantS3(t, keyErr(KindOpen, "a"), "InternalError", http.StatusInternalServerError, "")

	// Another master key over the same keys opens nothing, and says why.
	other := newBuiltin(t, dir, 2)
	if got, err := other.Decrypt(ctx, "a", dk.Sealed, ec); err == nil || got != nil {
		t.Errorf("another master key: Decrypt = %x, %v", got, err)
	}
}

// setVersion returns sealed with its header's version set to n.
func setVersion(sealed []byte, n uint32) []byte {
	out := bytes.Clone(sealed)
	binary.BigEndian.PutUint32(out[2+int(out[1]):], n)
	return out
}

func TestDisabledKey(t *testing.T) {
	ctx := context.Background()
	b := newBuiltin(t, "", 1)
	mustCreate(t, b, "k")
	ec := ObjectContext("bucket", "key", nil)
	dk := mustGenerate(t, b, "k", ec)
	if err := b.SetEnabled(ctx, "k", false); err != nil {
		t.Fatal(err)
	}
	got, err := b.Decrypt(ctx, "k", dk.Sealed, ec)
	if !errors.Is(err, ErrDisabled) || got != nil {
		t.Fatalf("Decrypt under a disabled key = %x, %v; want ErrDisabled", got, err)
	}
	wantS3(t, err, "KMS.DisabledException", http.StatusBadRequest, "k is disabled.")
	if _, err := b.GenerateDataKey(ctx, "k", ec); !errors.Is(err, ErrDisabled) {
		t.Errorf("GenerateDataKey = %v; want ErrDisabled", err)
	}
	if err := b.Status(ctx, "k"); !errors.Is(err, ErrDisabled) {
		t.Errorf("Status = %v; want ErrDisabled", err)
	}
	if _, err := b.Rewrap(ctx, dk.Sealed, ec); !errors.Is(err, ErrDisabled) {
		t.Errorf("Rewrap = %v; want ErrDisabled", err)
	}
	if _, err := b.Rotate(ctx, "k"); !errors.Is(err, ErrDisabled) {
		t.Errorf("Rotate = %v; want ErrDisabled", err)
	}
	if info, err := b.Describe(ctx, "k"); err != nil || info.Enabled {
		t.Errorf("Describe = %+v, %v; want disabled", info, err)
	}
	if err := b.SetEnabled(ctx, "k", true); err != nil {
		t.Fatal(err)
	}
	mustDecrypt(t, b, "k", dk.Sealed, ec, dk.Plaintext)

	if err := b.SetEnabled(ctx, SSES3KeyID, false); !errors.Is(err, ErrSSES3Key) {
		t.Errorf("disabling the SSE-S3 key: %v; want ErrSSES3Key", err)
	}
	if err := b.Status(ctx, SSES3KeyID); err != nil {
		t.Errorf("SSE-S3 key status: %v", err)
	}
}

func TestMissingKey(t *testing.T) {
	ctx := context.Background()
	b := newBuiltin(t, "", 1)
	_, err := b.GenerateDataKey(ctx, "nope", nil)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("GenerateDataKey of a missing key = %v; want ErrNotFound", err)
	}
	wantS3(t, err, "KMS.NotFoundException", http.StatusBadRequest, "Key 'nope' does not exist")
	dk := mustGenerate(t, b, SSES3KeyID, nil)
	if got, err := b.Decrypt(ctx, "nope", dk.Sealed, nil); !errors.Is(err, ErrNotFound) || got != nil {
		t.Errorf("Decrypt = %x, %v; want ErrNotFound", got, err)
	}
	for _, id := range []string{"", "a/b", "arn:aws:kms:us-east-1:1:key/x", "-x", string(bytes.Repeat([]byte{'k'}, 65))} {
		if err := b.Status(ctx, id); !errors.Is(err, ErrInvalidKeyID) {
			t.Errorf("Status(%q) = %v; want ErrInvalidKeyID", id, err)
		}
		if _, err := b.Create(ctx, id, ""); !errors.Is(err, ErrInvalidKeyID) {
			t.Errorf("Create(%q) = %v; want ErrInvalidKeyID", id, err)
		}
	}
	wantS3(t, b.Status(ctx, "a/b"), "KMS.NotFoundException", http.StatusBadRequest, "Invalid keyId 'a/b'")
	if err := b.SetEnabled(ctx, "nope", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetEnabled of a missing key = %v; want ErrNotFound", err)
	}
}

func TestRotateRewrap(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := newBuiltin(t, dir, 1)
	mustCreate(t, b, "k")
	type sealedKey struct {
		id string
		ec Context
		dk DataKey
	}
	var keys []sealedKey
	for i, id := range []string{SSES3KeyID, "k", SSES3KeyID, "k"} {
		ec := ObjectContext("bucket", string(rune('a'+i)), nil)
		keys = append(keys, sealedKey{id, ec, mustGenerate(t, b, id, ec)})
	}
	for _, id := range []string{SSES3KeyID, "k"} {
		info, err := b.Rotate(ctx, id)
		if err != nil || info.Version != 2 {
			t.Fatalf("Rotate(%s) = %+v, %v; want version 2", id, info, err)
		}
	}
	// A fresh process over the same data dir reads everything.
	b = newBuiltin(t, dir, 1)
	for _, k := range keys {
		mustDecrypt(t, b, k.id, k.dk.Sealed, k.ec, k.dk.Plaintext)
		re, err := b.Rewrap(ctx, k.dk.Sealed, k.ec)
		if err != nil {
			t.Fatal(err)
		}
		if sk, _ := ParseSealed(re); sk.KeyID != k.id || sk.Version != 2 {
			t.Errorf("rewrapped key is %+v; want %s version 2", sk, k.id)
		}
		mustDecrypt(t, b, k.id, re, k.ec, k.dk.Plaintext)
		if again, err := b.Rewrap(ctx, re, k.ec); err != nil || !bytes.Equal(again, re) {
			t.Errorf("Rewrap of a newest key = %v; want it unchanged", err)
		}
		if _, err := b.Rewrap(ctx, k.dk.Sealed, ObjectContext("bucket", "z", nil)); !errors.Is(err, ErrOpen) {
			t.Errorf("Rewrap for another object = %v; want ErrOpen", err)
		}
	}
	if sk, _ := ParseSealed(mustGenerate(t, b, "k", nil).Sealed); sk.Version != 2 {
		t.Errorf("a new data key is sealed under version %d; want 2", sk.Version)
	}
}

func TestKeysListedAndShared(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	b := newBuiltin(t, dir, 1)
	mustCreate(t, b, "zeta")
	mustCreate(t, b, "alpha")
	if _, err := b.Create(ctx, "alpha", ""); !errors.Is(err, ErrExists) {
		t.Errorf("Create of an existing key = %v; want ErrExists", err)
	}
	list, err := b.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, k := range list {
		if !k.Enabled || k.Version != 1 {
			t.Errorf("%+v: want enabled, version 1", k)
		}
		ids = append(ids, k.ID)
	}
	if want := []string{"alpha", SSES3KeyID, "zeta"}; !slices.Equal(ids, want) {
		t.Errorf("List = %v; want %v", ids, want)
	}
	// Another process on the data dir (`jog admin kms disable`): the
	// first sees its change at its next call.
	admin := newBuiltin(t, dir, 1)
	dk := mustGenerate(t, b, "zeta", nil)
	if err := admin.SetEnabled(ctx, "zeta", false); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Decrypt(ctx, "zeta", dk.Sealed, nil); !errors.Is(err, ErrDisabled) {
		t.Errorf("after another process disabled the key: Decrypt = %v; want ErrDisabled", err)
	}
}
