package cli

import "testing"

func TestServerProcs(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOMAXPROCS" {
				return v
			}
			return ""
		}
	}
	if got := serverProcs(env(""), 2); got != 3 {
		t.Errorf("default on 2 CPUs: %d, want 3", got)
	}
	if got := serverProcs(env("2"), 2); got != 2 {
		t.Errorf("with GOMAXPROCS=2: %d, want 2 (the user's choice)", got)
	}
}
