package disk

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Trash. Where gateways share the data dir (OpenShared), a reader of a
// blob on one gateway does not know of a delete on another: the pins that
// defer a delete until the last reader is done (internal/service) are per
// process. Deleting at once would punch a packed blob's record under
// another gateway's reader (it would read zeros) or, over NFS, unlink a
// file another machine reads (ESTALE). A shared store's Delete therefore
// only moves the blob out of sight:
//
//	<root>/trash/<minute>/<blob id>
//
// a blob file renamed there (an open file survives a rename, also over
// NFS), or an empty marker naming a packed record, in the directory of the
// minute (Unix time / 60) of the delete. EmptyTrash removes them once
// their minute is over before its bound (blob.Grace before now, in the
// server): a read begun before the delete has had that long to finish.
// Walk leaves out marked records, so the orphan sweep does not see them
// again. Open still finds a blob file in the trash: a GET of a multipart
// object on another gateway opens its parts one after another, and a part
// deleted meanwhile must still be there for it.

// trashBucket is the trash directory of deletes at t.
func (s *Store) trashBucket(t time.Time) string {
	return filepath.Join(s.root, "trash", strconv.FormatInt(t.Unix()/60, 10))
}

// trash moves blob id (a validID or a packed ID) to the trash.
func (s *Store) trash(id string, packed bool) error {
	dir := s.trashBucket(time.Now())
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return err
	}
	dst := filepath.Join(dir, id)
	if packed {
		f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE, 0o640)
		if err != nil {
			return err
		}
		return f.Close()
	}
	err := os.Rename(s.path(id), dst)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// openTrashed opens blob file id in the trash, newest delete first.
func (s *Store) openTrashed(id string) (*os.File, error) {
	buckets, err := os.ReadDir(filepath.Join(s.root, "trash"))
	if err != nil {
		return nil, err
	}
	for i := len(buckets) - 1; i >= 0; i-- {
		if f, err := os.Open(filepath.Join(s.root, "trash", buckets[i].Name(), id)); err == nil {
			return f, nil
		}
	}
	return nil, fs.ErrNotExist
}

// trashedRecords returns the packed blobs in the trash.
func (s *Store) trashedRecords() (map[string]bool, error) {
	out := make(map[string]bool)
	buckets, err := os.ReadDir(filepath.Join(s.root, "trash"))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, b := range buckets {
		entries, err := os.ReadDir(filepath.Join(s.root, "trash", b.Name()))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, e := range entries {
			if _, ok := parsePackedID(e.Name()); ok {
				out[e.Name()] = true
			}
		}
	}
	return out, nil
}

// EmptyTrash removes the blobs deleted in minutes that ended before the
// given time (trash.go) and returns how many.
func (s *Store) EmptyTrash(ctx context.Context, before time.Time) (int, error) {
	root := filepath.Join(s.root, "trash")
	buckets, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range buckets {
		minute, err := strconv.ParseInt(b.Name(), 10, 64)
		if err != nil || !time.Unix((minute+1)*60, 0).Before(before) {
			continue
		}
		dir := filepath.Join(root, b.Name())
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if p, ok := parsePackedID(e.Name()); ok {
				if err := s.deletePacked(p); err != nil {
					return n, err
				}
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err == nil {
				n++
			}
		}
		os.Remove(dir)
	}
	return n, nil
}
