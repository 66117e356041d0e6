package blob

import (
	"context"
	"os"
	"time"
)

// Optional powers. A Store (or the reader its Open returns) may offer
// these; callers discover them with a type assertion on the named
// interface and do without when they are not there. A backend that offers
// one says so with a compile-time guard, e.g.
//
//	var _ blob.SpaceChecker = (*Store)(nil)

// SpaceChecker is a Store that can tell before a write whether it fits.
// The service asks it for a body of known size before reading the body's
// first byte, so that a client waiting on "Expect: 100-continue" gets the
// refusal instead of sending the body. Without it, a full store is found
// out by the write itself.
type SpaceChecker interface {
	// CheckSpace returns an error satisfying errors.Is(err, ErrNoSpace)
	// when n more bytes (n ≥ 0; 0 for a write that only needs metadata
	// room) would not fit.
	CheckSpace(n int64) error
}

// FileRanger is a reader from Store.Open whose bytes are a range of a
// file, for example a record in a pack file. The GET path copies such a
// blob with io.CopyN from the file, so that a network writer can use
// sendfile. A reader that is an *os.File needs nothing more: io.Copy hands
// it to the writer's ReadFrom as it is. Other readers are copied through
// a buffer.
type FileRanger interface {
	// FileRange returns the file, positioned at the reader's current place,
	// and how many bytes of the blob are left from there. The file stays
	// owned by the reader: the caller neither closes it nor keeps it past
	// the reader's Close.
	FileRange() (f *os.File, left int64, err error)
}

// The powers below are for the process around a store (its housekeeping),
// not for the byte path: a wrapper around a Store (one that encrypts or
// compresses) passes them on from the store it wraps if it chooses, and
// without them the process does without.

// GatewayNamer is a Store that is one gateway among the processes that
// may share its storage: what it writes carries the gateway's ID, random
// at every open. The process names its own files elsewhere in the data
// dir (a notification queue, a log spool) with the same ID; without it,
// the opener picks one (storage.Stores.Gateway).
type GatewayNamer interface {
	Gateway() string
}

// TrashEmptier is a Store whose Delete, where several processes share it,
// sets a blob aside for readers elsewhere (see Store.Delete and Grace)
// rather than removing it at once. Without it there is nothing to empty.
type TrashEmptier interface {
	// EmptyTrash removes for good what deletes set aside before the
	// given time, and returns how many blobs went.
	EmptyTrash(ctx context.Context, before time.Time) (int, error)
}

// SyncTimer is a Store that counts the time its writes spend waiting for
// stable storage. The server sizes GOMAXPROCS by how it grows (ADR 0008);
// without it the server keeps the default.
type SyncTimer interface {
	// SyncTime is the time spent so far in calls that flush blob data
	// (fsync, fdatasync, sync_file_range), summed over the calls.
	SyncTime() time.Duration
}
