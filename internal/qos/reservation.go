package qos

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Header is the request header, and the query parameter of a presigned
// URL, that presents a reservation by its ID (docs/QOS.md); the server
// echoes it on the response. Clients and server share this one name.
const Header = "x-jog-reservation-id"

// State is where a reservation's window stands at an instant.
type State string

// The states of a reservation.
const (
	Pending State = "pending" // its window has not begun
	Active  State = "active"  // now is in [Start, End)
	Expired State = "expired" // its window has ended
)

// StateAt returns r's state at now. Windows are half-open: a reservation
// is active from Start to the second before End, so it stops applying
// at its end time to the second.
func StateAt(r meta.Reservation, now time.Time) State {
	switch {
	case now.Before(r.Start):
		return Pending
	case now.Before(r.End):
		return Active
	}
	return Expired
}

// MaxWindow bounds a reservation's length: capacity is promised for a
// window people plan, not for ever.
const MaxWindow = 366 * 24 * time.Hour

// MaxLead bounds how far ahead a reservation may start: a year, as far as
// a window may last.
const MaxLead = MaxWindow

// MaxPast bounds how far in the past a Start may be: "now" from a client
// whose clock is behind, or sent a moment ago. Create moves such a Start
// to the present (nothing reserves time gone by); one further back is
// refused. It is the clock skew S3 allows a signature.
const MaxPast = 15 * time.Minute

// Validate checks a reservation a client asks for, at now: rates not
// negative and not all zero, a window of whole seconds that ends after
// it starts, in the future, at most MaxWindow long, starting at most
// MaxPast ago and MaxLead ahead, and ARNs where principals are named. Its
// errors are *Error of kind Invalid.
func Validate(r meta.Reservation, now time.Time) error {
	switch {
	case r.ReadBPS < 0 || r.WriteBPS < 0 || r.RequestsPerSecond < 0:
		return invalid("rates must not be negative")
	case r.ReadBPS == 0 && r.WriteBPS == 0 && r.RequestsPerSecond == 0:
		return invalid("a reservation must reserve read or write throughput or a request rate (ReadBytesPerSecond, WriteBytesPerSecond, RequestsPerSecond)")
	case r.Start.IsZero() || r.End.IsZero():
		return invalid("a reservation needs a Start and an End")
	case !r.End.After(r.Start):
		return invalid("End must be after Start")
	case !r.End.After(now):
		return invalid("the window has already ended")
	case r.End.Sub(r.Start) > MaxWindow:
		return invalid("a window may last at most %d days", int(MaxWindow/(24*time.Hour)))
	case now.Sub(r.Start) > MaxPast:
		return invalid("Start is in the past: a reservation starts now at the earliest (a Start up to %d minutes ago is taken as now)", int(MaxPast/time.Minute))
	case r.Start.Sub(now) > MaxLead:
		return invalid("Start may be at most %d days ahead", int(MaxLead/(24*time.Hour)))
	case !r.Start.Equal(r.Start.Truncate(time.Second)) || !r.End.Equal(r.End.Truncate(time.Second)):
		return invalid("Start and End are whole seconds")
	case r.Principal != "" && !strings.HasPrefix(r.Principal, "arn:"):
		return invalid("Principal must be an ARN (arn:aws:iam::ACCOUNT:user/NAME)")
	}
	return nil
}

// MayPresent checks that the caller, whose ARN is caller ("" when
// anonymous), may present r by its ID: anyone allowed on the bucket when
// r is bound to no principal; else its Principal only, and the account's
// root (root), which may do anything in the account, cancelling r
// included. Its error is an *Error of kind NotYours.
func MayPresent(r meta.Reservation, caller string, root bool) error {
	if r.Principal == "" || root || caller == r.Principal {
		return nil
	}
	who := caller
	if who == "" {
		who = "an anonymous request"
	}
	return &Error{Kind: NotYours, Msg: fmt.Sprintf("reservation %s is bound to %s: %s may not draw on it", r.ID, r.Principal, who)}
}

// NewID returns a random reservation ID: 20 bytes in lower-case base32
// without padding (32 characters), safe in a URL and a header.
func NewID() string {
	var b [20]byte
	rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// Kind is what went wrong, for the S3 edge to name (s3api's error map).
type Kind int

// The kinds of Error.
const (
	// Invalid: the reservation asked for is not valid (400).
	Invalid Kind = iota
	// NoCapacity: the server has no capacity configured, so nothing can
	// be admitted.
	NoCapacity
	// NotActive: a presented reservation is pending or expired.
	NotActive
	// WrongBucket: a presented reservation is another bucket's.
	WrongBucket
	// NotYours: a presented reservation is bound to another principal.
	NotYours
)

// Error is a reservation refused by this package's rules.
type Error struct {
	Kind Kind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// S3Error is what a client is told (s3api.ClientError): the S3-style code
// of the kind (JOG's extensions, docs/COMPATIBILITY.md) and the message.
func (e *Error) S3Error() (code string, status int, message string) {
	c := kindCodes[e.Kind]
	return c.code, c.status, e.Msg
}

// kindCodes are the codes and statuses of the kinds.
var kindCodes = [...]struct {
	code   string
	status int
}{
	Invalid:     {"InvalidArgument", http.StatusBadRequest},
	NoCapacity:  {"CapacityNotConfigured", http.StatusConflict},
	NotActive:   {"ReservationNotActive", http.StatusForbidden},
	WrongBucket: {"ReservationBucketMismatch", http.StatusBadRequest},
	NotYours:    {"AccessDenied", http.StatusForbidden},
}

func invalid(format string, args ...any) error {
	return &Error{Kind: Invalid, Msg: fmt.Sprintf(format, args...)}
}

// noCapacity is Create's refusal of r when the server has no capacity
// configured for a direction r reserves (c's is 0), naming the settings
// that give one; nil when every direction r asks for has a capacity.
func noCapacity(r meta.Reservation, c meta.Capacity) error {
	var dirs, fixes []string
	for _, d := range []struct {
		asked, capacity int64
		dir, fix        string
	}{
		{r.ReadBPS, c.Read, "reads", "--qos-read-capacity (bytes/s, e.g. 300MB/s; or run jog calibrate)"},
		{r.WriteBPS, c.Write, "writes", "--qos-write-capacity (bytes/s, e.g. 150MB/s; or run jog calibrate)"},
		{r.RequestsPerSecond, c.Requests, "requests", "--qos-request-capacity (requests/s, e.g. 2000)"},
	} {
		if d.asked > 0 && d.capacity <= 0 {
			dirs, fixes = append(dirs, d.dir), append(fixes, d.fix)
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	return &Error{Kind: NoCapacity, Msg: fmt.Sprintf("the server has no capacity configured for reservations of %s: set %s",
		strings.Join(dirs, " and "), strings.Join(fixes, " and "))}
}

// IsKind reports whether err is an *Error of kind k.
func IsKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}
