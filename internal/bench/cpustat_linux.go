package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"
)

// clockTick is the unit of the CPU times in /proc: USER_HZ, which Linux
// fixes at 100 for user space on every architecture.
const clockTick = 10 * time.Millisecond

// pidCPU is the CPU time (user + system) process pid has used, from
// /proc/<pid>/stat.
func pidCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parsePidStat(b)
}

// parsePidStat reads utime + stime from the text of /proc/<pid>/stat.
func parsePidStat(b []byte) (time.Duration, error) {
	// The command name, field 2, is in parentheses and may hold spaces or
	// parentheses itself: the fields after it follow the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("bench: malformed /proc stat")
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, errors.New("bench: short /proc stat")
	}
	// f[0] is field 3 (state), so utime (14) and stime (15) are f[11], f[12].
	return ticks(f[11], f[12])
}

// machineBusy is the CPU time all of the machine's cores have spent busy
// (user, nice, system, irq, softirq; not idle, iowait or steal), from the
// first line of /proc/stat.
func machineBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(b)
}

// parseStat reads the busy time from the text of /proc/stat.
func parseStat(b []byte) (time.Duration, error) {
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 8 || string(f[0]) != "cpu" {
		return 0, errors.New("bench: malformed /proc/stat")
	}
	// cpu user nice system idle iowait irq softirq [steal ...]
	return ticks(f[1], f[2], f[3], f[6], f[7])
}

func ticks(fields ...[]byte) (time.Duration, error) {
	var n int64
	for _, f := range fields {
		v, err := strconv.ParseInt(string(f), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: /proc CPU time %q: %w", f, err)
		}
		n += v
	}
	return time.Duration(n) * clockTick, nil
}
