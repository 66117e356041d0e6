package bench

import "time"

// cpuMeter takes the CPU readings a run reports beside its throughput: the
// bench process's own, the server's when its PID is known (a server on
// this machine; several gateways' summed), and the whole machine's. A
// reading that fails (not Linux, a server gone) is left out of the result
// rather than guessed.
type cpuMeter struct {
	pids                 []int
	client, server, busy time.Duration
	serverOK, busyOK     bool
}

// serversCPU is the CPU time the processes pids have used, summed.
func serversCPU(pids []int) (time.Duration, error) {
	var sum time.Duration
	for _, pid := range pids {
		t, err := pidCPU(pid)
		if err != nil {
			return 0, err
		}
		sum += t
	}
	return sum, nil
}

func startCPU(serverPIDs []int) *cpuMeter {
	m := &cpuMeter{pids: serverPIDs, client: processCPU()}
	var err error
	if len(serverPIDs) > 0 {
		m.server, err = serversCPU(serverPIDs)
		m.serverOK = err == nil
	}
	m.busy, err = machineBusy()
	m.busyOK = err == nil
	return m
}

// stop sets r's CPU figures, in cores (CPU seconds per second of r.Seconds).
func (m *cpuMeter) stop(r *Result) {
	if r.Seconds <= 0 {
		return
	}
	r.ClientCPU = (processCPU() - m.client).Seconds() / r.Seconds
	if m.serverOK {
		if t, err := serversCPU(m.pids); err == nil {
			r.ServerCPU = (t - m.server).Seconds() / r.Seconds
		}
	}
	if m.busyOK {
		if t, err := machineBusy(); err == nil {
			r.MachineCPU = (t - m.busy).Seconds() / r.Seconds
		}
	}
}

// CPUPerOp is CPU time per operation in milliseconds for a figure in cores
// (0 when nothing was measured).
func (r *Result) CPUPerOp(cores float64) float64 {
	if cores <= 0 || r.Total.ObjPerSec <= 0 {
		return 0
	}
	return 1000 * cores / r.Total.ObjPerSec
}
