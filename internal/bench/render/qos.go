package render

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// QoSBar is the share of its rate every reservation must achieve in
// bench/qos.sh (issue 41: every reservation ≥ 95% in every run).
const QoSBar = 0.95

// QoSRecord is one client's line in the qos.json that bench/qos.sh writes:
// what it reserved and what it achieved in one direction, in bytes/s and,
// for clients making small requests, in requests/s (a best-effort client
// reserved 0). Twin, on a best-effort client, names the reserved client
// whose requests it repeats without a reservation.
type QoSRecord struct {
	Direction   string  `json:"direction"`
	Client      string  `json:"client"`
	ReservedBps float64 `json:"reserved_bps"`
	AchievedBps float64 `json:"achieved_bps"`
	ReservedRps float64 `json:"reserved_rps,omitempty"`
	AchievedRps float64 `json:"achieved_rps,omitempty"`
	Twin        string  `json:"twin,omitempty"`
}

// qosUnit is one unit a record is measured in.
type qosUnit struct {
	name  string // as printed: MB/s, req/s
	label string // the chart's y axis
	file  string // the chart's file name after the direction
	scale float64
}

var (
	unitBytes    = qosUnit{"MB/s", "throughput", "", 1e6}
	unitRequests = qosUnit{"req/s", "requests", "-requests", 1}
)

// qosMeasure is a record in one unit.
type qosMeasure struct {
	QoSRecord
	unit               qosUnit
	reserved, achieved float64 // in the unit
}

// measures are r's figures that mean something: bytes/s for a client that
// reserved bytes or made no request count, requests/s for one that
// reserved or counted requests; a mixed reservation has both.
func (r QoSRecord) measures() []qosMeasure {
	var ms []qosMeasure
	counted := r.ReservedRps > 0 || r.AchievedRps > 0
	if r.ReservedBps > 0 || !counted {
		ms = append(ms, qosMeasure{r, unitBytes, r.ReservedBps / unitBytes.scale, r.AchievedBps / unitBytes.scale})
	}
	if counted {
		ms = append(ms, qosMeasure{r, unitRequests, r.ReservedRps, r.AchievedRps})
	}
	return ms
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

// QoS draws one chart per direction and unit, in the order the records
// give them: per client, the reserved and the achieved rate side by side,
// MB/s in qos-<direction>.svg and requests/s in
// qos-<direction>-requests.svg.
func QoS(title string, rs []QoSRecord) []Figure {
	type key struct {
		dir  string
		unit qosUnit
	}
	var keys []key
	by := map[key][]qosMeasure{}
	for _, r := range rs {
		for _, m := range r.measures() {
			k := key{r.Direction, m.unit}
			if _, ok := by[k]; !ok {
				keys = append(keys, k)
			}
			by[k] = append(by[k], m)
		}
	}
	var figs []Figure
	for _, k := range keys {
		ms := by[k]
		groups := make([]string, len(ms))
		reserved := Series{Name: "reserved"}
		achieved := Series{Name: "achieved"}
		for i, m := range ms {
			groups[i] = m.Client
			reserved.Y = append(reserved.Y, m.reserved)
			achieved.Y = append(achieved.Y, m.achieved)
		}
		c := Chart{Title: fmt.Sprintf("%s: %s, reserved and achieved per client", title, k.dir), XLabel: "client", YLabel: k.unit.label, YUnit: k.unit.name}
		figs = append(figs, Figure{File: "qos-" + k.dir + k.unit.file + ".svg", Title: k.dir + " " + k.unit.name, SVG: c.Bars(groups, []Series{reserved, achieved})})
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

// WriteQoSTable prints one line per client, direction and unit: reserved
// against achieved and the percentage, flagging a reservation below QoSBar
// and a reserved client that made fewer requests than its best-effort
// twin. It returns how many lines it flagged.
func WriteQoSTable(w io.Writer, rs []QoSRecord) (int, error) {
	type twinKey struct{ dir, holder string }
	twins := map[twinKey]float64{}
	for _, r := range rs {
		if r.Twin != "" {
			twins[twinKey{r.Direction, r.Twin}] = r.AchievedRps
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "direction\tclient\tunit\treserved\tachieved\t%\t")
	flagged := 0
	for _, r := range rs {
		for _, m := range r.measures() {
			res, pct := "-", "-"
			var notes []string
			if m.reserved > 0 {
				res, pct = fmt.Sprintf("%.1f", m.reserved), fmt.Sprintf("%.1f", 100*m.achieved/m.reserved)
			}
			below := m.reserved > 0 && m.achieved < QoSBar*m.reserved
			if below {
				notes = append(notes, fmt.Sprintf("BELOW %.0f%%", 100*QoSBar))
			}
			twin, hasTwin := twins[twinKey{r.Direction, r.Client}]
			hasTwin = hasTwin && m.unit == unitRequests
			slower := hasTwin && m.achieved < twin
			switch {
			case slower:
				notes = append(notes, fmt.Sprintf("SLOWER THAN ITS TWIN (%.1f)", twin))
			case hasTwin:
				notes = append(notes, fmt.Sprintf("%.1f× its twin", m.achieved/max(twin, 1e-9)))
			case r.Twin != "":
				notes = append(notes, "twin of "+r.Twin)
			}
			if below || slower {
				flagged++
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1f\t%s\t%s\n", r.Direction, r.Client, m.unit.name, res, m.achieved, pct, strings.Join(notes, ", "))
		}
	}
	return flagged, tw.Flush()
}
