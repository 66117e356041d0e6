package integration

// Request framing at its edges (issue 43, findings D and E): trailing
// checksums announced and sent empty, and requests that carry both
// Content-Length and Transfer-Encoding.

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestEmptyTrailingChecksum: an announced x-amz-checksum-crc32 trailer
// sent empty or blank is 400 InvalidRequest in the unsigned and the
// signed trailer modes, as a trailer not sent at all is refused, and
// nothing is stored; the right value is stored (the framing is sound).
func TestEmptyTrailingChecksum(t *testing.T) {
	srv, c := itest.StartBucket(t, "trail")
	data := []byte("a body whose checksum comes after it")
	sum := binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(data))
	good := base64.StdEncoding.EncodeToString(sum)
	for _, mode := range []string{sigv4.StreamingUnsignedPayloadTrailer, sigv4.StreamingPayloadTrailer} {
		for i, v := range []string{"", " \t ", good} {
			key := mode + "-" + string(rune('a'+i))
			t.Run(key, func(t *testing.T) {
				req := itest.RawRequest(t, srv, http.MethodPut, "/trail/"+key, nil)
				err := sigv4.SignChunkedRequest(req, testutil.AccessKey, testutil.SecretKey, testutil.Region, time.Now(), bytes.NewReader(data),
					sigv4.ChunkedUpload{Mode: mode, DecodedLength: int64(len(data)), TrailerNames: []string{"x-amz-checksum-crc32"},
						Trailers: func() []sigv4.Trailer { return []sigv4.Trailer{{Name: "x-amz-checksum-crc32", Value: v}} }})
				if err != nil {
					t.Fatal(err)
				}
				resp, body := itest.Do(t, req)
				if v == good {
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("the right checksum: %d %s", resp.StatusCode, body)
					}
					itest.WantObject(t, c, "trail", key, data)
					return
				}
				itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidRequest")
				itest.WantNoObject(t, c, "trail", key)
			})
		}
	}
}

// TestContentLengthWithTransferEncoding: a PUT that carries both
// Content-Length and Transfer-Encoding (one line, folded, either order)
// is answered 400 and its connection closed: the request pipelined after
// it on the connection is never served, and nothing is stored. Either
// header alone is served, and so is the request after it.
func TestContentLengthWithTransferEncoding(t *testing.T) {
	srv, c := itest.StartBucket(t, "frame")
	kept := []byte("kept")
	itest.Put(t, c, "frame", "keep", kept)
	const chunked = "5\r\nhello\r\n0\r\n\r\n"
	for i, tc := range []struct {
		name    string
		framing []string
		body    string
		refused bool
	}{
		{"both", []string{"Content-Length: 15", "Transfer-Encoding: chunked"}, chunked, true},
		{"both, Transfer-Encoding first", []string{"Transfer-Encoding: chunked", "Content-Length: 15"}, chunked, true},
		{"both, Transfer-Encoding folded", []string{"Content-Length: 15", "Transfer-Encoding:", " chunked"}, chunked, true},
		{"both, Content-Length 0", []string{"Content-Length: 0", "Transfer-Encoding: chunked"}, chunked, true},
		{"Transfer-Encoding alone", []string{"Transfer-Encoding: chunked"}, chunked, false},
		{"Content-Length alone", []string{"Content-Length: 5"}, "hello", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := fmt.Sprintf("k%d", i)
			put := hostileReq(t, srv, http.MethodPut, "/frame/"+key)
			hostileSign(put, sigv4.UnsignedPayload)
			get := hostileReq(t, srv, http.MethodGet, "/frame/keep")
			hostileSign(get, sigv4.UnsignedPayload)
			conn, err := net.Dial("tcp", srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
			stream := rawHead(put, tc.framing...) + "\r\n" + tc.body + rawHead(get) + "\r\n"
			if _, err := io.WriteString(conn, stream); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(conn)
			first, err := http.ReadResponse(br, put)
			if err != nil {
				t.Fatalf("no answer to the PUT: %v", err)
			}
			_, _ = io.Copy(io.Discard, first.Body)
			second, err := http.ReadResponse(br, get)
			if !tc.refused {
				if first.StatusCode != http.StatusOK || err != nil || second.StatusCode != http.StatusOK {
					t.Fatalf("PUT %d, then GET %v %v; want both served", first.StatusCode, second, err)
				}
				itest.WantObject(t, c, "frame", key, []byte("hello"))
				return
			}
			if first.StatusCode != http.StatusBadRequest || !first.Close {
				t.Errorf("PUT: %d (closing %v); want 400 and the connection closed", first.StatusCode, first.Close)
			}
			if err == nil {
				t.Errorf("the request after it was served: %d", second.StatusCode)
			}
			itest.WantNoObject(t, c, "frame", key)
		})
	}
	itest.WantObject(t, c, "frame", "keep", kept)
}

// TestChunkedOverTLSCloses: over TLS, where the request stream cannot be
// followed, a chunked request is served and its connection closed after
// it (RFC 9112 §6.1 for one that also had Content-Length): the request
// pipelined after it is never read.
func TestChunkedOverTLSCloses(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithTLS(t))
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "tls")
	for i, framing := range [][]string{{"Transfer-Encoding: chunked"}, {"Content-Length: 15", "Transfer-Encoding: chunked"}} {
		key := fmt.Sprintf("k%d", i)
		put := hostileReq(t, srv, http.MethodPut, "/tls/"+key)
		hostileSign(put, sigv4.UnsignedPayload)
		get := hostileReq(t, srv, http.MethodGet, "/tls/"+key)
		hostileSign(get, sigv4.UnsignedPayload)
		conn, err := tls.Dial("tcp", srv.Addr, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(conn, rawHead(put, framing...)+"\r\n5\r\nhello\r\n0\r\n\r\n"+rawHead(get)+"\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		first, err := http.ReadResponse(br, put)
		if err != nil || first.StatusCode != http.StatusOK || !first.Close {
			t.Fatalf("%v: %v %v; want 200 and the connection closed", framing, first, err)
		}
		_, _ = io.Copy(io.Discard, first.Body)
		if second, err := http.ReadResponse(br, get); err == nil {
			t.Errorf("%v: the request after it was served: %d", framing, second.StatusCode)
		}
		itest.WantObject(t, c, "tls", key, []byte("hello"))
	}
}
