// Package listen is the receiver of `jog notify listen`: a webhook that
// takes the POSTs of JOG's webhook target (internal/notify/target: one
// notify.Message of S3 event records, JSON, with "Authorization: Bearer
// <token>" when the target has a token) and writes each record as a line,
// for trying notifications out and for scripts (docs/NOTIFICATIONS.md's
// quick start). It is not a queue: a record is written, then answered 200.
package listen

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jogstore/jog/internal/notify"
)

// MaxBody bounds a message: one record is a few KiB at most (a key is at
// most 1,024 bytes).
const MaxBody = 1 << 20

// Options configure a Receiver.
type Options struct {
	// Token, when set, is required as "Authorization: Bearer <Token>",
	// as the server's --notify-webhook-token sends it: anything else is
	// answered 401 and written nowhere.
	Token string
	// JSON writes each record as a line of JSON (notify.Event) rather
	// than Line's summary.
	JSON bool
}

// Receiver is the webhook: an http.Handler writing the records it takes
// to out, one line each, a message's lines together.
type Receiver struct {
	opts Options
	mu   sync.Mutex
	out  io.Writer
}

// New returns a Receiver writing to out.
func New(out io.Writer, opts Options) *Receiver { return &Receiver{opts: opts, out: out} }

// ServeHTTP takes a POST of a notify.Message: 200 once its records are
// written; 405 for another method, 401 without the token, 400 for a body
// that is not a message (with nothing written).
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST event messages here", http.StatusMethodNotAllowed)
		return
	}
	if r.opts.Token != "" && subtle.ConstantTimeCompare([]byte(req.Header.Get("Authorization")), []byte("Bearer "+r.opts.Token)) != 1 {
		http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
		return
	}
	var m notify.Message
	dec := json.NewDecoder(http.MaxBytesReader(w, req.Body, MaxBody))
	if err := dec.Decode(&m); err != nil || m.Records == nil {
		http.Error(w, "not an S3 event message: want {\"Records\":[…]}", http.StatusBadRequest)
		return
	}
	var b strings.Builder
	for _, e := range m.Records {
		if r.opts.JSON {
			line, _ := json.Marshal(e) // an Event always marshals
			b.Write(line)
		} else {
			b.WriteString(Line(e))
		}
		b.WriteByte('\n')
	}
	r.mu.Lock()
	_, err := io.WriteString(r.out, b.String())
	r.mu.Unlock()
	if err != nil {
		// Not written: the sender keeps the event and tries again.
		http.Error(w, "cannot write the event", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// Line is an event as one line: its name, bucket/key (the key decoded),
// and the object's size ("-" for a removal, which has none):
//
//	ObjectCreated:Put photos/images/beach.jpg 6
//
// A bucket/key holding a space, a character that is not printable or
// bytes that are not UTF-8 is
// quoted, Go-style, so that the line stays one line and a terminal shows
// it as it is.
func Line(e notify.Event) string {
	key, err := url.QueryUnescape(e.S3.Object.Key)
	if err != nil {
		key = e.S3.Object.Key // not encoded as S3 encodes: shown as sent
	}
	path := e.S3.Bucket.Name + "/" + key
	if strings.IndexFunc(path, func(c rune) bool { return c == ' ' || c == utf8.RuneError || !unicode.IsGraphic(c) }) >= 0 {
		path = strconv.Quote(path)
	}
	size := "-"
	if s := e.S3.Object.Size; s != nil {
		size = strconv.FormatInt(*s, 10)
	}
	return fmt.Sprintf("%s %s %s", e.EventName, path, size)
}
