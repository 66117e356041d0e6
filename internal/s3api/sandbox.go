package s3api

import (
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/webmime"
)

// sandboxDocument makes an object's GET or HEAD response an opaque-origin
// sandbox (Content-Security-Policy: sandbox: no script runs, nothing it
// shows is of this origin) unless its Content-Type — the object's, or the
// response-content-type a request asked for — is one passiveContent
// accepts, and forbids the browser to sniff another type (nosniff). A
// page or SVG an object holds, opened from a presigned link or a public
// bucket, then cannot act on this origin, where the web console may be
// served, whatever a browser makes of its type (ADR 0025).
func sandboxDocument(h http.Header) {
	h["X-Content-Type-Options"] = nosniff
	if !passiveContent(h.Get("Content-Type")) {
		h["Content-Security-Policy"] = sandbox
	}
}

// nosniff is X-Content-Type-Options' one value, shared: net/http only
// reads a response's header values.
var nosniff, sandbox = []string{"nosniff"}, []string{"sandbox"}

// passiveTypes are the media types browsers show without running a
// script: images of the raster formats they decode, PDF (a sandboxed PDF
// is not drawn by Chromium's viewer), plain text and JSON (shown as
// text under nosniff), and the types they download. Any other type is
// served sandboxed: HTML, XML and every +xml (SVG, XHTML), XSLT,
// multipart/x-mixed-replace, WML, and types unknown here.
var passiveTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/avif": true,
	"image/bmp": true, "image/x-icon": true, "image/vnd.microsoft.icon": true,
	"application/pdf": true, "text/plain": true, "text/csv": true, "application/json": true,
	"application/octet-stream": true, "binary/octet-stream": true,
	"application/zip": true, "application/gzip": true, "application/x-tar": true,
}

// passiveMedia are the top-level types whose every subtype is passive:
// audio and video, played in a media document or downloaded.
var passiveMedia = []string{"audio/", "video/"}

// passiveContent reports whether a response of Content-Type ct may be
// served without the sandbox: the type the Fetch standard extracts from
// it (webmime) is passive, and ct holds no comma at all — no list, not
// even inside a quoted string, so that a browser reading a list
// otherwise than the standard (another element, or commas split
// regardless of quotes) has no other type to take.
func passiveContent(ct string) bool {
	if passiveTypes[ct] { // most objects: a bare type, nothing to parse
		return true
	}
	if strings.Contains(ct, ",") {
		return false
	}
	m, ok := webmime.Extract(ct)
	if !ok {
		return false
	}
	essence := m.Essence()
	if passiveTypes[essence] {
		return true
	}
	for _, p := range passiveMedia {
		if strings.HasPrefix(essence, p) && !strings.HasSuffix(essence, "+xml") {
			return true
		}
	}
	return false
}
