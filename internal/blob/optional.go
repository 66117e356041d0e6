package blob

import "os"

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
