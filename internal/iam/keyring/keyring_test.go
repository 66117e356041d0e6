package keyring

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/datadir"
)

const plain = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

func mustNew(t *testing.T, fill byte) *Keyring {
	t.Helper()
	k, err := New(bytes.Repeat([]byte{fill}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestRoundTrip(t *testing.T) {
	k := mustNew(t, 1)
	sealed := k.Seal("AKIAEXAMPLE", NewSecret(plain))
	if bytes.Contains(sealed, []byte(plain)) {
		t.Fatal("the sealed secret contains the plain text")
	}
	if again := k.Seal("AKIAEXAMPLE", NewSecret(plain)); bytes.Equal(again, sealed) {
		t.Error("two seals of one secret are equal: the nonce is not fresh")
	}
	got, err := k.Open("AKIAEXAMPLE", sealed)
	if err != nil || got.Reveal() != plain {
		t.Fatalf("Open = %q, %v", got.Reveal(), err)
	}
}

func TestOpenRefuses(t *testing.T) {
	k := mustNew(t, 1)
	sealed := k.Seal("AKIAEXAMPLE", NewSecret(plain))
	tampered := bytes.Clone(sealed)
	tampered[len(tampered)-20] ^= 1
	cases := []struct {
		name   string
		k      *Keyring
		id     string
		sealed []byte
	}{
		{"wrong key", mustNew(t, 2), "AKIAEXAMPLE", sealed},
		{"another access key ID", k, "AKIAOTHER", sealed},
		{"tampered ciphertext", k, "AKIAEXAMPLE", tampered},
		{"truncated", k, "AKIAEXAMPLE", sealed[:10]},
		{"unknown version", k, "AKIAEXAMPLE", append([]byte{9}, sealed[1:]...)},
		{"empty", k, "AKIAEXAMPLE", nil},
	}
	for _, c := range cases {
		got, err := c.k.Open(c.id, c.sealed)
		if !errors.Is(err, ErrOpen) || got.Reveal() != "" {
			t.Errorf("%s: Open = %q, %v; want ErrOpen", c.name, got.Reveal(), err)
		}
	}
}

func TestNewRefusesShortKey(t *testing.T) {
	if _, err := New(make([]byte, 16)); err == nil {
		t.Error("New accepted a 16-byte key")
	}
}

func TestLoadCreatesKeyFile(t *testing.T) {
	dir := t.TempDir()
	k, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, datadir.IAMKeyFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v, want 0600", path, fi.Mode().Perm())
	}
	b, _ := os.ReadFile(path)
	if key, err := ParseKey(string(b)); err != nil || len(key) != KeySize {
		t.Errorf("key file = %q: %v", b, err)
	}
	// Loading again reads the same key: what one sealed, the other opens.
	k2, err := Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k2.Open("id", k.Seal("id", NewSecret(plain))); err != nil {
		t.Errorf("a second Load has another key: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("data dir holds %d files, want only %s", len(entries), datadir.IAMKeyFile)
	}
}

func TestLoadEnvKeyWins(t *testing.T) {
	dir := t.TempDir()
	fromFile, err := Load(dir, "") // creates iam.key
	if err != nil {
		t.Fatal(err)
	}
	env := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, KeySize))
	k, err := Load(dir, env)
	if err != nil {
		t.Fatal(err)
	}
	sealed := k.Seal("id", NewSecret(plain))
	if _, err := mustNew(t, 7).Open("id", sealed); err != nil {
		t.Errorf("the env key was not used: %v", err)
	}
	if _, err := fromFile.Open("id", sealed); err == nil {
		t.Error("the file's key opened what the env key sealed")
	}
	for _, bad := range []string{"not base64!", base64.StdEncoding.EncodeToString(make([]byte, 16))} {
		if _, err := Load(dir, bad); err == nil || !strings.Contains(err.Error(), EnvVar) {
			t.Errorf("Load(%q) = %v, want an error naming %s", bad, err, EnvVar)
		}
	}
}

func TestLoadRefusesDamagedKeyFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, datadir.IAMKeyFile), []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, ""); err == nil {
		t.Error("Load accepted a damaged key file")
	}
}

// TestSecretNeverPrints formats a Secret, and a struct holding one, every
// way a log line or an error could.
func TestSecretNeverPrints(t *testing.T) {
	s := NewSecret(plain)
	holder := struct {
		ID     string
		Secret Secret
	}{"AKIAEXAMPLE", s}
	var outs []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d"} {
		outs = append(outs, fmt.Sprintf(verb, s), fmt.Sprintf(verb, holder), fmt.Sprintf(verb, &holder))
	}
	outs = append(outs, fmt.Sprint(s), fmt.Sprintln(holder), fmt.Errorf("failed: %v", s).Error())
	j, _ := json.Marshal(holder)
	x, _ := xml.Marshal(holder)
	outs = append(outs, string(j), string(x))
	var buf bytes.Buffer
	for _, h := range []slog.Handler{slog.NewTextHandler(&buf, nil), slog.NewJSONHandler(&buf, nil)} {
		slog.New(h).Info("key", "secret", s, "holder", holder)
	}
	outs = append(outs, buf.String())
	for _, o := range outs {
		if strings.Contains(o, plain) || strings.Contains(o, "EXAMPLEKEY") {
			t.Errorf("the secret shows: %s", o)
		}
	}
	if !strings.Contains(fmt.Sprint(s), redacted) {
		t.Errorf("Sprint(secret) = %q, want %s", fmt.Sprint(s), redacted)
	}
}

func TestTokens(t *testing.T) {
	k := mustNew(t, 1)
	msg := []byte(`{"k":"ASIAEXAMPLE"}`)
	sealed := k.SealToken("sts-session", msg)
	if bytes.Contains(sealed, msg) {
		t.Fatal("the sealed token contains the plain text")
	}
	got, err := k.OpenToken("sts-session", sealed)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("OpenToken = %q, %v", got, err)
	}
	if _, err := k.OpenToken("other", sealed); !errors.Is(err, ErrOpen) {
		t.Errorf("opened for another purpose: %v", err)
	}
	if _, err := mustNew(t, 2).OpenToken("sts-session", sealed); !errors.Is(err, ErrOpen) {
		t.Errorf("opened under another key: %v", err)
	}
	for i := range sealed {
		bad := bytes.Clone(sealed)
		bad[i] ^= 1
		if _, err := k.OpenToken("sts-session", bad); !errors.Is(err, ErrOpen) {
			t.Fatalf("byte %d flipped: opened (%v)", i, err)
		}
	}
	if _, err := k.OpenToken("sts-session", sealed[:len(sealed)-1]); !errors.Is(err, ErrOpen) {
		t.Error("a truncated token opened")
	}
	// A sealed secret is not a token, and a token not a sealed secret,
	// whatever the key ID or purpose.
	secret := k.Seal("sts-session", NewSecret(plain))
	if _, err := k.OpenToken("sts-session", secret); !errors.Is(err, ErrOpen) {
		t.Error("a sealed secret opened as a token")
	}
	secret[0] = tokenVersion
	if _, err := k.OpenToken("sts-session", secret); !errors.Is(err, ErrOpen) {
		t.Error("a sealed secret with the token's version byte opened as a token")
	}
	if _, err := k.Open("sts-session", sealed); !errors.Is(err, ErrOpen) {
		t.Error("a token opened as a sealed secret")
	}
}

// TestLoadRefusesKeyFileOthersMayRead: a key file the group or others may
// read or write is refused with a message that says how to fix it; one
// only its owner reads is accepted.
func TestLoadRefusesKeyFileOthersMayRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no group or other modes")
	}
	dir := t.TempDir()
	if _, err := Load(dir, ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, datadir.IAMKeyFile)
	for _, mode := range []os.FileMode{0o640, 0o604, 0o620, 0o644, 0o666} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := Load(dir, "")
		if !errors.Is(err, ErrNotPrivate) || !strings.Contains(err.Error(), "chmod 600 "+path) {
			t.Errorf("mode %#o: Load = %v; want ErrNotPrivate naming chmod 600 %s", mode, err, path)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir, ""); err != nil {
			t.Errorf("mode %#o: Load = %v; want the key", mode, err)
		}
	}
	// The variable wins: the file is not read.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, KeySize))); err != nil {
		t.Errorf("with %s set, a readable iam.key refuses the start: %v", EnvVar, err)
	}
}
