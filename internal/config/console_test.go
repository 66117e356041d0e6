package config

import (
	"strings"
	"testing"
)

// TestConsoleListen: the console's own address is --console-addr, else
// --addr's host at the next port (port 0 beside port 0); none with
// "same" or the console off; an --addr it cannot follow, or a
// --console-addr that is no address, is refused by Validate.
func TestConsoleListen(t *testing.T) {
	for _, tc := range []struct {
		addr, console, want string
		off                 bool
	}{
		{":9000", "", ":9001", false},
		{"127.0.0.1:9000", "", "127.0.0.1:9001", false},
		{"[::1]:8080", "", "[::1]:8081", false},
		{"127.0.0.1:0", "", "127.0.0.1:0", false},
		{":9000", "10.0.0.1:7000", "10.0.0.1:7000", false},
		{":9000", ConsoleSame, "", false},
		{":9000", "", "", true},
	} {
		c := Default()
		c.Addr, c.ConsoleAddr, c.Console = tc.addr, tc.console, !tc.off
		got, err := c.ConsoleListen()
		if err != nil || got != tc.want {
			t.Errorf("--addr %q --console-addr %q console=%v: %q, %v; want %q", tc.addr, tc.console, !tc.off, got, err, tc.want)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("--addr %q --console-addr %q: %v", tc.addr, tc.console, err)
		}
	}
	for _, tc := range []struct{ addr, console, s3URL, want string }{
		{":65535", "", "", "set --console-addr"},
		{":http", "", "", "set --console-addr"},
		{":9000", "9001", "", "--console-addr \"9001\""},
		{":9000", "", "s3.example.com", "--console-s3-url"},
		{":9000", "", "https://s3.example.com/path", "--console-s3-url"},
	} {
		c := Default()
		c.Addr, c.ConsoleAddr, c.ConsoleS3URL = tc.addr, tc.console, tc.s3URL
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--addr %q --console-addr %q --console-s3-url %q: %v, want an error saying %q", tc.addr, tc.console, tc.s3URL, err, tc.want)
		}
	}
}
