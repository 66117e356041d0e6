package s3api

import (
	"time"

	"github.com/jogstore/jog/internal/meta"
)

func testObject() meta.Object {
	return meta.Object{
		Bucket: "b", Key: "k", ETag: "5d41402abc4b2a76b9719d911017c592", Size: 5,
		LastModified: time.Date(2026, 1, 2, 3, 4, 5, 600e6, time.UTC),
	}
}
