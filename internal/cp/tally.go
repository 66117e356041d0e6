package cp

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/units"
)

// Tally counts what a Copier copied: files (objects), their bytes, and how
// many were verified end to end (a download against the object's checksum
// or MD5 ETag, an upload or a server copy by the checksum the server
// stored).
type Tally struct {
	Files, Verified int
	Bytes           int64
}

// tally is the Copier's running Tally.
type tally struct {
	files, verified atomic.Int64
	bytes           atomic.Int64
}

// copied counts one file of size bytes, verified or not.
func (t *tally) copied(size int64, verified bool) {
	t.files.Add(1)
	t.bytes.Add(size)
	if verified {
		t.verified.Add(1)
	}
}

// Tally returns what the Copier copied so far.
func (cp *Copier) Tally() Tally {
	return Tally{Files: int(cp.tally.files.Load()), Verified: int(cp.tally.verified.Load()), Bytes: cp.tally.bytes.Load()}
}

// Summary is the one line a script or log reads after a copy that took
// elapsed: "copied 3 files, 12.5 MiB in 1.2s (10.4 MiB/s), all verified".
func (t Tally) Summary(elapsed time.Duration) string {
	rate := ""
	if secs := elapsed.Seconds(); secs > 0 {
		rate = fmt.Sprintf(" (%s/s)", units.Human(float64(t.Bytes)/secs))
	}
	verified := "all verified"
	switch {
	case t.Files == 0:
		verified = "nothing to verify"
	case t.Verified == 0:
		verified = "none verified"
	case t.Verified < t.Files:
		verified = fmt.Sprintf("%d of %d verified", t.Verified, t.Files)
	}
	return fmt.Sprintf("copied %s, %s in %s%s, %s", units.Count(t.Files, "file"), units.Human(float64(t.Bytes)),
		elapsed.Round(100*time.Millisecond), rate, verified)
}
