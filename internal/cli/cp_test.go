package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

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
	} {
		var out, errs bytes.Buffer
		code := Run(context.Background(), tc.args, &out, &errs)
		if code != tc.code || !strings.Contains(errs.String(), tc.want) {
			t.Errorf("jog %v: exit %d, stderr %q; want %d and %q", tc.args, code, errs.String(), tc.code, tc.want)
		}
	}
}
