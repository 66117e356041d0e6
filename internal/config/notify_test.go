package config

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/durq"
)

// TestNotifySettings: targets from flags (repeated), variables and the
// config file (space-separated), the command line replacing the
// environment, the checks, and the secrets --print-config masks.
func TestNotifySettings(t *testing.T) {
	c, _, err := load(t, "notify-nats = \"bus=nats://u:pw-nats@127.0.0.1:4222/jog\"\nnotify-queue-max = \"64MiB\"\n",
		map[string]string{"JOG_NOTIFY_WEBHOOK": "x=http://ignored/", "JOG_NOTIFY_WEBHOOK_TOKEN": "a=tok-a b=tok-b"},
		"--notify-webhook", "a=http://127.0.0.1:8080/in", "--notify-webhook", "b=https://hooks.example/b")
	if err != nil {
		t.Fatal(err)
	}
	specs, err := c.NotifyTargets()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.ARN("us-east-1")+" "+s.URL+" "+s.Token)
	}
	want := "arn:jog:sqs:us-east-1:a:webhook http://127.0.0.1:8080/in tok-a|" +
		"arn:jog:sqs:us-east-1:b:webhook https://hooks.example/b tok-b|" +
		"arn:jog:sqs:us-east-1:bus:nats nats://u:pw-nats@127.0.0.1:4222/jog "
	if strings.Join(got, "|") != want {
		t.Errorf("targets\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if c.Notify.QueueMax != 64<<20 || Default().Notify.QueueMax != durq.DefaultMaxBytes {
		t.Errorf("queue max %d", c.Notify.QueueMax)
	}
	for _, args := range [][]string{
		{"--notify-webhook", "a=http://h/", "--notify-nats", "a=nats://h:4222/s"},
		{"--notify-webhook", "a=ftp://h/"},
		{"--notify-webhook-token", "nope=t"},
		{"--notify-queue-max", "1KiB"},
	} {
		if _, err := parse(t, nil, args...); err == nil || !strings.Contains(err.Error(), "--notify-") {
			t.Errorf("%v: %v, want an error naming the flag", args, err)
		}
	}
	_, l, err := load(t, "", map[string]string{"JOG_NOTIFY_WEBHOOK_TOKEN": "a=tok-a"},
		"--notify-webhook", "a=http://127.0.0.1/", "--notify-nats", "bus=nats://u:pw-nats@127.0.0.1:4222/jog")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := l.WriteTOML(&out); err != nil {
		t.Fatal(err)
	}
	var help bytes.Buffer
	c = Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(&help)
	c.BindFlags(fs, func(k string) string {
		return map[string]string{"JOG_NOTIFY_WEBHOOK_TOKEN": "a=tok-a", "JOG_NOTIFY_NATS": "bus=nats://u:pw-nats@h:4222/s"}[k]
	})
	fs.PrintDefaults()
	if strings.Contains(help.String(), "tok-a") || strings.Contains(help.String(), "pw-nats") {
		t.Errorf("-h shows a secret from the environment:\n%s", help.String())
	}
	if s := out.String(); strings.Contains(s, "tok-a") || strings.Contains(s, "pw-nats") || !strings.Contains(s, "a=http://127.0.0.1/") {
		t.Errorf("--print-config shows a secret or hides the webhook:\n%s", s)
	}
}
