package sched_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jogstore/jog/internal/qos/sched"
)

// The control plane registers reservations; the data path wraps a PUT body
// and a GET response in the flow of the request.
func Example() {
	s := sched.New(sched.Config{}, sched.Capacities{Read: 300e6, Write: 150e6})
	if err := s.Write.Reserve("resv-1", sched.Spec{Rate: 50e6}); err != nil {
		panic(err)
	}
	ctx := context.Background()

	// PUT with x-jog-reservation-id: resv-1, by principal alice.
	body := sched.Reader(ctx, strings.NewReader("object body"), s.Write.Flow("resv-1", "alice"))
	var stored bytes.Buffer
	n, err := io.Copy(&stored, body)
	fmt.Println(n, err, s.Write.Flow("resv-1", "alice").Scheduled())

	// GET by bob, best effort; nothing is reserved for reads, so the writer
	// passes straight through.
	var sock bytes.Buffer
	w := sched.Writer(ctx, &sock, s.Read.Flow("", "bob"))
	_, err = w.Write(stored.Bytes())
	fmt.Println(sock.String(), err, s.Read.Flow("", "bob").Scheduled())

	s.Release("resv-1")
	fmt.Println(s.Write.Flow("resv-1", "alice").Scheduled())
	// Output:
	// 11 <nil> true
	// object body <nil> false
	// false
}
