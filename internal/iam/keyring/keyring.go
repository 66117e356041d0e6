// Package keyring keeps secrets at rest: it seals a secret access key with
// AES-256-GCM under the server key, the access key ID as associated data
// (so a sealed secret moved to another key's row does not open), and opens
// it again. The server key is 32 bytes, from JOG_IAM_KEY (base64) when set,
// else from the file iam.key in the data dir, created with mode 0600 on
// first use and refused when the group or others may read or write it.
//
// A Secret never prints: its String, GoString, Format, LogValue and text
// and JSON encodings are "[REDACTED]". Reveal returns the plain text, for
// the one place that must send or use it.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/jogstore/jog/internal/datadir"
)

// KeySize is the length of the server key: AES-256.
const KeySize = 32

// EnvVar names the environment variable that gives the server key.
const EnvVar = "JOG_IAM_KEY"

// version is the first byte of a sealed secret: the format (AES-256-GCM,
// 12-byte nonce), so that another can follow.
const version = 1

// ErrOpen reports a sealed secret that does not open: another server key,
// another access key ID, or damaged bytes. It says nothing of the secret.
var ErrOpen = errors.New("keyring: sealed secret does not open (wrong server key, or damaged)")

// Keyring seals and opens secrets under one server key. It is safe for
// concurrent use.
type Keyring struct {
	aead cipher.AEAD
}

// New returns a Keyring over a KeySize-byte key.
func New(key []byte) (*Keyring, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("keyring: the server key must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Keyring{aead: aead}, nil
}

// ParseKey decodes a server key given as base64 (standard, padded), as
// JOG_IAM_KEY and iam.key hold it (and the SSE master key's file and
// variable, internal/kms).
func ParseKey(s string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("a server key must be %d bytes in base64 (e.g. `head -c %d /dev/urandom | base64`)", KeySize, KeySize)
	}
	return key, nil
}

// Load returns the Keyring of the server key envKey (base64; from
// JOG_IAM_KEY) when it is set, else of the key in dataDir's iam.key,
// which it creates (mode 0600, 32 random bytes) when there is none.
func Load(dataDir, envKey string) (*Keyring, error) {
	return LoadFile(filepath.Join(dataDir, datadir.IAMKeyFile), EnvVar, envKey)
}

// LoadFile returns the Keyring of envKey (base64; the value of the
// environment variable envVar, which errors name) when it is set, else of
// the key in the file at path, which it creates (mode 0600, 32 random
// bytes) when there is none. Load keeps the IAM server key so; the SSE
// master key (internal/kms) is kept the same way in another file.
func LoadFile(path, envVar, envKey string) (*Keyring, error) {
	if envKey != "" {
		key, err := ParseKey(envKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envVar, err)
		}
		return New(key)
	}
	key, err := loadOrCreate(path)
	if err != nil {
		return nil, err
	}
	return New(key)
}

// loadOrCreate reads the key file at path, or creates it. A new key is
// written to a temporary file, synced, and linked into place, so the file
// is either absent or whole; of two processes creating it at once, the
// second reads the first's.
func loadOrCreate(path string) ([]byte, error) {
	key, err := ReadKeyFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		buf := make([]byte, KeySize)
		rand.Read(buf)
		if err := WriteKeyFile(path, buf); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		key, err = ReadKeyFile(path)
	}
	return key, err
}

// ReadKeyFile returns the key in the file at path (base64, as iam.key and
// sse.key hold it). It refuses a file that the group or others may read
// or write (CheckPrivate): a server key is a secret as an SSH private key
// is. A missing file is an error matching fs.ErrNotExist.
func ReadKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := CheckPrivate(path, fi.Mode()); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<10))
	if err != nil {
		return nil, err
	}
	key, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// ErrNotPrivate reports a key file that the group or others may read or
// write.
var ErrNotPrivate = errors.New("keyring: a key file must be readable by its owner only")

// CheckPrivate fails with ErrNotPrivate when mode (of the file at path)
// lets the group or others read or write it, saying how to fix it. Where
// the system has no such modes (Windows) it accepts any.
func CheckPrivate(path string, mode fs.FileMode) error {
	if runtime.GOOS == "windows" || mode.Perm()&0o077 == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s has mode %#o (run: chmod 600 %s)", ErrNotPrivate, path, mode.Perm(), path)
}

// WriteKeyFile writes key (KeySize bytes) to a new file at path, mode
// 0600: a temporary file, synced, linked into place, the directory synced,
// so that path is either absent or whole. It fails with an error matching
// fs.ErrExist when path exists.
func WriteKeyFile(path string, key []byte) error {
	if len(key) != KeySize {
		return fmt.Errorf("keyring: the server key must be %d bytes, not %d", KeySize, len(key))
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	// CreateTemp makes the file 0600; Chmod says so whatever the umask.
	err = errors.Join(f.Chmod(0o600), write(f, base64.StdEncoding.EncodeToString(key)+"\n"), f.Sync(), f.Close())
	if err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		return err
	}
	return datadir.SyncDir(filepath.Dir(path))
}

func write(f *os.File, s string) error {
	_, err := f.WriteString(s)
	return err
}

// Seal encrypts secret for the access key id: version, nonce, ciphertext
// and tag.
func (k *Keyring) Seal(id string, secret Secret) []byte {
	n := k.aead.NonceSize()
	out := make([]byte, 1+n, 1+n+len(secret.s)+k.aead.Overhead())
	out[0] = version
	rand.Read(out[1:])
	return k.aead.Seal(out, out[1:], []byte(secret.s), []byte(id))
}

// Open decrypts what Seal returned for the same id: ErrOpen when it does
// not open.
func (k *Keyring) Open(id string, sealed []byte) (Secret, error) {
	n := k.aead.NonceSize()
	if len(sealed) < 1+n+k.aead.Overhead() || sealed[0] != version {
		return Secret{}, ErrOpen
	}
	plain, err := k.aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte(id))
	if err != nil {
		return Secret{}, ErrOpen
	}
	return Secret{string(plain)}, nil
}

// Secret is a secret access key. Printing or logging it shows [REDACTED].
type Secret struct{ s string }

// NewSecret wraps a plain-text secret.
func NewSecret(s string) Secret { return Secret{s} }

// Reveal returns the secret in plain text.
func (s Secret) Reveal() string { return s.s }

const redacted = "[REDACTED]"

func (Secret) String() string               { return redacted }
func (Secret) GoString() string             { return redacted }
func (Secret) Format(f fmt.State, _ rune)   { fmt.Fprint(f, redacted) }
func (Secret) LogValue() slog.Value         { return slog.StringValue(redacted) }
func (Secret) MarshalText() ([]byte, error) { return []byte(redacted), nil }
func (Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// tokenVersion is the first byte of a sealed token: AES-256-GCM, 12-byte
// nonce, and a purpose as associated data. It differs from version so
// that a sealed secret is never taken for a token, nor the reverse.
const tokenVersion = 2

// SealToken encrypts plain for purpose (the associated data, e.g.
// "sts-session"): what OpenToken opens for the same purpose only. Tokens
// leave the server (an STS session token is one), so their purpose is
// part of what is authenticated: a token sealed for one purpose, or a
// sealed secret (Seal), never opens as another.
func (k *Keyring) SealToken(purpose string, plain []byte) []byte {
	n := k.aead.NonceSize()
	out := make([]byte, 1+n, 1+n+len(plain)+k.aead.Overhead())
	out[0] = tokenVersion
	rand.Read(out[1:])
	return k.aead.Seal(out, out[1:], plain, tokenAD(purpose))
}

// OpenToken decrypts what SealToken returned for the same purpose:
// ErrOpen when it does not open.
func (k *Keyring) OpenToken(purpose string, sealed []byte) ([]byte, error) {
	n := k.aead.NonceSize()
	if len(sealed) < 1+n+k.aead.Overhead() || sealed[0] != tokenVersion {
		return nil, ErrOpen
	}
	plain, err := k.aead.Open(nil, sealed[1:1+n], sealed[1+n:], tokenAD(purpose))
	if err != nil {
		return nil, ErrOpen
	}
	return plain, nil
}

// tokenAD is a token's associated data: a NUL (which no access key ID,
// Seal's associated data, holds) and the purpose.
func tokenAD(purpose string) []byte { return []byte("\x00token:" + purpose) }
