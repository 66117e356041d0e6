package meta

import (
	"strings"
	"time"
)

// Latest is the latest version of a key as the transaction of a write
// sees it: what the write's Condition is checked against (Check).
type Latest struct {
	// Live reports a latest version that is not a delete marker, whose
	// VersionID, ETag, Size and LastModified the other fields hold.
	Live         bool
	VersionID    string
	ETag         string
	Size         int64
	LastModified time.Time
	// Marker is the version ID of the latest version when it is a delete
	// marker ("" when it is not, or the key has none).
	Marker string
}

// Check reports whether c holds for a write over latest in a bucket in
// state b (Known or not): nil, or the error
// the write fails with — ErrPreconditionFailed, ErrObjectNotFound (IfMatch
// on a missing key) or a *VersioningChangedError carrying b. A latest
// delete marker is "no object".
func (c Condition) Check(latest Latest, b BucketState) error {
	if c.IfNoneMatchAny && latest.Live {
		return ErrPreconditionFailed
	}
	if c.IfMatchAny && !latest.Live {
		return ErrPreconditionFailed
	}
	if c.IfMatch != "" && !latest.Live {
		return ErrObjectNotFound
	}
	if c.IfMatch != "" && strings.Trim(c.IfMatch, `"`) != latest.ETag {
		return ErrPreconditionFailed
	}
	if latest.Live && (c.IfMatchSize != nil && *c.IfMatchSize != latest.Size ||
		!c.IfMatchLastModified.IsZero() && latest.LastModified.Unix() != c.IfMatchLastModified.Unix()) {
		return ErrPreconditionFailed
	}
	if c.Versioning != nil && *c.Versioning != b.Versioning ||
		c.ObjectLock != nil && *c.ObjectLock != b.ObjectLock {
		return &VersioningChangedError{Now: b}
	}
	if c.IfLatestVersion != "" {
		id := latest.Marker
		if latest.Live {
			id = latest.VersionID
		}
		if id != c.IfLatestVersion {
			return ErrPreconditionFailed
		}
	}
	return nil
}
