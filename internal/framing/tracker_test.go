package framing

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

// goRequest is one request net/http's parser read from a stream: where
// its head ends, and whether the head, as net/textproto reads it (before
// net/http drops Content-Length), has both framing headers.
type goRequest struct {
	headEnd int
	both    bool
}

// parseGo reads stream with net/http's request parser, each body to its
// end, until the first error.
func parseGo(stream []byte) []goRequest {
	rd := bytes.NewReader(stream)
	br := bufio.NewReader(rd)
	read := func() int { return len(stream) - rd.Len() - br.Buffered() } // by the parser
	var out []goRequest
	start := 0
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return out
		}
		end := read()
		out = append(out, goRequest{headEnd: end, both: headHasBoth(stream[start:end])})
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return out
		}
		start = read()
	}
}

// headHasBoth is the oracle: net/textproto's reading of a raw head.
func headHasBoth(head []byte) bool {
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(head)))
	for {
		l, err := tp.ReadLine()
		if err != nil {
			return false
		}
		if l != "" {
			break // the request line (net/http skips no blank line here)
		}
	}
	h, _ := tp.ReadMIMEHeader()
	return len(h["Content-Length"]) > 0 && len(h["Transfer-Encoding"]) > 0
}

// trackHeads feeds stream to a tracker in pieces of size step and returns
// the offsets where heads ended, whether the last one was flagged, and
// where the tracker stopped following (-1 if it did not).
func trackHeads(stream []byte, step int) (ends []int, both bool, offAt int) {
	var t tracker
	offAt = -1
	for i := 0; i < len(stream); i += step {
		piece := stream[i:min(i+step, len(stream))]
		for j := range piece { // byte by byte within a piece, to see where heads end
			before := t.heads
			t.feed(piece[j : j+1])
			if t.heads != before {
				ends = append(ends, i+j+1)
			}
			if t.off {
				return ends, t.both, i + j + 1
			}
		}
	}
	return ends, t.both, offAt
}

// checkAgainstGo fails unless the tracker finds net/http's head
// boundaries, and flags a head exactly when the oracle does.
func checkAgainstGo(t *testing.T, stream []byte) {
	t.Helper()
	goReqs := parseGo(stream)
	ends, both, offAt := trackHeads(stream, 1)
	for i, g := range goReqs {
		if offAt >= 0 && g.headEnd > offAt {
			return // the tracker stopped before: net/http's to refuse, or flagged
		}
		if i >= len(ends) || ends[i] != g.headEnd {
			t.Fatalf("%q: net/http's head %d ends at %d, the tracker's heads at %v", stream, i, g.headEnd, ends)
		}
		if flagged := both && i == len(ends)-1; flagged != g.both {
			t.Fatalf("%q: head %d flagged %v, net/textproto reads both headers: %v", stream, i, flagged, g.both)
		}
	}
	// A chunked stream split anywhere is followed alike.
	for _, step := range []int{2, 3, 7, 64} {
		if e, b, o := trackHeads(stream, step); !equalInts(e, ends) || b != both || o != offAt {
			t.Fatalf("%q in pieces of %d: heads %v %v %d, byte by byte %v %v %d", stream, step, e, b, o, ends, both, offAt)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const (
	get     = "GET /b/k HTTP/1.1\r\nHost: h\r\n\r\n"
	chunked = "PUT /b/k HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\n\r\n"
	withCL  = "PUT /b/k HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello"
)

var trackerStreams = []string{
	get + get,
	withCL + get + withCL,
	chunked + get + chunked + withCL,
	// Chunked with trailers, upper-case hex, a chunk line with a bare LF
	// (net/http refuses it).
	"PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n0\r\nX-Trailer: v\r\n\r\n" + get,
	"PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n" + get,
	// Both framing headers, in either order, any case, folded, repeated.
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 14\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + get,
	"PUT / HTTP/1.1\r\nHost: h\r\ntransfer-encoding: chunked\r\ncontent-length: 3\r\n\r\n0\r\n\r\n" + get,
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 14\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n" + get,
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello" + get,
	get + "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	// A folded Content-Length value, leading zeros, blanks.
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n 5\r\n\r\nhello" + get,
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0005 \r\n\r\nhello" + get,
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 5x\r\n\r\nhello" + get,
	// HTTP/1.0 ignores Transfer-Encoding.
	"PUT / HTTP/1.0\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + get,
	"PUT / HTTP/1.0\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\nhello" + get,
	// Bare LF line ends in the head; a header that names neither.
	"PUT / HTTP/1.1\nHost: h\nContent-Length: 5\n\nhello" + get,
	"GET / HTTP/1.1\r\nHost: h\r\nX-Transfer-Encoding: chunked\r\nContent-Lengthy: 5\r\n\r\n" + get,
	// A value that mentions the other header.
	"GET / HTTP/1.1\r\nHost: h\r\nX-A: Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n" + get,
	// A body that looks like a head.
	"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 60\r\n\r\nGET / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: x\r\n\r\n" + get,
}

func TestTrackerFollowsNetHTTP(t *testing.T) {
	for _, s := range trackerStreams {
		checkAgainstGo(t, []byte(s))
	}
}

// TestTrackerFlags: the heads that carry both headers are flagged, the
// others not (whatever net/http would do next).
func TestTrackerFlags(t *testing.T) {
	for s, want := range map[string]bool{
		get + get:     false,
		chunked + get: false,
		withCL + get:  false,
		"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 14\r\nTransfer-Encoding: chunked\r\n\r\n":      true,
		"PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 14\r\nTransfer-Encoding:\r\n\tchunked\r\n\r\n": true,
		"PUT / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\nContent-Length: 1\r\n\r\n":          true,
		withCL + "PUT / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n":         true,
		chunked + "PUT / HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n":        true,
		"GET / HTTP/1.1\r\nX-Note: Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n":          false,
	} {
		var tr tracker
		tr.feed([]byte(s))
		if tr.both != want {
			t.Errorf("%q: flagged %v, want %v", s, tr.both, want)
		}
	}
}

// FuzzTracker: on any stream, the tracker finds net/http's head
// boundaries until it stops, flags a head exactly when net/textproto
// reads both headers in it, and reads it alike in any pieces.
func FuzzTracker(f *testing.F) {
	for _, s := range trackerStreams {
		f.Add([]byte(s))
	}
	f.Add([]byte(strings.Repeat(get, 3)))
	f.Fuzz(func(t *testing.T, stream []byte) {
		checkAgainstGo(t, stream)
	})
}

// BenchmarkTracker: the cost of following one signed 1 KiB PUT (a head as
// aws-sdk-go-v2 sends it, then its body).
func BenchmarkTracker(b *testing.B) {
	head := "PUT /bucket/key HTTP/1.1\r\nHost: 127.0.0.1:9000\r\nUser-Agent: aws-sdk-go-v2/1.30.0 os/linux lang/go#1.26 md/GOOS#linux md/GOARCH#amd64 api/s3#1.58.0\r\n" +
		"Content-Length: 1024\r\nAccept-Encoding: identity\r\nAmz-Sdk-Invocation-Id: 5b7f7d1e-8a8e-4c9e-9a53-2a4f8c6c7f11\r\nAmz-Sdk-Request: attempt=1; max=3\r\n" +
		"Authorization: AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20261128/us-east-1/s3/aws4_request, SignedHeaders=accept-encoding;amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-content-sha256;x-amz-date, Signature=" + strings.Repeat("0", 64) + "\r\n" +
		"Content-Type: application/octet-stream\r\nX-Amz-Content-Sha256: " + strings.Repeat("a", 64) + "\r\nX-Amz-Date: 20261128T120000Z\r\n\r\n"
	stream := []byte(head + strings.Repeat("x", 1024))
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	var t tracker
	for b.Loop() {
		t.feed(stream)
	}
	if t.off || t.heads == 0 {
		b.Fatal("lost the stream")
	}
}
