// Package target is where event notifications go: the targets the server
// is configured with (--notify-webhook, --notify-nats), each named by an
// ID and an ARN (arn:jog:sqs:<region>:<ID>:webhook|nats), and the senders
// that deliver one notify.Message to them for the queue's workers
// (internal/notify/queue): an HTTP POST to a webhook (2xx: taken), a
// publish to a NATS subject followed by a flush (taken once the server
// has it).
package target
