package service

import (
	"bytes"
	"context"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
)

// racingCompletion is a real store in which another completion of the
// same upload commits just after this one read the upload: on the first
// ListParts, it completes the upload (the winner) through the store, then
// answers as the store does.
type racingCompletion struct {
	meta.Store
	winner func()
}

func (s *racingCompletion) ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) ([]meta.Part, bool, error) {
	if w := s.winner; w != nil {
		s.winner = nil
		w()
	}
	return s.Store.ListParts(ctx, bucket, key, uploadID, after, limit)
}

// TestCompleteRaceAfterUploadRead: a completion whose upload is completed
// by another (the same parts) between its read of the upload and its
// listing of the parts gets the winner's answer, as a retried completion
// does, not NoSuchUpload (TestCompleteRetried's race, made certain).
func TestCompleteRaceAfterUploadRead(t *testing.T) {
	s, _ := newTestService(t, 16)
	ctx := t.Context()
	u, err := s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: "mp"}, sse.Request{})
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("p"), 1000)
	p, err := s.UploadPart(ctx, PartInput{Bucket: "b", Key: "mp", UploadID: u.UploadID, Number: 1, Body: bytes.NewReader(data), Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	in := CompleteInput{Bucket: "b", Key: "mp", UploadID: u.UploadID, Parts: []CompletedPart{{Number: 1, ETag: p.ETag}}, ObjectSize: -1}
	var won meta.Object
	s.meta = &racingCompletion{Store: s.meta, winner: func() { // the hook is spent: the winner runs through
		var werr error
		if won, werr = s.CompleteUpload(ctx, in); werr != nil {
			t.Errorf("the winning completion: %v", werr)
		}
	}}
	o, err := s.CompleteUpload(ctx, in)
	if err != nil {
		t.Fatalf("the losing completion: %v, want the winner's answer", err)
	}
	if o.ETag != won.ETag || o.VersionID != won.VersionID {
		t.Errorf("answers differ: %s %s, the winner's %s %s", o.ETag, o.VersionID, won.ETag, won.VersionID)
	}
}
