package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// QoSRecord is one client's line in the qos.json that bench/qos.sh writes:
// what it reserved and what it achieved in one direction, in bytes/s (a
// best-effort client reserved 0).
type QoSRecord struct {
	Direction   string  `json:"direction"`
	Client      string  `json:"client"`
	ReservedBps float64 `json:"reserved_bps"`
	AchievedBps float64 `json:"achieved_bps"`
}

// ReadQoS reads a qos.json.
func ReadQoS(path string) ([]QoSRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []QoSRecord
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rs, nil
}

// QoS draws one chart per direction, in the order the records give them:
// per client, the reserved and the achieved MB/s side by side.
func QoS(title string, rs []QoSRecord) []Figure {
	var dirs []string
	byDir := map[string][]QoSRecord{}
	for _, r := range rs {
		if _, ok := byDir[r.Direction]; !ok {
			dirs = append(dirs, r.Direction)
		}
		byDir[r.Direction] = append(byDir[r.Direction], r)
	}
	var figs []Figure
	for _, d := range dirs {
		recs := byDir[d]
		groups := make([]string, len(recs))
		reserved := Series{Name: "reserved"}
		achieved := Series{Name: "achieved"}
		for i, r := range recs {
			groups[i] = r.Client
			reserved.Y = append(reserved.Y, r.ReservedBps/1e6)
			achieved.Y = append(achieved.Y, r.AchievedBps/1e6)
		}
		c := Chart{Title: fmt.Sprintf("%s: %s, reserved and achieved per client", title, d), XLabel: "client", YLabel: "throughput", YUnit: "MB/s"}
		figs = append(figs, Figure{File: "qos-" + d + ".svg", Title: d, SVG: c.Bars(groups, []Series{reserved, achieved})})
	}
	return figs
}

// WriteQoS writes QoS's charts into dir and returns their paths.
func WriteQoS(dir, title string, rs []QoSRecord) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range QoS(title, rs) {
		p := filepath.Join(dir, f.File)
		if err := os.WriteFile(p, []byte(f.SVG), 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
