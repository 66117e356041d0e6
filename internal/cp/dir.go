package cp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Copy copies src to dst, one local and one in S3, or both in S3 (a copy
// in the server, ServerCopy). Without recursive, src
// is one file or object; a dst key ending in "/" (or empty) or an existing
// local directory takes src's base name. With recursive, src is a
// directory tree or a key prefix, copied file by file under dst, up to
// Streams files at once sharing the Streams request slots.
func (cp *Copier) Copy(ctx context.Context, src, dst Location, recursive bool) error {
	enc := cp.opts.Encryption
	switch {
	case !src.IsS3() && !dst.IsS3():
		return fmt.Errorf("one side must be s3://bucket/key: got %s and %s", src, dst)
	case !dst.IsS3() && (enc.SSE != "" || enc.KMSKeyID != ""):
		return errors.New("--sse and --sse-kms-key-id apply to what is written to S3; a download needs no more than --sse-c for an SSE-C object")
	case enc.SourceCustomerKey != nil && !(src.IsS3() && dst.IsS3()):
		return errors.New("--sse-c-copy-source is the source's key of a copy from s3:// to s3://; a download takes --sse-c")
	case src.IsS3() && dst.IsS3():
		return cp.copyS3(ctx, src, dst, recursive)
	case recursive && dst.IsS3():
		return cp.uploadTree(ctx, src.Path, dst.Bucket, dst.Key)
	case recursive:
		return cp.downloadTree(ctx, src.Bucket, src.Key, dst.Path)
	case dst.IsS3():
		key := dst.Key
		if key == "" || strings.HasSuffix(key, "/") {
			key += filepath.Base(src.Path)
		}
		if st, err := os.Stat(src.Path); err == nil {
			cp.opts.Progress.AddTotal(st.Size())
		}
		return cp.Upload(ctx, src.Path, dst.Bucket, key)
	}
	if src.Key == "" || strings.HasSuffix(src.Key, "/") {
		return fmt.Errorf("%s names no object (use -r to copy a prefix)", src)
	}
	out := dst.Path
	if st, err := os.Stat(out); (err == nil && st.IsDir()) || strings.HasSuffix(out, string(os.PathSeparator)) {
		out = filepath.Join(out, path.Base(src.Key))
	}
	cp.countObject(ctx, src, cp.opts.Encryption.CustomerKey)
	return cp.Download(ctx, src.Bucket, src.Key, out)
}

// countObject adds the size of the object at l (SSE-C key ck, nil: none)
// to the progress total.
func (cp *Copier) countObject(ctx context.Context, l Location, ck []byte) {
	if cp.opts.Progress != nil {
		if info, err := cp.c.Head(ctx, l.Bucket, l.Key, 0, ck); err == nil {
			cp.opts.Progress.AddTotal(info.Size)
		}
	}
}

// copyS3 copies an object, or with recursive every object under a prefix,
// to another place in the same server.
func (cp *Copier) copyS3(ctx context.Context, src, dst Location, recursive bool) error {
	if !recursive {
		if src.Key == "" || strings.HasSuffix(src.Key, "/") {
			return fmt.Errorf("%s names no object (use -r to copy a prefix)", src)
		}
		if dst.Key == "" || strings.HasSuffix(dst.Key, "/") {
			dst.Key += path.Base(src.Key)
		}
		cp.countObject(ctx, src, cp.opts.Encryption.SourceCustomerKey)
		return cp.ServerCopy(ctx, src, dst)
	}
	src.Key, dst.Key = dirPrefix(src.Key), dirPrefix(dst.Key)
	objs, err := cp.c.List(ctx, src.Bucket, src.Key)
	if err != nil {
		return fmt.Errorf("list %s: %w", src, err)
	}
	for _, o := range objs {
		cp.opts.Progress.AddTotal(o.Size)
	}
	return cp.each(ctx, len(objs), func(ctx context.Context, i int) error {
		from, to := src, dst
		from.Key, to.Key = objs[i].Key, dst.Key+strings.TrimPrefix(objs[i].Key, src.Key)
		return cp.ServerCopy(ctx, from, to)
	})
}

// dirPrefix is prefix as a "directory" of keys: "" or ending in "/".
func dirPrefix(prefix string) string {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	return prefix
}

// uploadTree uploads every regular file under dir to prefix + its path
// relative to dir (with "/" separators).
func (cp *Copier) uploadTree(ctx context.Context, dir, bucket, prefix string) error {
	prefix = dirPrefix(prefix)
	type file struct{ path, key string }
	var files []file
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			if !d.IsDir() {
				fmt.Fprintf(cp.opts.Log, "%s: not a regular file, skipped\n", p)
			}
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		cp.opts.Progress.AddTotal(info.Size())
		files = append(files, file{p, prefix + filepath.ToSlash(rel)})
		return nil
	})
	if err != nil {
		return err
	}
	return cp.each(ctx, len(files), func(ctx context.Context, i int) error {
		return cp.Upload(ctx, files[i].path, bucket, files[i].key)
	})
}

// downloadTree downloads every object under prefix to dir + its key after
// the prefix, creating directories. Keys ending in "/" (folder markers)
// are skipped; a key that would land outside dir is an error.
func (cp *Copier) downloadTree(ctx context.Context, bucket, prefix, dir string) error {
	prefix = dirPrefix(prefix)
	objs, err := cp.c.List(ctx, bucket, prefix)
	if err != nil {
		return fmt.Errorf("list s3://%s/%s: %w", bucket, prefix, err)
	}
	type file struct{ key, path string }
	var files []file
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Key, prefix)
		if rel == "" || strings.HasSuffix(rel, "/") {
			continue
		}
		local, err := localPath(dir, rel)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Key, err)
		}
		cp.opts.Progress.AddTotal(o.Size)
		files = append(files, file{o.Key, local})
	}
	return cp.each(ctx, len(files), func(ctx context.Context, i int) error {
		if err := os.MkdirAll(filepath.Dir(files[i].path), 0o755); err != nil {
			return err
		}
		return cp.Download(ctx, bucket, files[i].key, files[i].path)
	})
}

// localPath is where the key suffix rel goes under dir; it refuses a rel
// that is absolute or climbs out of dir ("..").
func localPath(dir, rel string) (string, error) {
	clean := path.Clean(rel)
	if path.IsAbs(rel) || clean == ".." || strings.HasPrefix(clean, "../") || !filepath.IsLocal(filepath.FromSlash(clean)) {
		return "", errors.New("the key leads outside the destination directory")
	}
	return filepath.Join(dir, filepath.FromSlash(clean)), nil
}

// each runs copy(i) for every file, Streams files at once, and returns
// every failure: one file's error does not stop the others.
func (cp *Copier) each(ctx context.Context, n int, copy func(ctx context.Context, i int) error) error {
	var mu sync.Mutex
	var errs []error
	_ = parallel(ctx, n, cp.opts.Streams, func(ctx context.Context, i int) error {
		if err := copy(ctx, i); err != nil {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		return nil
	})
	if err := ctx.Err(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
