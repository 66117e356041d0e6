package cli

import (
	"os"
	"runtime"
)

// serverProcs is the GOMAXPROCS the server runs with: one more than the Go
// default (the CPUs the process may use), unless $GOMAXPROCS sets it.
//
// A goroutine blocked in fdatasync or fsync keeps its P (the right to run
// Go code) until the runtime's monitor notices and hands it off; on a
// small machine that leaves a core idle while requests wait to run. One
// spare P keeps the cores busy while a commit waits for the disk (ADR 0008:
// PUT 1 MiB +17%, mixed 1 MiB +12% on 2 cores; small requests within
// noise).
func serverProcs(getenv func(string) string, current int) int {
	if getenv("GOMAXPROCS") != "" {
		return current
	}
	return current + 1
}

// setServerProcs applies serverProcs and returns the value in force.
func setServerProcs() int {
	n := serverProcs(os.Getenv, runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(n)
	return n
}
