package s3api

import (
	"net/url"

	"github.com/jogstore/jog/internal/service"
)

// versionOps are the operations that read a versionId query parameter:
// serve checks it once, with versionParam, before any of them runs.
var versionOps = opsWith(takesVersion)

// versionParam reads the versionId query parameter: "" when absent, else a
// valid version ID. As in S3, an empty one is not "the latest" but 400
// InvalidArgument, and so is one that cannot name a version.
func versionParam(q url.Values) (string, error) {
	v, ok := q["versionId"]
	if !ok {
		return "", nil
	}
	return v[0], checkVersionID(v[0])
}

// checkVersionID refuses a named version ID ("" when one was named empty)
// that no version can have; a well-formed ID that names no version is the
// caller's NoSuchVersion (or, for a delete, nothing to do).
func checkVersionID(v string) error {
	switch {
	case v == "":
		return errEmptyVersionID
	case !service.ValidVersionID(v):
		return errInvalidVersionID
	}
	return nil
}
