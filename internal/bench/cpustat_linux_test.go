package bench

import (
	"crypto/sha256"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParsePidStat(t *testing.T) {
	// A command name with spaces and parentheses, as a process may set.
	line := "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 5000 0 0 0 731 269 0 0 20 0 12 0 1000 123456 789 18446744073709551615\n"
	got, err := parsePidStat([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if want := 1000 * clockTick; got != want { // utime 731 + stime 269 ticks
		t.Errorf("parsePidStat = %v, want %v", got, want)
	}
	for _, bad := range []string{"", "4242 (x) S 1 2", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 x 11"} {
		if _, err := parsePidStat([]byte(bad)); err == nil {
			t.Errorf("parsePidStat(%q): no error", bad)
		}
	}
}

func TestParseStat(t *testing.T) {
	text := "cpu  100 20 30 4000 50 6 7 800 0 0\ncpu0 50 10 15 2000 25 3 3 400 0 0\n"
	got, err := parseStat([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	// user + nice + system + irq + softirq; idle, iowait and steal are not busy.
	if want := (100 + 20 + 30 + 6 + 7) * clockTick; got != want {
		t.Errorf("parseStat = %v, want %v", got, want)
	}
	if _, err := parseStat([]byte("intr 1 2 3\n")); err == nil {
		t.Error("parseStat of a file without the cpu line: no error")
	}
}

// The meter's readings of a process that burns CPU: its own PID stands in
// for the server, so /proc's count must agree with getrusage's. The burn is
// counted in CPU time, not wall time, so a busy machine only makes it take
// longer.
func TestCPUMeterReadsProc(t *testing.T) {
	m := startCPU([]int{os.Getpid()})
	if !m.serverOK || !m.busyOK {
		t.Fatalf("readings at start: server %v, machine %v", m.serverOK, m.busyOK)
	}
	start, c0 := time.Now(), processCPU()
	sum := sha256.Sum256(nil)
	for processCPU()-c0 < 300*time.Millisecond {
		for range 1000 {
			sum = sha256.Sum256(sum[:])
		}
	}
	r := &Result{Seconds: time.Since(start).Seconds(), Total: OpResult{ObjPerSec: 100}}
	m.stop(r)
	client := time.Duration(r.ClientCPU * r.Seconds * float64(time.Second))
	server := time.Duration(r.ServerCPU * r.Seconds * float64(time.Second))
	machine := time.Duration(r.MachineCPU * r.Seconds * float64(time.Second))
	// /proc counts in 10 ms ticks, sampled: allow a few of them.
	if d := server - client; d < -50*time.Millisecond || d > 50*time.Millisecond {
		t.Errorf("the process's CPU: %v from /proc, %v from getrusage", server, client)
	}
	if machine < client-50*time.Millisecond {
		t.Errorf("the machine was busy %v, less than this process's %v", machine, client)
	}
	if got, want := r.CPUPerOp(r.ServerCPU), 1000*r.ServerCPU/100; got != want {
		t.Errorf("CPUPerOp = %v, want %v", got, want)
	}
	if line := cpuLine(r); !strings.HasPrefix(line, "CPU ms per op: server ") {
		t.Errorf("cpuLine = %q", line)
	}
}

// A server that is gone by the end leaves its reading out.
func TestCPUMeterServerGone(t *testing.T) {
	m := startCPU([]int{os.Getpid()})
	m.pids = []int{os.Getpid(), 1 << 30} // one of them no such process
	r := &Result{Seconds: 1, Total: OpResult{ObjPerSec: 1}}
	m.stop(r)
	if r.ServerCPU != 0 {
		t.Errorf("ServerCPU = %v for a process that is gone", r.ServerCPU)
	}
}
