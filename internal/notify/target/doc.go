// Package target is where event notifications go: the targets the server
// is configured with (--notify-webhook, --notify-nats), each named by an
// ID and an ARN (arn:jog:sqs:<region>:<ID>:webhook|nats), and the senders
// that deliver one notify.Message to them for the queue's workers
// (notify.Durable, on internal/durq): an HTTP POST to a webhook (2xx:
// taken), a publish to a NATS subject followed by a flush (taken once the
// server has it). Each kind of target is one Kind in kinds, next to its sender:
// its flags, their checks, its ARN and its sender derive from that entry,
// so a new kind is a file of this package and a line in kinds.
package target
