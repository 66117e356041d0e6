package notify

import (
	"encoding/base64"
	"encoding/xml"
	"errors"
	"strings"
	"testing"
)

const arnA, arnB = "arn:jog:sqs:us-east-1:a:webhook", "arn:jog:sqs:us-east-1:b:nats"

func targets(arn string) bool { return arn == arnA || arn == arnB }

// queue is a QueueConfiguration with the given parts ("" leaves one out).
func queue(id, arn, filter string, events ...string) string {
	s := "<QueueConfiguration>"
	if id != "" {
		s += "<Id>" + id + "</Id>"
	}
	s += "<Queue>" + arn + "</Queue>"
	for _, e := range events {
		s += "<Event>" + e + "</Event>"
	}
	return s + filter + "</QueueConfiguration>"
}

func filter(rules ...string) string {
	s := "<Filter><S3Key>"
	for i := 0; i+1 < len(rules); i += 2 {
		s += "<FilterRule><Name>" + rules[i] + "</Name><Value>" + rules[i+1] + "</Value></FilterRule>"
	}
	return s + "</S3Key></Filter>"
}

func doc(parts ...string) []byte {
	return []byte(`<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` + strings.Join(parts, "") + `</NotificationConfiguration>`)
}

func TestParseValid(t *testing.T) {
	for name, body := range map[string][]byte{
		"empty":    doc(),
		"one":      doc(queue("1", arnA, "", "s3:ObjectCreated:*")),
		"filtered": doc(queue("1", arnA, filter("prefix", "images/", "suffix", ".jpg"), "s3:ObjectCreated:Put")),
		// The User Guide's valid examples: disjoint prefixes; a common
		// prefix with disjoint suffixes; overlapping filters on
		// different event types.
		"disjoint prefixes": doc(queue("1", arnA, filter("prefix", "images/"), "s3:ObjectCreated:Put"),
			queue("2", arnB, filter("prefix", "logs/"), "s3:ObjectCreated:Put")),
		"disjoint suffixes": doc(queue("1", arnA, filter("prefix", "images", "suffix", ".jpg"), "s3:ObjectCreated:Put"),
			queue("2", arnB, filter("prefix", "images", "suffix", ".png"), "s3:ObjectCreated:Put")),
		"other events": doc(queue("1", arnA, filter("prefix", "image/"), "s3:ObjectCreated:Put"),
			queue("2", arnB, filter("prefix", "image/"), "s3:ObjectRemoved:*")),
		"case of names": doc(queue("1", arnA, filter("Prefix", "a", "SUFFIX", "b"), "s3:ObjectRemoved:DeleteMarkerCreated")),
		"every event": doc(queue("1", arnA, "", "s3:ObjectCreated:Post", "s3:ObjectCreated:Copy",
			"s3:ObjectCreated:CompleteMultipartUpload", "s3:ObjectRemoved:Delete", "s3:LifecycleExpiration:*")),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(body, targets, false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	for _, c := range []struct {
		name string
		body []byte
		code string // "" for ErrMalformed
		msg  string
	}{
		{"not xml", []byte("<Notif"), "", ""},
		{"no queue", doc(queue("1", "", "", "s3:ObjectCreated:*")), "", ""},
		{"no event", doc(queue("1", arnA, "")), "", ""},
		{"unknown target", doc(queue("1", "arn:jog:sqs:us-east-1:c:webhook", "", "s3:ObjectCreated:*")), CodeInvalidArgument, MsgUnvalidated},
		{"not a queue ARN", doc(queue("1", "arn:aws:sns:us-east-1:1:t", "", "s3:ObjectCreated:*")), CodeInvalidArgument, MsgUnvalidated},
		{"topic", doc("<TopicConfiguration><Topic>arn:aws:sns:us-east-1:1:t</Topic><Event>s3:ObjectCreated:*</Event></TopicConfiguration>"), CodeInvalidArgument, MsgUnvalidated},
		{"lambda", doc("<CloudFunctionConfiguration><CloudFunction>arn:aws:lambda:us-east-1:1:function:f</CloudFunction><Event>s3:ObjectCreated:*</Event></CloudFunctionConfiguration>"), CodeInvalidArgument, MsgUnvalidated},
		{"eventbridge", doc("<EventBridgeConfiguration></EventBridgeConfiguration>"), CodeNotImplemented, ""},
		{"unknown event", doc(queue("1", arnA, "", "s3:ObjectCreated:Nope")), CodeInvalidArgument, "The event is not supported for notifications"},
		{"event without s3:", doc(queue("1", arnA, "", "ObjectCreated:Put")), CodeInvalidArgument, "The event is not supported for notifications"},
		{"event JOG does not emit", doc(queue("1", arnA, "", "s3:ObjectTagging:Put")), CodeNotImplemented, ""},
		{"two prefixes", doc(queue("1", arnA, filter("prefix", "a", "prefix", "b"), "s3:ObjectCreated:*")), CodeInvalidArgument, "Cannot specify more than one prefix rule in a filter."},
		{"two suffixes", doc(queue("1", arnA, filter("suffix", "a", "suffix", "b"), "s3:ObjectCreated:*")), CodeInvalidArgument, "Cannot specify more than one suffix rule in a filter."},
		{"rule name", doc(queue("1", arnA, filter("infix", "a"), "s3:ObjectCreated:*")), CodeInvalidArgument, "filter rule name must be either prefix or suffix"},
		{"long value", doc(queue("1", arnA, filter("prefix", strings.Repeat("a", 1025)), "s3:ObjectCreated:*")), CodeInvalidArgument, ""},
		{"duplicate id", doc(queue("x", arnA, filter("prefix", "a/"), "s3:ObjectCreated:*"), queue("x", arnB, filter("prefix", "b/"), "s3:ObjectCreated:*")), CodeInvalidArgument, ""},
		// The User Guide's invalid examples.
		{"root prefix overlaps", doc(queue("1", arnA, "", "s3:ObjectCreated:*"), queue("2", arnB, filter("prefix", "images"), "s3:ObjectCreated:*")), CodeInvalidArgument, MsgOverlap},
		{"suffixes overlap", doc(queue("1", arnA, filter("suffix", "jpg"), "s3:ObjectCreated:*"), queue("2", arnB, filter("suffix", "pg"), "s3:ObjectCreated:Put")), CodeInvalidArgument, MsgOverlap},
		{"prefix and suffix overlap", doc(queue("1", arnA, filter("prefix", "images", "suffix", "jpg"), "s3:ObjectCreated:*"), queue("2", arnB, filter("suffix", "jpg"), "s3:ObjectCreated:Put")), CodeInvalidArgument, MsgOverlap},
		{"same event twice", doc(queue("1", arnA, "", "s3:ObjectRemoved:Delete"), queue("2", arnA, "", "s3:ObjectRemoved:*")), CodeInvalidArgument, MsgOverlap},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.body, targets, false)
			var ce *ConfigError
			switch {
			case c.code == "" && !errors.Is(err, ErrMalformed):
				t.Fatalf("got %v, want ErrMalformed", err)
			case c.code == "":
			case !errors.As(err, &ce):
				t.Fatalf("got %v, want a %s", err, c.code)
			case ce.Code != c.code || (c.msg != "" && ce.Msg != c.msg):
				t.Fatalf("got %s %q, want %s %q", ce.Code, ce.Msg, c.code, c.msg)
			}
		})
	}
}

// TestParseSkipTargets: x-amz-skip-destination-validation accepts a queue
// ARN no target answers to, never a malformed one.
func TestParseSkipTargets(t *testing.T) {
	if _, err := Parse(doc(queue("1", "arn:jog:sqs:us-east-1:gone:webhook", "", "s3:ObjectCreated:*")), targets, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(doc(queue("1", "not-an-arn", "", "s3:ObjectCreated:*")), targets, true); err == nil {
		t.Fatal("a malformed ARN accepted")
	}
}

// TestParseNormalises: an Id is given where none was sent (a UUID,
// base64-encoded, as S3's), rule names are S3's ("Prefix"), and the
// stored document reads back as S3 answers it.
func TestParseNormalises(t *testing.T) {
	c, err := Parse(doc(queue("", arnA, filter("PREFIX", "a/"), "s3:ObjectCreated:*"), queue("mine", arnB, "", "s3:ObjectRemoved:*")), targets, false)
	if err != nil {
		t.Fatal(err)
	}
	id, err := base64.StdEncoding.DecodeString(c.Queues[0].ID)
	if err != nil || len(id) != 36 || id[14] != '4' {
		t.Errorf("generated Id %q (%q): want a base64 UUID", c.Queues[0].ID, id)
	}
	if c.Queues[1].ID != "mine" {
		t.Errorf("Id %q, want mine", c.Queues[1].ID)
	}
	if n := c.Queues[0].Filter.Key.Rules[0].Name; n != "Prefix" {
		t.Errorf("rule name %q, want Prefix", n)
	}
	c.Queues[0].ID = "generated"
	c.Xmlns = "http://s3.amazonaws.com/doc/2006-03-01/"
	out, err := xml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `<NotificationConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
		`<QueueConfiguration><Id>generated</Id><Queue>` + arnA + `</Queue><Event>s3:ObjectCreated:*</Event>` +
		`<Filter><S3Key><FilterRule><Name>Prefix</Name><Value>a/</Value></FilterRule></S3Key></Filter></QueueConfiguration>` +
		`<QueueConfiguration><Id>mine</Id><Queue>` + arnB + `</Queue><Event>s3:ObjectRemoved:*</Event></QueueConfiguration>` +
		`</NotificationConfiguration>`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}
