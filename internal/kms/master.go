package kms

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/iam/keyring"
)

// Rotating the master key re-seals the material of every key version in
// the FileStore under a new master key. Data keys are sealed by key
// versions, not by the master key, so no object and no metadata row
// changes. The order keeps every key version sealed under a master key
// that is on disk (or in the operator's hands) at every instant:
//
//  1. under the data dir's lock (no server running) and the keys file's
//     lock, check that every version opens under the current master key;
//  2. write the new master key to MasterKeyStaging (0600, synced);
//  3. re-seal every version under it and replace the keys file (temporary
//     file, fsync, rename, fsync of the directory): the commit point;
//  4. with the key from MasterKeyFile: link the old key to
//     MasterKeyFile.<time> (the backup, still 0600), rename the staging
//     file over MasterKeyFile, fsync the directory. With the key from
//     MasterKeyEnv the staging file stays until the operator sets the
//     variable to the new key: the first start under it removes it.
//
// A crash before 3 leaves the store under the old key: the staging file
// is removed at the next open. A crash after 3 leaves it under the staging
// key: the next open (OpenDataDir, by the server or `jog admin kms`)
// finishes step 4 (recoverRotation). Which file to keep is decided by
// which key opens the store, never by the files' names alone.

// MasterKeyStaging holds a new master key while RotateMaster re-seals the
// store under it (mode 0600).
const MasterKeyStaging = MasterKeyFile + ".new"

// ErrMasterMismatch reports a key store whose versions do not open under
// the master key given: another sse.key or JOG_SSE_KEY than the one that
// sealed them.
var ErrMasterMismatch = errors.New("kms: the key store does not open under this master key")

// MasterRotation says what RotateMaster did.
type MasterRotation struct {
	// Versions is the number of key versions re-sealed.
	Versions int
	// Backup is the old master key's file (MasterKeyFile.<time>), when
	// the key came from MasterKeyFile.
	Backup string
	// NewKey is the new master key (base64) when the old one came from
	// MasterKeyEnv: the operator sets the variable to it. Until then it
	// is also in Staging.
	NewKey  string
	Staging string
}

// RotateMaster replaces dataDir's master key (envKey, the value of
// MasterKeyEnv, when set; else MasterKeyFile) by a new one, re-sealing
// every key version in its FileStore. No server may run on dataDir: it
// takes the data dir's exclusive lock.
func RotateMaster(ctx context.Context, dataDir, envKey string) (out MasterRotation, err error) {
	release, err := datadir.Lock(dataDir)
	if err != nil {
		return MasterRotation{}, fmt.Errorf("stop every jog server on %s first: %w", dataDir, err)
	}
	defer func() { err = errors.Join(err, release()) }()
	store, err := OpenFileStore(dataDir)
	if err != nil {
		return MasterRotation{}, err
	}
	err = store.locked(ctx, func() error {
		if err := recoverRotation(dataDir, envKey, store.sorted()); err != nil {
			return err
		}
		old, err := currentMaster(dataDir, envKey)
		if err != nil {
			return err
		}
		fresh := make([]byte, keyring.KeySize)
		rand.Read(fresh)
		next, err := keyring.New(fresh)
		if err != nil {
			return err
		}
		keys, n, err := reseal(store.sorted(), old, next)
		if err != nil {
			return err
		}
		staging := filepath.Join(dataDir, MasterKeyStaging)
		if err := keyring.WriteKeyFile(staging, fresh); err != nil {
			return err
		}
		if err := store.replace(keys); err != nil {
			// The rename may have happened: the next open decides by
			// which key opens the store.
			return err
		}
		out.Versions = n
		if envKey != "" {
			out.NewKey, out.Staging = base64.StdEncoding.EncodeToString(fresh), staging
			return nil
		}
		out.Backup, err = promoteStaging(dataDir)
		return err
	})
	return out, err
}

// currentMaster returns the master key of dataDir, which must exist:
// envKey when set, else MasterKeyFile.
func currentMaster(dataDir, envKey string) (*keyring.Keyring, error) {
	if envKey != "" {
		key, err := keyring.ParseKey(envKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", MasterKeyEnv, err)
		}
		return keyring.New(key)
	}
	key, err := keyring.ReadKeyFile(filepath.Join(dataDir, MasterKeyFile))
	if err != nil {
		return nil, err
	}
	return keyring.New(key)
}

// reseal returns recs with every version's material opened under old and
// sealed under next, and the number of versions; ErrMasterMismatch when
// one does not open under old.
func reseal(recs []Record, old, next *keyring.Keyring) (map[string]Record, int, error) {
	keys := make(map[string]Record, len(recs))
	n := 0
	for _, r := range recs {
		vs := make([]Version, len(r.Versions))
		for i, v := range r.Versions {
			material, err := old.OpenToken(materialAD(r.ID, v.N), v.Sealed)
			if err != nil {
				return nil, 0, fmt.Errorf("%w: version %d of key %q", ErrMasterMismatch, v.N, r.ID)
			}
			v.Sealed = next.SealToken(materialAD(r.ID, v.N), material)
			vs[i] = v
			n++
		}
		r.Versions = vs
		keys[r.ID] = r
	}
	return keys, n, nil
}

// opensAll reports whether every version of recs opens under master.
func opensAll(master *keyring.Keyring, recs []Record) bool {
	for _, r := range recs {
		for _, v := range r.Versions {
			if _, err := master.OpenToken(materialAD(r.ID, v.N), v.Sealed); err != nil {
				return false
			}
		}
	}
	return true
}

// promoteStaging keeps MasterKeyFile as MasterKeyFile.<time> and renames
// MasterKeyStaging over it; it returns the backup's path.
func promoteStaging(dataDir string) (string, error) {
	cur := filepath.Join(dataDir, MasterKeyFile)
	backup := cur + "." + time.Now().UTC().Format("20060102T150405Z")
	switch err := os.Link(cur, backup); {
	case errors.Is(err, fs.ErrNotExist):
		backup = ""
	case err != nil && !errors.Is(err, fs.ErrExist):
		return "", err
	}
	if err := os.Rename(filepath.Join(dataDir, MasterKeyStaging), cur); err != nil {
		return "", err
	}
	return backup, datadir.SyncDir(dataDir)
}

// recoverRotation ends a rotation that stopped midway, holding the keys
// file's lock (recs: the store as it is): when the current master key
// opens the store, the staging file is left over and removed; when the
// staging key does, the rotation committed and is finished (from
// MasterKeyFile) or the operator is told to set MasterKeyEnv to it.
func recoverRotation(dataDir, envKey string, recs []Record) error {
	staging := filepath.Join(dataDir, MasterKeyStaging)
	key, err := keyring.ReadKeyFile(staging)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if cur, err := currentMaster(dataDir, envKey); err == nil && opensAll(cur, recs) {
		return errors.Join(os.Remove(staging), datadir.SyncDir(dataDir))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	next, err := keyring.New(key)
	if err != nil {
		return err
	}
	switch {
	case !opensAll(next, recs):
		return fmt.Errorf("%w: neither the current master key nor %s opens %s", ErrMasterMismatch, staging, KeysFile)
	case envKey != "":
		return fmt.Errorf("%w: the master key was rotated (jog admin kms rotate-master): set %s to the key in %s (the first start under it removes the file)", ErrMasterMismatch, MasterKeyEnv, staging)
	}
	_, err = promoteStaging(dataDir)
	return err
}

// recoverDataDir runs recoverRotation when dataDir holds a staging file.
func recoverDataDir(ctx context.Context, dataDir, envKey string, store *FileStore) error {
	if _, err := os.Lstat(filepath.Join(dataDir, MasterKeyStaging)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return store.locked(ctx, func() error { return recoverRotation(dataDir, envKey, store.sorted()) })
}
