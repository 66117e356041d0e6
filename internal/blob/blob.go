// Package blob defines where object bytes live. A blob is immutable once
// committed and is named by an opaque internal ID, never by an object key.
package blob

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNoSpace reports a write refused because the storage under the store
// is full (or would fall below the free space the store keeps in reserve).
// Create, Writer.Write and Writer.Commit report it (MarkNoSpace keeps the
// backend's own error and message); callers test it with errors.Is. The
// refused write keeps nothing once aborted.
var ErrNoSpace = errors.New("blob store: no space left")

// MarkNoSpace returns err marked as ErrNoSpace: errors.Is(result,
// ErrNoSpace) holds, while its message and what it wraps stay err's.
// Backends use it on the errors their storage reports as full.
func MarkNoSpace(err error) error { return noSpaceError{err} }

type noSpaceError struct{ err error }

func (e noSpaceError) Error() string        { return e.err.Error() }
func (e noSpaceError) Unwrap() error        { return e.err }
func (e noSpaceError) Is(target error) bool { return target == ErrNoSpace }

// Store holds blobs. Implementation: disk, over a directory of the local
// file system, or one that several gateways share (disk.OpenShared).
// Every implementation passes the conformance suite, blobtest.Run. A Store
// may offer more through the optional interfaces in optional.go: the byte
// path's (SpaceChecker, FileRanger), the housekeeping's (GatewayNamer,
// TrashEmptier, SyncTimer) and the metrics' (StatsReporter, stats.go). A
// wrapper around a Store (one that encrypts or
// compresses) implements these five methods and passes on the optional
// ones it chooses; a Store that holds resources is also an io.Closer,
// which its opener (internal/storage) closes.
type Store interface {
	// Create starts a new blob of size bytes (-1: not known in advance).
	// The caller writes its bytes and then calls Commit, which makes them
	// durable and returns the new ID, or Abort. A blob of known size must
	// get exactly that many bytes.
	Create(ctx context.Context, size int64) (Writer, error)
	// Open returns a reader of a committed blob. A missing blob is reported
	// with an error satisfying errors.Is(err, fs.ErrNotExist).
	Open(ctx context.Context, id string) (io.ReadSeekCloser, error)
	// Delete removes a blob; a missing blob is not an error. A store that
	// several processes share keeps the bytes for readers elsewhere that
	// opened the blob before (or open it meanwhile) for at least Grace
	// (disk: the trash, TrashEmptier), but Walk no longer reports it.
	Delete(ctx context.Context, id string) error
	// Walk calls fn for every committed blob. It may also report a write
	// in progress, with a time no earlier than its Create, or what one
	// that never ended left (disk: a record in a pack file), which no
	// metadata refers to and the orphan sweep removes once older than its
	// bound. It stops at fn's first error, or once ctx is done, and
	// returns that error.
	Walk(ctx context.Context, fn func(Info) error) error
	// CleanTemp removes leftovers of writes that never committed, last
	// written before the given time, that no live writer owns: neither
	// this store's writes in progress nor, where several processes share
	// the store, another live process's.
	CleanTemp(ctx context.Context, before time.Time) (removed int, err error)
}

// Grace bounds, where several processes (gateways) share a store, how long
// what a write leaves may still belong to a live write of another process:
//
//   - a committed blob younger than Grace (Info.ModTime, which a store sets
//     no earlier than the blob's last Write: disk, the last write to a
//     blob file, or a packed record's commit) may be waiting for the
//     metadata commit that refers to it: a write commits its blob right
//     after its last bytes and its metadata right after its blob, so it
//     takes that long only if its metadata store keeps it waiting for an
//     hour;
//   - a leftover of a write in progress last written more than Grace ago
//     is the write of a process that has stopped (or a client that sent
//     nothing for an hour).
//
// Recovery and the orphan sweep of a shared store therefore remove only
// what is older than Grace (service.RecoveryBefore). Clocks of the
// processes (and of a shared filesystem's server, which sets file times)
// must agree within a small part of it.
const Grace = time.Hour

// Writer receives a new blob's bytes.
type Writer interface {
	io.Writer
	// Commit makes the written bytes durable under a new ID. After Commit
	// returns nil the blob survives a crash.
	Commit() (id string, err error)
	// Abort discards the bytes. Safe to call after Commit (then a no-op).
	Abort() error
}

// Info describes a committed blob.
type Info struct {
	ID      string
	Size    int64
	ModTime time.Time
}
