package config

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"
)

// ConsoleSame is the --console-addr that serves the web console at
// /console/ on the S3 port, on the objects' origin (ADR 0025).
const ConsoleSame = "same"

// ConsoleListen is the address the web console listens on, of its own:
// --console-addr, or without it --addr's host with the next port (:9001
// beside :9000; port 0, any free port, beside port 0). It is "" when the
// console is off or served on the S3 port (ConsoleSame).
func (c Config) ConsoleListen() (string, error) {
	switch {
	case !c.Console || c.ConsoleAddr == ConsoleSame:
		return "", nil
	case c.ConsoleAddr != "":
		if _, _, err := net.SplitHostPort(c.ConsoleAddr); err != nil {
			return "", fmt.Errorf("--console-addr %q: want host:port, :port or %s (%v)", c.ConsoleAddr, ConsoleSame, err)
		}
		return c.ConsoleAddr, nil
	}
	host, port, err := net.SplitHostPort(c.Addr)
	n, perr := strconv.Atoi(port)
	if err != nil || perr != nil || n < 0 || n >= 65535 {
		return "", fmt.Errorf("the console's address cannot be derived from --addr %q (its port + 1): set --console-addr (or %s)", c.Addr, ConsoleSame)
	}
	if n > 0 {
		n++
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// validateConsole checks the console's settings.
func (c Config) validateConsole() []error {
	if !c.Console {
		return nil
	}
	var errs []error
	if _, err := c.ConsoleListen(); err != nil {
		errs = append(errs, err)
	}
	if c.ConsoleS3URL != "" {
		u, err := url.Parse(c.ConsoleS3URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("--console-s3-url %q: want the S3 endpoint's origin, http(s)://host[:port]", c.ConsoleS3URL))
		}
	}
	if c.ConsoleSession < 15*time.Minute || c.ConsoleSession > 36*time.Hour {
		errs = append(errs, fmt.Errorf("--console-session %v: want 15m to 36h, as STS sessions", c.ConsoleSession))
	}
	return errs
}
