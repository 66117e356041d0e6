package sigv4

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

// The AWS documentation's two chunked-upload examples: 66560 bytes of 'a'
// in a 64 KiB chunk, a 1 KiB chunk and the final chunk, at 20130524T000000Z
// with the example credentials. The signatures below are the published ones
// (docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html and
// sigv4-streaming-trailers.html); every implementation we compared agrees.
var (
	awsChunkSigs = [3]string{
		"ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648",
		"0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497",
		"b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9",
	}
	awsTrailerChunkSigs = [3]string{
		"b474d8862b1487a5145d686f57f013e54db672cee1c953b3010fb58501ef5aa2",
		"1c1344b170168f8e65b41376b44b20fe354e373826ccbbe2c1d40a8cae51e5c7",
		"2ca2aba2005185cf7159c6277faf83795951dd77a3a99e6e65d5c9f85863f992",
	}
	awsTrailerSig = "d81f82fc3505edab99d459891051a732e8730629a2e4a59689829ca17fe2e435"
)

// awsExampleBody frames the example's data with the given chunk signatures,
// followed by tail.
func awsExampleBody(sigs [3]string, tail string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "10000;chunk-signature=%s\r\n", sigs[0])
	b.Write(repeatA(65536))
	fmt.Fprintf(&b, "\r\n400;chunk-signature=%s\r\n", sigs[1])
	b.Write(repeatA(1024))
	fmt.Fprintf(&b, "\r\n0;chunk-signature=%s\r\n", sigs[2])
	b.WriteString(tail)
	return b.Bytes()
}

func TestChunkedAWSExample(t *testing.T) {
	body := awsExampleBody(awsChunkSigs, "\r\n")
	if len(body) != 66824 {
		t.Fatalf("example body is %d bytes, the documented Content-Length is 66824", len(body))
	}
	r := awsChunkedExample(body, false)
	res, err := exampleVerifier().Verify(r)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if res.Signature != "4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9" || res.PayloadHash != StreamingPayload {
		t.Fatalf("result %+v", res)
	}
	for _, split := range []int{1, 100, 4096, 1 << 20} {
		got, _, err := decodeChunked(t, slowReader{bytes.NewReader(body), split}, res, 66560)
		if err != nil || !bytes.Equal(got, repeatA(66560)) {
			t.Fatalf("split %d: %d bytes, %v", split, len(got), err)
		}
	}
	// Our encoder reproduces the documented body byte for byte.
	if enc := encodeChunked(t, res, repeatA(66560), 64<<10, nil); !bytes.Equal(enc, body) {
		t.Errorf("encoder output differs from the documented body")
	}
	// Any one documented signature changed is refused.
	for i := range awsChunkSigs {
		sigs := awsChunkSigs
		sigs[i] = sigs[i][:63] + "0"
		if sigs[i] == awsChunkSigs[i] {
			sigs[i] = sigs[i][:63] + "1"
		}
		if _, _, err := decodeChunked(t, bytes.NewReader(awsExampleBody(sigs, "\r\n")), res, 66560); !errors.Is(err, ErrChunkSignatureMismatch) {
			t.Errorf("signature %d changed: %v", i, err)
		}
	}
}

func TestChunkedAWSTrailerExample(t *testing.T) {
	tails := map[string]string{
		// As AWS documents it and the AWS SDKs' signers write it.
		"documented": "x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:" + awsTrailerSig + "\r\n\r\n",
		// The final chunk's (empty) data followed by its CRLF.
		"crlf after final chunk": "\r\nx-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:" + awsTrailerSig + "\r\n\r\n",
		// minio-go: trailer lines end in "\n", then "\r\n" before the signature.
		"minio-go": "x-amz-checksum-crc32c:sOO8/Q==\n\r\nx-amz-trailer-signature:" + awsTrailerSig + "\r\n\r\n",
		// No final CRLF.
		"no final crlf": "x-amz-checksum-crc32c:sOO8/Q==\r\nx-amz-trailer-signature:" + awsTrailerSig,
	}
	for name, tail := range tails {
		body := awsExampleBody(awsTrailerChunkSigs, tail)
		res, err := exampleVerifier().Verify(awsChunkedExample(body, true))
		if err != nil {
			t.Fatalf("Verify: %v", err)
		}
		if res.Signature != "106e2a8a18243abcf37539882f36619c00e2dfc72633413f02d3b74544bfeb8e" {
			t.Fatalf("seed %s", res.Signature)
		}
		got, cr, err := decodeChunked(t, slowReader{bytes.NewReader(body), 777}, res, 66560, "x-amz-checksum-crc32c")
		if err != nil || !bytes.Equal(got, repeatA(66560)) {
			t.Errorf("%s: %d bytes, %v", name, len(got), err)
			continue
		}
		if v := cr.Trailer("X-Amz-Checksum-Crc32c"); v != "sOO8/Q==" {
			t.Errorf("%s: trailer %q", name, v)
		}
		if name == "documented" {
			enc := encodeChunked(t, res, repeatA(66560), 64<<10, []Trailer{{"x-amz-checksum-crc32c", "sOO8/Q=="}})
			if !bytes.Equal(enc, body) {
				t.Errorf("encoder output differs from the documented body:\n%q", enc[len(enc)-200:])
			}
		}
	}
	// The documented trailer with another value: the signature no longer holds.
	res, _ := exampleVerifier().Verify(awsChunkedExample(nil, true))
	body := awsExampleBody(awsTrailerChunkSigs, "x-amz-checksum-crc32c:sOO8/A==\r\nx-amz-trailer-signature:"+awsTrailerSig+"\r\n\r\n")
	got, cr, err := decodeChunked(t, bytes.NewReader(body), res, 66560, "x-amz-checksum-crc32c")
	if !errors.Is(err, ErrTrailerSignatureMismatch) || cr.Trailer("x-amz-checksum-crc32c") != "" {
		t.Errorf("altered trailer: %v", err)
	}
	if len(got) != 66560 {
		t.Errorf("verified chunks must still be returned, got %d bytes", len(got))
	}
}
