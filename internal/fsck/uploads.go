package fsck

import (
	"context"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/meta"
)

// uploads checks the parts of every upload in progress.
func (c *checker) uploads(ctx context.Context) error {
	buckets, err := c.meta.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil {
		return err
	}
	for _, b := range buckets {
		opts := meta.ListUploadsOptions{Limit: pageSize}
		for {
			page, err := c.meta.ListUploads(ctx, b.Name, opts)
			if errors.Is(err, meta.ErrBucketNotFound) {
				break
			}
			if err != nil {
				return err
			}
			for _, u := range page.Uploads {
				if err := c.upload(ctx, u); err != nil {
					return err
				}
			}
			if !page.Truncated {
				break
			}
			opts.KeyMarker, opts.UploadIDMarker = page.NextKeyMarker, page.NextUploadIDMarker
		}
	}
	return nil
}

func (c *checker) upload(ctx context.Context, u meta.Upload) error {
	c.sum.Uploads++
	seal, note, err := c.sealingOf(ctx, u.Encryption, u.Bucket, u.Key)
	if err != nil {
		return err
	}
	var probs []Problem
	if note != nil && note.Kind == Key {
		probs = append(probs, *note)
	}
	after := 0
	for {
		parts, more, err := c.meta.ListParts(ctx, u.Bucket, u.Key, u.UploadID, after, pageSize)
		if errors.Is(err, meta.ErrUploadNotFound) || errors.Is(err, meta.ErrBucketNotFound) {
			c.sum.Skipped++ // completed or aborted meanwhile
			return nil
		}
		if err != nil {
			return err
		}
		for _, p := range parts {
			c.sum.Parts++
			bp, err := c.checkBlob(ctx, p.BlobID, p.Size, partDigests(p), seal.forPart(p.Number))
			if err != nil {
				return err
			}
			if bp != nil && c.partStillCurrent(ctx, u, p) {
				bp.Part = p.Number
				probs = append(probs, *bp)
			} else if bp != nil {
				c.sum.Skipped++
			}
		}
		if !more || len(parts) == 0 {
			break
		}
		after = parts[len(parts)-1].Number
	}
	c.noteUnverifiable(note, Problem{Bucket: u.Bucket, Key: u.Key, UploadID: u.UploadID, InProgress: true})
	if len(probs) == 0 {
		return nil
	}
	c.sum.DamagedUploads++
	action := ""
	if c.opts.DropLost && lost(probs) {
		freed, err := c.meta.AbortUpload(ctx, u.Bucket, u.Key, u.UploadID)
		if err != nil {
			return fmt.Errorf("abort upload %s of %s: %w", u.UploadID, ObjectName(u.Bucket, u.Key), err)
		}
		if err := c.deleteBlobs(ctx, freed); err != nil {
			return err
		}
		c.sum.Aborted++
		action = ActionAborted
	}
	for _, p := range probs {
		p.Bucket, p.Key, p.UploadID, p.InProgress, p.Action = u.Bucket, u.Key, u.UploadID, true, action
		c.report(p)
	}
	return nil
}

func (c *checker) partStillCurrent(ctx context.Context, u meta.Upload, p meta.Part) bool {
	parts, _, err := c.meta.ListParts(ctx, u.Bucket, u.Key, u.UploadID, p.Number-1, 1)
	return err == nil && len(parts) == 1 && parts[0].Number == p.Number && parts[0].BlobID == p.BlobID
}
