//go:build !linux

package bench

import (
	"errors"
	"time"
)

var errNoProcStat = errors.New("bench: server and machine CPU are read from Linux's /proc")

func pidCPU(int) (time.Duration, error) { return 0, errNoProcStat }

func machineBusy() (time.Duration, error) { return 0, errNoProcStat }
