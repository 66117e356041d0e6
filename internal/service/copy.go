package service

import (
	"context"
	"io"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
)

// CopyInput describes a server-side copy. Dst carries the destination and,
// when ReplaceMetadata is set, its headers and user metadata; its Body, Size
// and ContentMD5 are ignored.
type CopyInput struct {
	SrcBucket, SrcKey, SrcVersion string
	Dst                           PutInput
	ReplaceMetadata               bool
	// ReplaceTags gives the copy Dst.Tags; else it gets the source's.
	ReplaceTags bool
	// CheckSource, when set, is called with the source's metadata before any
	// byte is copied (copy-source conditionals); its error aborts the copy.
	CheckSource func(meta.Object) error
	// Throttle, when set, wraps the copied bytes on their way to the new
	// blob.
	Throttle Throttle
	// SrcCustomerKey is the source's SSE-C key
	// (x-amz-copy-source-server-side-encryption-customer-*), nil for none.
	SrcCustomerKey []byte
}

// Throttle wraps the n bytes a server-side copy reads from the blob store
// on their way back to it (the data path's scheduler, s3api).
type Throttle func(src io.Reader, n int64) io.Reader

// CopyObject copies an object's bytes into a new blob under the destination
// key. The source is read through the same consistent open as GET. It
// returns the new object and the source's version ID.
func (s *Service) CopyObject(ctx context.Context, in CopyInput) (meta.Object, string, error) {
	src, r, err := s.OpenObject(ctx, in.SrcBucket, in.SrcKey, in.SrcVersion, in.SrcCustomerKey)
	if err != nil {
		return meta.Object{}, "", err
	}
	defer r.Close()
	if in.CheckSource != nil {
		if err := in.CheckSource(src); err != nil {
			return meta.Object{}, "", err
		}
	}
	dst := in.Dst
	dst.Body, dst.Size, dst.ContentMD5, dst.Integrity = r, src.Size, nil, true
	if in.Throttle != nil {
		dst.Body = in.Throttle(r, src.Size)
	}
	if !in.ReplaceMetadata {
		dst.Headers, dst.UserMeta = src.Headers, src.UserMeta
	}
	if !in.ReplaceTags {
		dst.Tags = src.Tags
	}
	if dst.StorageClass == "" {
		dst.StorageClass = src.StorageClass
	}
	if dst.Checksums.Algorithm == "" {
		dst.Checksums.Algorithm = checksum.Algorithm(src.Checksum.Algorithm)
	}
	o, err := s.putObject(ctx, dst)
	if err == nil {
		s.emit(ctx, notify.ObjectCreatedCopy, o)
	}
	return o, src.VersionID, err
}
