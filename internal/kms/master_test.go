package kms

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/iam/keyring"
)

// sealedKey is a data key sealed under a key, with what opens it.
type sealedKey struct {
	id string
	ec Context
	dk DataKey
}

// seedKeys creates keys k1 (two versions) and k2 in b and seals a data
// key under each key and version, sse-s3's too.
func seedKeys(t *testing.T, b *Builtin) []sealedKey {
	t.Helper()
	ctx := context.Background()
	mustCreate(t, b, "k1")
	mustCreate(t, b, "k2")
	ec := ObjectContext("bkt", "obj", Context{"team": "a"})
	keys := []sealedKey{
		{SSES3KeyID, ObjectContext("bkt", "s3obj", nil), DataKey{}},
		{"k1", ec, DataKey{}},
		{"k2", ec, DataKey{}},
	}
	for i := range keys {
		keys[i].dk = mustGenerate(t, b, keys[i].id, keys[i].ec)
	}
	if _, err := b.Rotate(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	return append(keys, sealedKey{"k1", ec, mustGenerate(t, b, "k1", ec)})
}

// openAll checks that every data key of keys opens under b to its plain
// text.
func openAll(t *testing.T, b *Builtin, keys []sealedKey) {
	t.Helper()
	for _, k := range keys {
		mustDecrypt(t, b, k.id, k.dk.Sealed, k.ec, k.dk.Plaintext)
	}
}

func openDataDir(t *testing.T, dir, env string) *Builtin {
	t.Helper()
	b, err := OpenDataDir(context.Background(), dir, env)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wantPrivate(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode = %v; want 0600", path, fi.Mode().Perm())
	}
}

func wantAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s: %v; want it absent", path, err)
	}
}

// TestRotateMaster: a new master key (sse.key) re-seals every key
// version; every data key sealed before opens after a reopen under it,
// the old key is kept as a 0600 backup, and the store no longer opens
// under the old key: clearly, at open.
func TestRotateMaster(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	keys := seedKeys(t, openDataDir(t, dir, ""))
	masterPath := filepath.Join(dir, MasterKeyFile)
	oldKey := readFile(t, masterPath)
	oldStore := readFile(t, filepath.Join(dir, KeysFile))

	r, err := RotateMaster(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Versions != 4 || r.NewKey != "" || r.Backup == "" {
		t.Errorf("RotateMaster = %+v; want 4 versions, a backup, no key shown", r)
	}
	if bytes.Equal(readFile(t, masterPath), oldKey) {
		t.Fatalf("%s unchanged", MasterKeyFile)
	}
	wantPrivate(t, masterPath)
	wantPrivate(t, r.Backup)
	if !bytes.Equal(readFile(t, r.Backup), oldKey) {
		t.Errorf("backup %s does not hold the old key", r.Backup)
	}
	wantAbsent(t, filepath.Join(dir, MasterKeyStaging))
	if bytes.Equal(readFile(t, filepath.Join(dir, KeysFile)), oldStore) {
		t.Errorf("%s unchanged", KeysFile)
	}

	openAll(t, openDataDir(t, dir, ""), keys)

	// The old key, as the variable: refused at open, naming the cause.
	_, err = OpenDataDir(ctx, dir, strings.TrimSpace(string(oldKey)))
	if !errors.Is(err, ErrMasterMismatch) || !strings.Contains(err.Error(), MasterKeyEnv) {
		t.Errorf("OpenDataDir under the old key = %v; want ErrMasterMismatch naming %s", err, MasterKeyEnv)
	}
	// A Builtin made under the old key anyway opens no data key.
	old, err := keyring.ParseKey(string(oldKey))
	if err != nil {
		t.Fatal(err)
	}
	oldRing, err := keyring.New(old)
	if err != nil {
		t.Fatal(err)
	}
	stale := newBuiltinKey(t, dir, oldRing)
	for _, k := range keys {
		if _, err := stale.Decrypt(ctx, k.id, k.dk.Sealed, k.ec); err == nil || !strings.Contains(err.Error(), "master key") {
			t.Errorf("Decrypt(%s) under the old master key = %v; want an error naming the master key", k.id, err)
		}
	}

	// A second rotation: the data keys still open.
	if _, err := RotateMaster(ctx, dir, ""); err != nil {
		t.Fatal(err)
	}
	openAll(t, openDataDir(t, dir, ""), keys)
}

// TestRotateMasterFromEnv: with the master key from JOG_SSE_KEY the new
// key is returned for the operator (and kept in the staging file, 0600,
// until the first start under it); a start under the old variable is
// refused and says what to do.
func TestRotateMasterFromEnv(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{3}, keyring.KeySize))
	keys := seedKeys(t, openDataDir(t, dir, env))

	r, err := RotateMaster(ctx, dir, env)
	if err != nil {
		t.Fatal(err)
	}
	if r.NewKey == "" || r.NewKey == env || r.Backup != "" || r.Versions != 4 {
		t.Fatalf("RotateMaster = %d versions, backup %q, new key set %v; want 4, none, a new key", r.Versions, r.Backup, r.NewKey != "")
	}
	wantAbsent(t, filepath.Join(dir, MasterKeyFile))
	staging := filepath.Join(dir, MasterKeyStaging)
	wantPrivate(t, staging)

	_, err = OpenDataDir(ctx, dir, env)
	if !errors.Is(err, ErrMasterMismatch) || !strings.Contains(err.Error(), "set "+MasterKeyEnv) {
		t.Errorf("OpenDataDir under the old variable = %v; want ErrMasterMismatch telling to set %s", err, MasterKeyEnv)
	}
	openAll(t, openDataDir(t, dir, r.NewKey), keys)
	wantAbsent(t, staging)
	wantAbsent(t, filepath.Join(dir, MasterKeyFile))
}

// TestRotateMasterCrash: a rotation that stopped before the store was
// re-sealed leaves the old key in force (the staging file is dropped); one
// that stopped after is finished at the next open. Either way every data
// key opens.
func TestRotateMasterCrash(t *testing.T) {
	ctx := context.Background()
	for _, committed := range []bool{false, true} {
		dir := t.TempDir()
		keys := seedKeys(t, openDataDir(t, dir, ""))
		masterPath := filepath.Join(dir, MasterKeyFile)
		oldKey := readFile(t, masterPath)
		fresh := bytes.Repeat([]byte{9}, keyring.KeySize)
		staging := filepath.Join(dir, MasterKeyStaging)
		if err := keyring.WriteKeyFile(staging, fresh); err != nil {
			t.Fatal(err)
		}
		if committed {
			// Steps 1-3 of RotateMaster, then the crash.
			store, err := OpenFileStore(dir)
			if err != nil {
				t.Fatal(err)
			}
			old, _ := currentMaster(dir, "")
			next, _ := keyring.New(fresh)
			err = store.locked(ctx, func() error {
				recs, _, err := reseal(store.sorted(), old, next)
				if err != nil {
					return err
				}
				return store.replace(recs)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		openAll(t, openDataDir(t, dir, ""), keys)
		wantAbsent(t, staging)
		got, err := keyring.ReadKeyFile(masterPath)
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := keyring.ParseKey(string(oldKey)); committed {
			if !bytes.Equal(got, fresh) {
				t.Errorf("committed: %s is not the staging key", MasterKeyFile)
			}
			backups, _ := filepath.Glob(masterPath + ".2*")
			if len(backups) != 1 || !bytes.Equal(readFile(t, backups[0]), oldKey) {
				t.Errorf("committed: backups %v; want one holding the old key", backups)
			}
		} else if !bytes.Equal(got, want) {
			t.Errorf("not committed: %s changed", MasterKeyFile)
		}
	}
}

// TestRotateMasterRefuses: no rotation while a server holds the data dir,
// nor under a master key that does not open the store; either leaves
// every file as it was.
func TestRotateMasterRefuses(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	keys := seedKeys(t, openDataDir(t, dir, ""))
	before := readFile(t, filepath.Join(dir, KeysFile))

	release, err := datadir.Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RotateMaster(ctx, dir, ""); !errors.Is(err, datadir.ErrLocked) {
		t.Errorf("RotateMaster with the data dir locked = %v; want ErrLocked", err)
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}

	other := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{5}, keyring.KeySize))
	if _, err := RotateMaster(ctx, dir, other); !errors.Is(err, ErrMasterMismatch) {
		t.Errorf("RotateMaster under another key = %v; want ErrMasterMismatch", err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(dir, KeysFile)), before) {
		t.Errorf("a refused rotation changed %s", KeysFile)
	}
	wantAbsent(t, filepath.Join(dir, MasterKeyStaging))
	openAll(t, openDataDir(t, dir, ""), keys)
}

// TestOpenDataDirRefusesLostOrExposedMasterKey: a store whose sse.key is
// gone is refused (no new key made over it), and so is an sse.key the
// group or others may read.
func TestOpenDataDirRefusesLostOrExposedMasterKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	seedKeys(t, openDataDir(t, dir, ""))
	masterPath := filepath.Join(dir, MasterKeyFile)

	if runtime.GOOS != "windows" {
		if err := os.Chmod(masterPath, 0o640); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenDataDir(ctx, dir, ""); !errors.Is(err, keyring.ErrNotPrivate) {
			t.Errorf("OpenDataDir with %s mode 0640 = %v; want ErrNotPrivate", MasterKeyFile, err)
		}
	}

	if err := os.Remove(masterPath); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDataDir(ctx, dir, ""); !errors.Is(err, ErrMasterMismatch) || !strings.Contains(err.Error(), "restore") {
		t.Errorf("OpenDataDir without %s = %v; want ErrMasterMismatch saying to restore it", MasterKeyFile, err)
	}
	wantAbsent(t, masterPath)
}
