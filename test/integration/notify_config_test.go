package integration

// PutBucketNotificationConfiguration and GetBucketNotificationConfiguration
// through aws-sdk-go-v2 against a real server: S3's answers to what cannot
// be stored, the stored document read back as S3 answers it. The server
// here has no notification target, so every queue ARN fails validation
// unless x-amz-skip-destination-validation says to skip it; the delivery
// of events to configured targets is test/notify's (notify-queue).

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/jogstore/jog/test/integration/itest"
)

const notifyQueueARN = "arn:jog:sqs:us-east-1:hook:webhook"

func TestNotificationConfiguration(t *testing.T) {
	_, c := itest.StartBucket(t, "ntf")
	ctx := context.Background()
	b := aws.String("ntf")
	put := func(nc types.NotificationConfiguration, skip bool) error {
		in := &s3.PutBucketNotificationConfigurationInput{Bucket: b, NotificationConfiguration: &nc}
		if skip {
			in.SkipDestinationValidation = aws.Bool(true)
		}
		_, err := c.PutBucketNotificationConfiguration(ctx, in)
		return err
	}
	get := func() *s3.GetBucketNotificationConfigurationOutput {
		t.Helper()
		out, err := c.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: b})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	queue := func(events []types.Event, rules ...types.FilterRule) types.QueueConfiguration {
		q := types.QueueConfiguration{QueueArn: aws.String(notifyQueueARN), Events: events}
		if len(rules) > 0 {
			q.Filter = &types.NotificationConfigurationFilter{Key: &types.S3KeyFilter{FilterRules: rules}}
		}
		return q
	}
	rule := func(name types.FilterRuleName, v string) types.FilterRule {
		return types.FilterRule{Name: name, Value: aws.String(v)}
	}
	created := []types.Event{"s3:ObjectCreated:*"}

	if out := get(); len(out.QueueConfigurations) != 0 {
		t.Fatalf("a new bucket: %+v", out.QueueConfigurations)
	}

	for _, tc := range []struct {
		name   string
		nc     types.NotificationConfiguration
		skip   bool
		status int
		code   string
		msg    string
	}{
		{"no such target", types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{queue(created)}},
			false, 400, "InvalidArgument", "Unable to validate the following destination configurations"},
		{"SNS topic", types.NotificationConfiguration{TopicConfigurations: []types.TopicConfiguration{{TopicArn: aws.String("arn:aws:sns:us-east-1:111122223333:t"), Events: created}}},
			true, 400, "InvalidArgument", "Unable to validate the following destination configurations"},
		{"Lambda", types.NotificationConfiguration{LambdaFunctionConfigurations: []types.LambdaFunctionConfiguration{{LambdaFunctionArn: aws.String("arn:aws:lambda:us-east-1:111122223333:function:f"), Events: created}}},
			true, 400, "InvalidArgument", "Unable to validate the following destination configurations"},
		{"EventBridge", types.NotificationConfiguration{EventBridgeConfiguration: &types.EventBridgeConfiguration{}},
			true, 501, "NotImplemented", ""},
		{"unknown event", types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{queue([]types.Event{"s3:ObjectCreated:Nope"})}},
			true, 400, "InvalidArgument", "The event is not supported for notifications"},
		{"overlap", types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{
			queue(created, rule("prefix", "images/")), queue([]types.Event{"s3:ObjectCreated:Put"}, rule("prefix", "images/2026/"))}},
			true, 400, "InvalidArgument", "Configurations overlap. Configurations on the same bucket cannot share a common event type."},
		{"two prefixes", types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{queue(created, rule("prefix", "a"), rule("prefix", "b"))}},
			true, 400, "InvalidArgument", "Cannot specify more than one prefix rule in a filter."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := put(tc.nc, tc.skip)
			code, status := itest.ErrInfo(err)
			var ae smithy.APIError
			msg := ""
			if errors.As(err, &ae) {
				msg = ae.ErrorMessage()
			}
			if status != tc.status || code != tc.code || (tc.msg != "" && msg != tc.msg) {
				t.Fatalf("got %d %s %q (%v), want %d %s %q", status, code, msg, err, tc.status, tc.code, tc.msg)
			}
			if out := get(); len(out.QueueConfigurations) != 0 {
				t.Fatalf("a refused PUT stored %+v", out.QueueConfigurations)
			}
		})
	}

	// Accepted with x-amz-skip-destination-validation: read back as S3
	// answers it, with an Id generated where none was sent.
	nc := types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{
		queue(created, rule("prefix", "images/"), rule("suffix", ".jpg")),
		{Id: aws.String("removals"), QueueArn: aws.String(notifyQueueARN), Events: []types.Event{"s3:ObjectRemoved:*", "s3:LifecycleExpiration:Delete"}},
	}}
	if err := put(nc, true); err != nil {
		t.Fatal(err)
	}
	out := get()
	if len(out.QueueConfigurations) != 2 {
		t.Fatalf("read back %+v", out.QueueConfigurations)
	}
	q0, q1 := out.QueueConfigurations[0], out.QueueConfigurations[1]
	if id, err := base64.StdEncoding.DecodeString(aws.ToString(q0.Id)); err != nil || len(id) != 36 {
		t.Errorf("generated Id %q: want a base64 UUID", aws.ToString(q0.Id))
	}
	if aws.ToString(q0.QueueArn) != notifyQueueARN || len(q0.Events) != 1 || q0.Events[0] != "s3:ObjectCreated:*" ||
		q0.Filter == nil || len(q0.Filter.Key.FilterRules) != 2 ||
		q0.Filter.Key.FilterRules[0].Name != "Prefix" || aws.ToString(q0.Filter.Key.FilterRules[0].Value) != "images/" ||
		q0.Filter.Key.FilterRules[1].Name != "Suffix" || aws.ToString(q0.Filter.Key.FilterRules[1].Value) != ".jpg" {
		t.Errorf("first configuration %+v", q0)
	}
	if aws.ToString(q1.Id) != "removals" || len(q1.Events) != 2 || q1.Filter != nil {
		t.Errorf("second configuration %+v", q1)
	}

	// An empty configuration removes it; a missing bucket is NoSuchBucket.
	if err := put(types.NotificationConfiguration{}, false); err != nil {
		t.Fatal(err)
	}
	if out := get(); len(out.QueueConfigurations) != 0 {
		t.Fatalf("after an empty PUT: %+v", out.QueueConfigurations)
	}
	_, err := c.GetBucketNotificationConfiguration(ctx, &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String("ntf-missing")})
	if code, status := itest.ErrInfo(err); code != "NoSuchBucket" || status != http.StatusNotFound {
		t.Errorf("missing bucket: %d %s", status, code)
	}
}
