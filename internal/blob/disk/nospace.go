package disk

import (
	"errors"
	"syscall"

	"github.com/jogstore/jog/internal/blob"
)

// noSpace marks err as blob.ErrNoSpace when it comes from a full file
// system: ENOSPC or EDQUOT from a write, an fsync, a new file or directory
// entry, or the Reserve check. Other errors, and nil, pass unchanged.
func noSpace(err error) error {
	if err == nil || !(errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)) {
		return err
	}
	return blob.MarkNoSpace(err)
}
