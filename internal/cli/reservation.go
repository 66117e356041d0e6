package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/units"
)

const reservationUsage = `Usage: jog admin [flags] reservation <command>

Throughput reservations of a bucket (docs/QOS.md), through the S3
endpoint's ?reservations API:

  reservation create [--read RATE] [--write RATE] [--requests N] [--start TIME]
                     [--end TIME | --duration D] [--principal ARN] BUCKET
  reservation ls BUCKET
  reservation show BUCKET ID
  reservation rm BUCKET ID

RATE is bytes per second with an optional unit: 100MB/s, 64MiB. --requests
is requests per second (--rps is the same flag); the server needs
--qos-request-capacity for it. A reservation needs at least one of the
three rates. TIME is
RFC 3339 (2026-01-02T15:04:05Z); --start defaults to now, the window to
one hour. Each reservation prints as: ID, state, read B/s, write B/s,
requests/s, start, end, bound principal; ls prints a header line first, or
"no reservations". jog admin --json prints them by name.
`

// reservationFields are the fields of a reservation jog admin prints.
var reservationFields = []string{"Id", "State", "ReadBytesPerSecond", "WriteBytesPerSecond", "RequestsPerSecond", "Start", "End", "Principal"}

// reservationCommands are jog admin reservation's commands but create
// (createReservation), which takes flags.
var reservationCommands = map[string]adminCommand{
	"ls": {args: []string{"BUCKET"}, run: func(ctx context.Context, a *admin, args []string) error {
		return a.printReservations(ctx, http.MethodGet, args[0], "reservations", nil, true)
	}},
	"show": {args: []string{"BUCKET", "ID"}, run: func(ctx context.Context, a *admin, args []string) error {
		return a.printReservations(ctx, http.MethodGet, args[0], "reservation="+url.QueryEscape(args[1]), nil, false)
	}},
	"rm": {args: []string{"BUCKET", "ID"}, run: func(ctx context.Context, a *admin, args []string) error {
		if _, err := a.s3Call(ctx, http.MethodDelete, args[0], "reservation="+url.QueryEscape(args[1]), nil); err != nil {
			return err
		}
		return a.printDone("CancelReservation", []string{"Bucket", "Id"}, args, fmt.Sprintf("cancelled reservation %s of bucket %s", args[1], args[0]))
	}},
}

// reservationCreate is the reservation command that takes flags.
const reservationCreate = "create"

// reservationNested are jog admin reservation's commands.
func reservationNested() []string {
	return append([]string{reservationCreate}, sortedKeys(reservationCommands)...)
}

// runReservation runs "jog admin reservation ..." with a's endpoint and
// credentials.
func runReservation(ctx context.Context, a *admin, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == reservationCreate {
		return a.createReservation(ctx, args[1:], stdout, stderr)
	}
	if helpAsked(args) {
		fmt.Fprint(stdout, reservationUsage)
		return 0
	}
	args, err := argsOf(args)
	if err != nil {
		fmt.Fprintf(stderr, "%v\n", err)
	}
	if err != nil || len(args) == 0 {
		fmt.Fprint(stderr, reservationUsage)
		return 2
	}
	cmd, ok := reservationCommands[args[0]]
	if !ok || len(args)-1 != len(cmd.args) {
		fmt.Fprintf(stderr, "jog admin: unknown command or wrong arguments: reservation %s\n\n%s", strings.Join(args, " "), reservationUsage)
		return 2
	}
	if err := cmd.run(ctx, a, args[1:]); err != nil {
		fmt.Fprintln(stderr, "jog admin:", err)
		return 1
	}
	return 0
}

func (a *admin) createReservation(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog admin reservation create", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), reservationUsage); fs.PrintDefaults() }
	var read, write int64
	rate := func(p *int64) func(string) error {
		return func(s string) (err error) { *p, err = units.ParseRate(s); return err }
	}
	fs.Func("read", "read throughput to reserve, e.g. 100MB/s", rate(&read))
	fs.Func("write", "write throughput to reserve, e.g. 50MB/s", rate(&write))
	var rps int64
	fs.Int64Var(&rps, "requests", 0, "requests per second to reserve (0: none)")
	fs.Int64Var(&rps, "rps", 0, "the same as --requests")
	start := fs.String("start", "", "start of the window, RFC 3339 (default now)")
	end := fs.String("end", "", "end of the window, RFC 3339 (default start + --duration)")
	dur := fs.Duration("duration", time.Hour, "length of the window when --end is not given")
	principal := fs.String("principal", "", "ARN of a principal whose requests use the reservation without naming it")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if helpAsked(fs.Args()) {
		return printHelp(fs, stdout)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	from := time.Now().UTC().Truncate(time.Second)
	to, err := windowEnd(*start, *end, *dur, &from)
	if err != nil {
		fmt.Fprintln(stderr, "jog admin:", err)
		return 2
	}
	doc := struct {
		XMLName   xml.Name `xml:"Reservation"`
		Read      int64    `xml:"ReadBytesPerSecond"`
		Write     int64    `xml:"WriteBytesPerSecond"`
		RPS       int64    `xml:"RequestsPerSecond,omitempty"`
		Start     string   `xml:"Start"`
		End       string   `xml:"End"`
		Principal string   `xml:"Principal,omitempty"`
	}{Read: read, Write: write, RPS: rps, Start: from.Format(time.RFC3339), End: to.Format(time.RFC3339), Principal: *principal}
	body, err := xml.Marshal(doc)
	if err == nil {
		err = a.printReservations(ctx, http.MethodPost, fs.Arg(0), "reservations", body, false)
	}
	if err != nil {
		fmt.Fprintln(stderr, "jog admin:", err)
		return 1
	}
	return 0
}

// windowEnd parses --start into *from (when given) and returns the end:
// --end, or *from + dur.
func windowEnd(start, end string, dur time.Duration, from *time.Time) (time.Time, error) {
	if start != "" {
		t, err := time.Parse(time.RFC3339, start)
		if err != nil {
			return time.Time{}, fmt.Errorf("--start: %v", err)
		}
		*from = t.UTC()
	}
	if end == "" {
		return from.Add(dur), nil
	}
	t, err := time.Parse(time.RFC3339, end)
	if err != nil {
		return time.Time{}, fmt.Errorf("--end: %v", err)
	}
	return t.UTC(), nil
}

// printReservations sends a reservation request and prints each
// reservation of the answer, one a line: a listing (list) with a header
// line, "no reservations" when there is none; with --json, by name.
func (a *admin) printReservations(ctx context.Context, method, bucket, query string, body []byte, list bool) error {
	out, err := a.s3Call(ctx, method, bucket, query, body)
	if err != nil {
		return err
	}
	rows, err := rowsOf(out, "Reservation", reservationFields...)
	if err != nil {
		return err
	}
	switch {
	case list:
		if !a.json { // exact bytes/s in JSON
			for i := range rows {
				rows[i] = humanRates(rows[i])
			}
		}
		return a.printList("reservations", rows, reservationFields)
	case a.json && len(rows) == 1:
		return a.printOne(rows[0], reservationFields)
	}
	for _, r := range rows {
		fmt.Fprintln(a.out, strings.Join(humanRates(r), "\t"))
	}
	return nil
}

// humanRates renders a reservation row's byte rates (the
// reservationFields named *BytesPerSecond) in units (units.Rate:
// "200MB/s", as --read takes it).
func humanRates(row []string) []string {
	for i, f := range reservationFields[:min(len(row), len(reservationFields))] {
		if n, err := strconv.ParseInt(row[i], 10, 64); err == nil && strings.HasSuffix(f, "BytesPerSecond") {
			row[i] = units.Rate(n)
		}
	}
	return row
}

// s3Call sends one signed request to bucket's S3 subresource query and
// returns the answer's body, or the S3 error as an error.
func (a *admin) s3Call(ctx context.Context, method, bucket, query string, body []byte) ([]byte, error) {
	u := strings.TrimSuffix(a.endpoint, "/") + "/" + url.PathEscape(bucket) + "?" + query
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/xml")
		req.ContentLength = int64(len(body))
	}
	if a.token != "" {
		req.Header.Set(sigv4.SecurityTokenHeader, a.token)
	}
	sum := sha256.Sum256(body)
	sigv4.SignRequest(req, a.access, a.secret, a.region, time.Now(), hex.EncodeToString(sum[:]))
	return a.send(req)
}
