package target

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"

	"github.com/nats-io/nats.go"
)

// natsKind: a NATS target publishes each message to a subject.
var natsKind = Kind{
	Name:  NATS,
	Usage: "ID=nats://[user:password@]host:4222/subject, each event published to the subject",
	check: func(u *url.URL) bool {
		return (u.Scheme == "nats" || u.Scheme == "tls") && u.Host != "" && subject(u) != ""
	},
	want: "nats://[user:password@]host:4222/subject",
	open: func(s Spec, log *slog.Logger) (Sender, error) {
		n, err := NewNATS(s, log)
		if err != nil {
			return nil, err
		}
		return n, nil
	},
}

// NATSFlushTimeout bounds the wait for the server to confirm a publish.
const NATSFlushTimeout = 10 * time.Second

// NATSSender publishes messages to a NATS subject (core NATS).
type NATSSender struct {
	nc      *nats.Conn
	subject string
}

// NewNATS connects to a NATS spec's server. It does not wait for the
// server: while it is unreachable the connection keeps trying, and Send
// fails (the queue retries).
func NewNATS(s Spec, log *slog.Logger) (*NATSSender, error) {
	u, err := url.Parse(s.URL)
	if err != nil {
		return nil, err
	}
	subj := subject(u)
	u.Path = ""
	nc, err := nats.Connect(u.String(),
		nats.Name("jog notifications "+s.ID),
		nats.RetryOnFailedConnect(true), nats.MaxReconnects(-1), nats.ReconnectWait(time.Second),
		nats.ReconnectBufSize(-1), // fail a publish while disconnected instead of buffering it
		// Keep trying a server that refuses the credentials (by default the
		// client gives up for good at the second refusal): they may be
		// fixed on the server's side.
		nats.IgnoreAuthErrorAbort(),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("notification target: NATS connection lost", "target", s.ID, "err", err)
			}
		}),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("notification target: NATS reconnected", "target", s.ID) }),
	)
	if err != nil {
		return nil, err
	}
	return &NATSSender{nc: nc, subject: subj}, nil
}

// Send publishes body and waits for the server to have it (a flush).
func (n *NATSSender) Send(ctx context.Context, body []byte) error {
	if !n.nc.IsConnected() {
		if err := n.nc.LastError(); err != nil {
			return fmt.Errorf("not connected to NATS: %w", err)
		}
		return errors.New("not connected to NATS")
	}
	if err := n.nc.Publish(n.subject, body); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, NATSFlushTimeout)
	defer cancel()
	return n.nc.FlushWithContext(ctx)
}

// Close closes the connection.
func (n *NATSSender) Close() error {
	n.nc.Close()
	return nil
}
