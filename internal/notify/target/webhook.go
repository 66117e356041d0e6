package target

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"
)

// webhookKind: a webhook takes a POST of each message, with a bearer token
// when one is given.
var webhookKind = Kind{
	Name:  Webhook,
	Usage: "ID=URL of a webhook taking a POST of each event as JSON",
	Token: true,
	check: func(u *url.URL) bool { return (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" },
	want:  "http://host/path or https://host/path",
	open:  func(s Spec, _ *slog.Logger) (Sender, error) { return NewWebhook(s), nil },
}

// WebhookTimeout bounds one POST to a webhook.
const WebhookTimeout = 10 * time.Second

// WebhookSender POSTs messages to a webhook.
type WebhookSender struct {
	url, token string
	client     *http.Client
}

// NewWebhook returns the sender of a webhook spec; TLS is verified
// against the system's roots.
func NewWebhook(s Spec) *WebhookSender {
	return &WebhookSender{url: s.URL, token: s.Token, client: &http.Client{Timeout: WebhookTimeout}}
}

// Send POSTs body (a notify.Message) as JSON; any 2xx answer is taken.
func (w *WebhookSender) Send(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	resp, err := w.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // keep the connection
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook answered %s", resp.Status)
	}
	return nil
}

// Close releases idle connections.
func (w *WebhookSender) Close() error {
	w.client.CloseIdleConnections()
	return nil
}
