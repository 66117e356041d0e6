package cp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// copyResult is CopyObject's and UploadPartCopy's answer.
type copyResult struct {
	ETag string `xml:"ETag"`
	CRC  string `xml:"ChecksumCRC64NVME"`
}

// copySource is the x-amz-copy-source of bucket/key: URL-encoded, "/"
// kept.
func copySource(bucket, key string) string {
	return "/" + bucket + "/" + strings.ReplaceAll(url.PathEscape(key), "%2F", "/")
}

// copyObject copies src to dst in the server (CopyObject) with the
// destination's CRC64NVME computed over the copy; rng "bytes=a-b" with
// part > 0 copies that range as part of an upload (UploadPartCopy). enc
// gives the source's SSE-C key and the destination's encryption (an
// UploadPartCopy sends only its SSE-C key: the upload has the rest).
func (c *Client) copyObject(ctx context.Context, srcBucket, srcKey, ifMatch, bucket, key string, part int, uploadID, rng string, enc Encryption) (copyResult, error) {
	h := http.Header{"X-Amz-Copy-Source": {copySource(srcBucket, srcKey)}}
	customerHeaders(h, ssecCopyPrefix, enc.SourceCustomerKey)
	if ifMatch != "" {
		h.Set("X-Amz-Copy-Source-If-Match", `"`+ifMatch+`"`)
	}
	// Only UploadPartCopy draws on a reservation; the server refuses one
	// presented to CopyObject.
	r := request{method: http.MethodPut, bucket: bucket, key: key, header: h, data: part > 0}
	if part > 0 {
		r.query = url.Values{"partNumber": {strconv.Itoa(part)}, "uploadId": {uploadID}}
		h.Set("X-Amz-Copy-Source-Range", rng)
		customerHeaders(h, ssecPrefix, enc.CustomerKey)
	} else {
		h.Set("X-Amz-Checksum-Algorithm", string(uploadAlgorithm))
		enc.create(h)
	}
	var res copyResult
	_, err := c.doXML(ctx, r, &res)
	return res, err
}

// ServerCopy copies bucket/key to another key (or bucket) in the server,
// no bytes through the client: one CopyObject up to one part (as an
// upload), else a parallel multipart copy (UploadPartCopy), as aws s3 cp
// does. The copy's CRC64NVME, which the server
// computes, is compared with the source's when the source has a
// FULL_OBJECT CRC64NVME.
func (cp *Copier) ServerCopy(ctx context.Context, src, dst Location) error {
	enc := cp.opts.Encryption
	info, err := cp.c.Head(ctx, src.Bucket, src.Key, 0, enc.SourceCustomerKey)
	if err != nil {
		return fmt.Errorf("HEAD %s: %w", src, err)
	}
	want := ""
	if info.Algorithm == string(uploadAlgorithm) && !strings.Contains(info.Checksum, "-") {
		want = info.Checksum
	}
	partSize, err := PartSize(info.Size, cp.opts.PartSize)
	if err != nil {
		return err
	}
	var got string
	if info.Size <= partSize {
		var res copyResult
		err := cp.requests(ctx, 1, func(ctx context.Context, _ int) (err error) {
			res, err = cp.c.copyObject(ctx, src.Bucket, src.Key, info.ETag, dst.Bucket, dst.Key, 0, "", "", enc)
			return err
		})
		if err != nil {
			return fmt.Errorf("CopyObject %s → %s: %w", src, dst, err)
		}
		cp.opts.Progress.add(info.Size)
		got = res.CRC
	} else if got, err = cp.multipartCopy(ctx, src, dst, info, partSize); err != nil {
		return err
	}
	if want != "" && got != "" && got != want {
		return fmt.Errorf("%s: the copy's %s is %s, the source's %s", dst, uploadAlgorithm, got, want)
	}
	cp.tally.copied(info.Size, want != "" && got == want)
	return nil
}

// multipartCopy copies an object part by part and returns the
// completed object's CRC64NVME.
func (cp *Copier) multipartCopy(ctx context.Context, src, dst Location, info ObjectInfo, partSize int64) (string, error) {
	enc := cp.opts.Encryption
	uploadID, err := cp.c.CreateUpload(ctx, dst.Bucket, dst.Key, enc)
	if err != nil {
		return "", fmt.Errorf("CreateMultipartUpload %s: %w", dst, err)
	}
	secs := sections(info.Size, partSize)
	parts := make([]Part, len(secs))
	err = cp.requests(ctx, len(secs), func(ctx context.Context, i int) error {
		s := secs[i]
		rng := "bytes=" + strconv.FormatInt(s.Off, 10) + "-" + strconv.FormatInt(s.Off+s.Size-1, 10)
		res, err := cp.c.copyObject(ctx, src.Bucket, src.Key, info.ETag, dst.Bucket, dst.Key, s.Number, uploadID, rng, enc)
		if err != nil {
			return fmt.Errorf("UploadPartCopy %s #%d: %w", dst, s.Number, err)
		}
		if res.CRC == "" {
			return fmt.Errorf("UploadPartCopy %s #%d: the server gave no %s", dst, s.Number, uploadAlgorithm)
		}
		parts[i] = Part{Number: s.Number, ETag: res.ETag, Size: s.Size, CRC: res.CRC}
		cp.opts.Progress.add(s.Size)
		return nil
	})
	if err != nil {
		_ = cp.c.Abort(context.WithoutCancel(ctx), dst.Bucket, dst.Key, uploadID)
		return "", err
	}
	full, err := wholeCRC(parts)
	if err != nil {
		return "", err
	}
	res, err := cp.c.Complete(ctx, dst.Bucket, dst.Key, uploadID, parts, full, info.Size, enc.CustomerKey)
	if err != nil {
		return "", fmt.Errorf("CompleteMultipartUpload %s: %w", dst, err)
	}
	return res.CRC, nil
}
