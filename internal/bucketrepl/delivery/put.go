package delivery

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/s3client"
	"github.com/jogstore/jog/internal/service"
)

// put sends version o (its bytes in r) to the target: one PutObject, or a
// multipart upload of the same parts when o was made of parts, so that its
// ETag is the same on the target. Nothing is buffered whole: the bytes
// stream from r.
func (l *laneSender) put(ctx context.Context, task bucketrepl.Task, o meta.Object, r service.ObjectReader) error {
	h, err := l.headers(ctx, task, o)
	if err != nil {
		return err
	}
	c := l.t.client
	if o.UploadID == "" || len(o.Parts) == 0 {
		if o.Checksum.Type != "COMPOSITE" && o.Checksum.Algorithm != "" {
			h.Set(checksum.Algorithm(o.Checksum.Algorithm).HeaderName(), o.Checksum.Value)
		}
		resp, err := c.Send(ctx, http.MethodPut, task.Dest, task.Key, nil, h, once(r, o.Size), o.Size)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	if o.Checksum.Algorithm != "" {
		h.Set("X-Amz-Checksum-Algorithm", o.Checksum.Algorithm)
		h.Set("X-Amz-Checksum-Type", o.Checksum.Type)
	}
	var created struct {
		UploadID string `xml:"UploadId"`
	}
	if err := sendXML(ctx, l, http.MethodPost, task.Dest, task.Key, url.Values{"uploads": {""}}, h, "", &created); err != nil {
		return err
	}
	if created.UploadID == "" {
		return fmt.Errorf("CreateMultipartUpload %s: no upload ID in the answer", task.Key)
	}
	if err := l.parts(ctx, task, o, r, created.UploadID); err != nil {
		abort := context.WithoutCancel(ctx)
		abort, cancel := context.WithTimeout(abort, 30*time.Second)
		defer cancel()
		if resp, aerr := c.Send(abort, http.MethodDelete, task.Dest, task.Key, url.Values{"uploadId": {created.UploadID}}, nil, nil, 0); aerr == nil {
			resp.Body.Close()
		}
		return err
	}
	return nil
}

// parts uploads o's parts to upload id and completes it.
func (l *laneSender) parts(ctx context.Context, task bucketrepl.Task, o meta.Object, r service.ObjectReader, id string) error {
	var b strings.Builder
	b.WriteString(`<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/">`)
	var off int64
	for _, p := range o.Parts {
		h := http.Header{}
		if p.Checksum != "" {
			h.Set(checksum.Algorithm(p.ChecksumAlgorithm).HeaderName(), p.Checksum)
		}
		q := url.Values{"partNumber": {strconv.Itoa(p.Number)}, "uploadId": {id}}
		resp, err := l.t.client.Send(ctx, http.MethodPut, task.Dest, task.Key, q, h, section(r, off, p.Size), p.Size)
		if err != nil {
			return err
		}
		resp.Body.Close()
		etag := resp.Header.Get("ETag")
		fmt.Fprintf(&b, "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag>", p.Number, s3client.XMLEscape(etag))
		if p.Checksum != "" {
			tag := "Checksum" + strings.ToUpper(p.ChecksumAlgorithm)
			fmt.Fprintf(&b, "<%s>%s</%s>", tag, s3client.XMLEscape(p.Checksum), tag)
		}
		b.WriteString("</Part>")
		off += p.Size
	}
	b.WriteString(`</CompleteMultipartUpload>`)
	h := http.Header{bucketrepl.ReplicaHeader: {task.VersionID}}
	return sendXML(ctx, l, http.MethodPost, task.Dest, task.Key, url.Values{"uploadId": {id}}, h, b.String(), nil)
}

// headers are what a PutObject or CreateMultipartUpload of o carries: its
// content headers, user metadata, tags, object lock (where the
// destination bucket has it: a target without refuses the write, which
// marks the version FAILED) and the replica header.
func (l *laneSender) headers(ctx context.Context, task bucketrepl.Task, o meta.Object) (http.Header, error) {
	h := http.Header{bucketrepl.ReplicaHeader: {task.VersionID}}
	set := func(name, v string) {
		if v != "" {
			h.Set(name, v)
		}
	}
	set("Content-Type", o.Headers.ContentType)
	set("Content-Encoding", o.Headers.ContentEncoding)
	set("Content-Disposition", o.Headers.ContentDisposition)
	set("Content-Language", o.Headers.ContentLanguage)
	set("Cache-Control", o.Headers.CacheControl)
	set("Expires", o.Headers.Expires)
	set("X-Amz-Tagging", o.Tags)
	for k, v := range o.UserMeta {
		h.Set("X-Amz-Meta-"+k, v)
	}
	lock, err := l.rq.src.ObjectLockOf(ctx, task.Bucket, task.Key, task.VersionID)
	if err != nil && !errors.Is(err, meta.ErrNoObjectLock) {
		return nil, err
	}
	if lock.Mode != "" {
		h.Set("X-Amz-Object-Lock-Mode", lock.Mode)
		h.Set("X-Amz-Object-Lock-Retain-Until-Date", lock.RetainUntil.UTC().Format(time.RFC3339))
	}
	if lock.LegalHold {
		h.Set("X-Amz-Object-Lock-Legal-Hold", "ON")
	}
	return h, nil
}

// sendXML sends a request with an XML body (or none) and decodes a 200
// answer's XML into v (nil: discards it); a 200 carrying <Error> is one.
func sendXML(ctx context.Context, l *laneSender, method, bucket, key string, q url.Values, h http.Header, body string, v any) error {
	var open func() (io.ReadCloser, error)
	if body != "" {
		open = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	}
	resp, err := l.t.client.Send(ctx, method, bucket, key, q, h, open, int64(len(body)))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	doc, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if err := s3client.ErrorIn(resp.StatusCode, doc); err != nil {
		return err
	}
	if v != nil {
		return xml.Unmarshal(doc, v)
	}
	return nil
}

// errReopen ends an attempt whose body the transport wants to send again:
// the task is tried again from the start.
var errReopen = errors.New("replication body cannot be sent twice in one attempt")

// once is a request body of r's n bytes, which can be opened once.
func once(r io.Reader, n int64) func() (io.ReadCloser, error) {
	opened := false
	return func() (io.ReadCloser, error) {
		if opened {
			return nil, errReopen
		}
		opened = true
		return io.NopCloser(io.LimitReader(r, n)), nil
	}
}

// section is a request body of the n bytes of r at off, streamed through
// a pipe (r.CopyRange), which can be opened once.
func section(r service.ObjectReader, off, n int64) func() (io.ReadCloser, error) {
	opened := false
	return func() (io.ReadCloser, error) {
		if opened {
			return nil, errReopen
		}
		opened = true
		pr, pw := io.Pipe()
		go func() {
			_, err := r.CopyRange(pw, off, n)
			pw.CloseWithError(err)
		}()
		return pr, nil
	}
}
