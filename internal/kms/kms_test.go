package kms

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseContextHeader(t *testing.T) {
	enc := base64.StdEncoding.EncodeToString
	ec, err := ParseContextHeader(enc([]byte(`{"project":"x","team":"ü"}`)))
	if err != nil || len(ec) != 2 || ec["project"] != "x" || ec["team"] != "ü" {
		t.Fatalf("ParseContextHeader = %v, %v", ec, err)
	}
	for name, v := range map[string]string{
		"not base64":     "{not base64}",
		"not JSON":       enc([]byte("project=x")),
		"an array":       enc([]byte(`["x"]`)),
		"null":           enc([]byte(`null`)),
		"a number value": enc([]byte(`{"n":1}`)),
		"not UTF-8":      enc([]byte("{\"a\":\"\xff\"}")),
	} {
		_, err := ParseContextHeader(v)
		if !errors.Is(err, ErrInvalidContext) {
			t.Errorf("%s: %v; want ErrInvalidContext", name, err)
			continue
		}
		wantS3(t, err, "InvalidArgument", http.StatusBadRequest, "")
	}
}

func TestMasterKeyFile(t *testing.T) {
	dir := t.TempDir()
	master, err := LoadMasterKey(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, MasterKeyFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v; want 0600", MasterKeyFile, fi.Mode().Perm())
	}
	b := newBuiltinKey(t, dir, master)
	dk := mustGenerate(t, b, SSES3KeyID, nil)
	if keys, err := os.Stat(filepath.Join(dir, KeysFile)); err != nil || keys.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v; want mode 0600", KeysFile, err)
		if err == nil {
			t.Errorf("%s mode = %v", KeysFile, keys.Mode().Perm())
		}
	}

	// A restart loads the same master key: what was sealed opens.
	again, err := LoadMasterKey(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	mustDecrypt(t, newBuiltinKey(t, dir, again), SSES3KeyID, dk.Sealed, nil, dk.Plaintext)

	// JOG_SSE_KEY wins over the file, and no file is made for it.
	envDir := t.TempDir()
	env := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	fromEnv, err := LoadMasterKey(envDir, env)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(envDir, MasterKeyFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("with %s set, %s exists: %v", MasterKeyEnv, MasterKeyFile, err)
	}
	b = newBuiltinKey(t, envDir, fromEnv)
	dk = mustGenerate(t, b, SSES3KeyID, nil)
	if _, err := newBuiltinKey(t, envDir, master).Decrypt(context.Background(), SSES3KeyID, dk.Sealed, nil); err == nil {
		t.Error("a key sealed under the environment's master key opens under the file's")
	}
	if _, err := LoadMasterKey(envDir, "c2hvcnQ="); err == nil || !strings.Contains(err.Error(), MasterKeyEnv) {
		t.Errorf("a short %s: %v; want an error naming it", MasterKeyEnv, err)
	}
}

// Every kind has an S3 answer; the ones no built-in path returns (an
// external KMS's) are pinned here.
func TestEveryKindAnswers(t *testing.T) {
	for k, c := range kindCodes {
		if c.code == "" || c.status < 400 || c.msg == "" {
			t.Errorf("kind %d: %+v; want a code, an error status and a message", k, c)
		}
	}
	wantS3(t, keyErr(KindAccessDenied, "k"), "AccessDenied", http.StatusForbidden, "Access Denied")
	wantS3(t, keyErr(KindUnavailable, "k"), "ServiceUnavailable", http.StatusServiceUnavailable, "")
	if err := keyErr(KindOpen, "k"); !strings.Contains(err.Error(), "'k' does not open") {
		t.Errorf("Error() = %q; want the log's text, naming the key", err)
	}
}

// BenchmarkDataKey is the key management cost of one object: a data key
// generated (PUT) and opened (GET) under the SSE-S3 key.
func BenchmarkDataKey(b *testing.B) {
	k := newBuiltin(b, "", 1)
	ctx := context.Background()
	ec := ObjectContext("bucket", "key", nil)
	b.ReportAllocs()
	for b.Loop() {
		dk, err := k.GenerateDataKey(ctx, SSES3KeyID, ec)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := k.Decrypt(ctx, SSES3KeyID, dk.Sealed, ec); err != nil {
			b.Fatal(err)
		}
	}
}
