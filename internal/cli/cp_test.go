package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// testKey is a 32-byte SSE-C key in base64.
const testKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

func TestCpUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cp", "one"}, 2, "Usage: jog cp"},
		{[]string{"cp", "a", "b", "c"}, 2, "Usage: jog cp"},
		{[]string{"cp", "a", "b"}, 1, "one side must be s3://"},
		{[]string{"cp", "s3:///k", "b"}, 2, "names no bucket"},
		{[]string{"cp", "--part-size", "1MiB", "a", "s3://b/k"}, 2, "at least 5MiB"},
		{[]string{"cp", "a", "s3://b/k", "--endpoint", "ftp://x"}, 2, "invalid endpoint"},
		{[]string{"cp", "--sse", "AES128", "a", "s3://b/k"}, 2, "want AES256 or aws:kms"},
		{[]string{"cp", "--sse-kms-key-id", "k1", "a", "s3://b/k"}, 2, "needs --sse aws:kms"},
		{[]string{"cp", "--sse", "AES256", "--sse-c", testKey, "a", "s3://b/k"}, 2, "exclude each other"},
		{[]string{"cp", "--sse-c", "c2hvcnQ=", "a", "s3://b/k"}, 2, "32 bytes"},
		{[]string{"cp", "--sse-c", "@/no/such/key/file", "a", "s3://b/k"}, 2, "no such file"},
		{[]string{"cp", "--sse", "aws:kms", "s3://b/k", "a"}, 1, "apply to what is written"},
		{[]string{"cp", "--sse-c-copy-source", testKey, "a", "s3://b/k"}, 1, "--sse-c-copy-source is the source's key"},
	} {
		var out, errs bytes.Buffer
		code := Run(context.Background(), tc.args, &out, &errs)
		if code != tc.code || !strings.Contains(errs.String(), tc.want) {
			t.Errorf("jog %v: exit %d, stderr %q; want %d and %q", tc.args, code, errs.String(), tc.code, tc.want)
		}
	}
}
