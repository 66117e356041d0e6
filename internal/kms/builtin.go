package kms

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/iam/keyring"
)

// The master key seals the material of every key version. It is kept as
// the IAM server key is (internal/iam/keyring.LoadFile): 32 random bytes,
// base64, from MasterKeyEnv when set, else from MasterKeyFile in the data
// dir, created with mode 0600 on first use. It is never logged: it never
// leaves the Keyring.
const (
	MasterKeyFile = datadir.SSEKeyFile
	MasterKeyEnv  = "JOG_SSE_KEY"
)

// SSES3KeyID is the distinguished key that seals SSE-S3 data keys: the
// built-in service creates it, and it cannot be disabled.
const SSES3KeyID = "sse-s3"

// ErrSSES3Key refuses to disable the SSE-S3 key: every SSE-S3 object
// would become unreadable. It is an operator's error, not an S3 one.
var ErrSSES3Key = errors.New("kms: the SSE-S3 key cannot be disabled")

// LoadMasterKey returns the master key of dataDir: envKey (the value of
// MasterKeyEnv) when set, else MasterKeyFile, created when absent.
func LoadMasterKey(dataDir, envKey string) (*keyring.Keyring, error) {
	return keyring.LoadFile(filepath.Join(dataDir, MasterKeyFile), MasterKeyEnv, envKey)
}

// Builtin is the built-in KMS: named keys in a Store, their versions'
// material sealed by the master key. It is safe for concurrent use.
type Builtin struct {
	master *keyring.Keyring
	store  Store

	mu sync.Mutex
	// opened holds the versions opened so far, by their sealed material
	// (a version's material never changes).
	opened map[string]*keyring.Keyring
}

var _ KMS = (*Builtin)(nil)

// NewBuiltin returns the built-in KMS over store, creating the SSE-S3 key
// when the store has none.
func NewBuiltin(ctx context.Context, master *keyring.Keyring, store Store) (*Builtin, error) {
	b := &Builtin{master: master, store: store, opened: map[string]*keyring.Keyring{}}
	if _, err := store.Get(ctx, SSES3KeyID); errors.Is(err, ErrNotFound) {
		_, err = b.Create(ctx, SSES3KeyID, "SSE-S3: seals the data keys of objects stored with x-amz-server-side-encryption: AES256")
		if err != nil && !errors.Is(err, ErrExists) {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	return b, nil
}

// KeyInfo describes a key, without its material.
type KeyInfo struct {
	ID          string
	Description string
	Enabled     bool
	Created     time.Time
	// Version is the newest version, sealing new data keys since Rotated.
	Version uint32
	Rotated time.Time
}

func info(r Record) KeyInfo {
	v := r.newest()
	return KeyInfo{ID: r.ID, Description: r.Description, Enabled: r.Enabled, Created: r.Created, Version: v.N, Rotated: v.Created}
}

// Create adds an enabled key id with a first version.
func (b *Builtin) Create(ctx context.Context, id, description string) (KeyInfo, error) {
	if !ValidKeyID(id) {
		return KeyInfo{}, keyErr(KindInvalidKeyID, id)
	}
	now := time.Now().UTC()
	r := Record{ID: id, Description: description, Enabled: true, Created: now, Versions: []Version{b.newVersion(id, 1, now)}}
	if err := b.store.Create(ctx, r); err != nil {
		return KeyInfo{}, err
	}
	return info(r), nil
}

// newVersion makes version n of key id: fresh material, sealed by the
// master key for that key and version only.
func (b *Builtin) newVersion(id string, n uint32, now time.Time) Version {
	material := make([]byte, keyring.KeySize)
	rand.Read(material)
	return Version{N: n, Created: now, Sealed: b.master.SealToken(materialAD(id, n), material)}
}

// materialAD is the purpose a version's material is sealed for.
func materialAD(id string, n uint32) string {
	b := appendString([]byte("jog-kms-key-material\x00"), id)
	return string(binary.BigEndian.AppendUint32(b, n))
}

// Describe returns key id.
func (b *Builtin) Describe(ctx context.Context, id string) (KeyInfo, error) {
	r, err := b.get(ctx, id)
	if err != nil {
		return KeyInfo{}, err
	}
	return info(r), nil
}

// List returns every key, sorted by ID.
func (b *Builtin) List(ctx context.Context) ([]KeyInfo, error) {
	recs, err := b.store.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]KeyInfo, len(recs))
	for i, r := range recs {
		out[i] = info(r)
	}
	return out, nil
}

// SetEnabled enables or disables key id. While disabled, no data key is
// sealed or opened under it (ErrDisabled): its objects cannot be read.
func (b *Builtin) SetEnabled(ctx context.Context, id string, enabled bool) error {
	if !enabled && id == SSES3KeyID {
		return ErrSSES3Key
	}
	if !ValidKeyID(id) {
		return keyErr(KindInvalidKeyID, id)
	}
	return b.store.Update(ctx, id, func(r *Record) error {
		r.Enabled = enabled
		return nil
	})
}

// Rotate adds a version to key id: new data keys are sealed under it;
// those sealed under older versions still open, and Rewrap moves them.
func (b *Builtin) Rotate(ctx context.Context, id string) (KeyInfo, error) {
	if !ValidKeyID(id) {
		return KeyInfo{}, keyErr(KindInvalidKeyID, id)
	}
	var out Record
	err := b.store.Update(ctx, id, func(r *Record) error {
		if !r.Enabled {
			return keyErr(KindDisabled, id)
		}
		r.Versions = append(r.Versions, b.newVersion(id, r.newest().N+1, time.Now().UTC()))
		out = *r
		return nil
	})
	if err != nil {
		return KeyInfo{}, err
	}
	return info(out), nil
}

// get returns the record of a usable key id.
func (b *Builtin) get(ctx context.Context, id string) (Record, error) {
	if !ValidKeyID(id) {
		return Record{}, keyErr(KindInvalidKeyID, id)
	}
	return b.store.Get(ctx, id)
}

// usable returns the record of key id when it is enabled.
func (b *Builtin) usable(ctx context.Context, id string) (Record, error) {
	r, err := b.get(ctx, id)
	if err != nil {
		return Record{}, err
	}
	if !r.Enabled {
		return Record{}, keyErr(KindDisabled, id)
	}
	return r, nil
}

// Status says whether key id can seal and open data keys.
func (b *Builtin) Status(ctx context.Context, id string) error {
	_, err := b.usable(ctx, id)
	return err
}

// GenerateDataKey returns a fresh data key sealed under key id's newest
// version for ec.
func (b *Builtin) GenerateDataKey(ctx context.Context, id string, ec Context) (DataKey, error) {
	r, err := b.usable(ctx, id)
	if err != nil {
		return DataKey{}, err
	}
	plain := make([]byte, DataKeySize)
	rand.Read(plain)
	sealed, err := b.seal(r, r.newest(), plain, ec)
	if err != nil {
		return DataKey{}, err
	}
	return DataKey{Plaintext: plain, Sealed: sealed}, nil
}

// Decrypt opens a data key sealed under key id for ec.
func (b *Builtin) Decrypt(ctx context.Context, id string, sealed []byte, ec Context) ([]byte, error) {
	r, err := b.usable(ctx, id)
	if err != nil {
		return nil, err
	}
	plain, err := b.open(r, sealed, ec)
	return plain, err
}

// Rewrap returns sealed (a data key sealed under one of its key's
// versions for ec) sealed under the key's newest version, the data key
// unchanged; sealed itself when it already is. The key must be enabled.
func (b *Builtin) Rewrap(ctx context.Context, sealed []byte, ec Context) ([]byte, error) {
	sk, err := ParseSealed(sealed)
	if err != nil {
		return nil, err
	}
	r, err := b.usable(ctx, sk.KeyID)
	if err != nil {
		return nil, err
	}
	plain, err := b.open(r, sealed, ec)
	if err != nil {
		return nil, err
	}
	newest := r.newest()
	if sk.Version == newest.N {
		return sealed, nil
	}
	return b.seal(r, newest, plain, ec)
}

func (b *Builtin) seal(r Record, v Version, plain []byte, ec Context) ([]byte, error) {
	k, err := b.version(r.ID, v)
	if err != nil {
		return nil, err
	}
	return append(header(r.ID, v.N), k.SealToken(dataKeyAD(r.ID, v.N, ec), plain)...), nil
}

// open opens sealed, which must be sealed under one of r's versions.
func (b *Builtin) open(r Record, sealed []byte, ec Context) ([]byte, error) {
	sk, err := ParseSealed(sealed)
	if err != nil || sk.KeyID != r.ID {
		return nil, keyErr(KindOpen, r.ID)
	}
	v, ok := r.version(sk.Version)
	if !ok {
		return nil, keyErr(KindOpen, r.ID)
	}
	k, err := b.version(r.ID, v)
	if err != nil {
		return nil, err
	}
	plain, err := k.OpenToken(dataKeyAD(r.ID, v.N, ec), sk.body)
	if err != nil || len(plain) != DataKeySize {
		return nil, keyErr(KindOpen, r.ID)
	}
	return plain, nil
}

// version returns the Keyring of a key version's material, opening it
// with the master key the first time.
func (b *Builtin) version(id string, v Version) (*keyring.Keyring, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k, ok := b.opened[string(v.Sealed)]; ok {
		return k, nil
	}
	material, err := b.master.OpenToken(materialAD(id, v.N), v.Sealed)
	if err != nil {
		return nil, fmt.Errorf("kms: version %d of key %q does not open under the master key (another %s or %s than the one that created it?): %w", v.N, id, MasterKeyFile, MasterKeyEnv, err)
	}
	k, err := keyring.New(material)
	if err != nil {
		return nil, err
	}
	b.opened[string(v.Sealed)] = k
	return k, nil
}

// OpenDataDir returns the built-in KMS of dataDir: its master key
// (LoadMasterKey: envKey, else MasterKeyFile, created when absent) over
// its FileStore. The server and `jog admin kms` open it alike; gateways
// sharing a data dir share its keys. It first finishes a master-key
// rotation that stopped midway (RotateMaster), and refuses to create a
// master key for a store that holds keys: their key was lost.
func OpenDataDir(ctx context.Context, dataDir, envKey string) (*Builtin, error) {
	store, err := OpenFileStore(dataDir)
	if err != nil {
		return nil, err
	}
	if err := recoverDataDir(ctx, dataDir, envKey, store); err != nil {
		return nil, err
	}
	if envKey == "" {
		path := filepath.Join(dataDir, MasterKeyFile)
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			if recs, err := store.List(ctx); err != nil || len(recs) > 0 {
				return nil, errors.Join(err, fmt.Errorf("%w: %s is missing but %s holds keys sealed under it: restore it from a backup (or set %s)", ErrMasterMismatch, path, KeysFile, MasterKeyEnv))
			}
		}
	}
	master, err := LoadMasterKey(dataDir, envKey)
	if err != nil {
		return nil, err
	}
	recs, err := store.List(ctx)
	if err != nil {
		return nil, err
	}
	if !opensAll(master, recs) {
		return nil, fmt.Errorf("%w: %s holds keys sealed under another master key than %s (another %s, or a %s restored without its %s?)", ErrMasterMismatch, filepath.Join(dataDir, KeysFile), masterSource(envKey), MasterKeyEnv, KeysFile, MasterKeyFile)
	}
	return NewBuiltin(ctx, master, store)
}

// masterSource names where the master key came from, never the key.
func masterSource(envKey string) string {
	if envKey != "" {
		return MasterKeyEnv
	}
	return MasterKeyFile
}
