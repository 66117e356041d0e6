package render

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/bench"
)

var (
	tableRow  = regexp.MustCompile(`(?s)<tr>(.*?)</tr>`)
	tableCell = regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`)
)

// summaryOf reads the page's first table as one map per row, heading to cell.
func summaryOf(t *testing.T, page string) []map[string]string {
	t.Helper()
	start, end := strings.Index(page, "<table>"), strings.Index(page, "</table>")
	if start < 0 || end < start {
		t.Fatalf("no summary table in\n%s", page)
	}
	var heads []string
	var rows []map[string]string
	for i, tr := range tableRow.FindAllStringSubmatch(page[start:end], -1) {
		var cells []string
		for _, c := range tableCell.FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, c[1])
		}
		if i == 0 {
			heads = cells
			continue
		}
		if len(cells) != len(heads) {
			t.Fatalf("row %q under headings %q", cells, heads)
		}
		row := map[string]string{}
		for j, h := range heads {
			row[h] = cells[j]
		}
		rows = append(rows, row)
	}
	return rows
}

// The summary's headings say whose figure is under them: the client's
// machine and CPU under Client, the server's CPU (client_cpu_cores and
// server_cpu_cores in the JSON) under Server, with a dash for a result
// that has no server reading.
func TestSummaryColumnsTellClientFromServer(t *testing.T) {
	rs, err := bench.ReadFiles("testdata/summary.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, "t", rs, nil); err != nil {
		t.Fatal(err)
	}
	rows := summaryOf(t, b.String())
	want := []map[string]string{
		{"Server": "jog", "Workload": "put 64KiB c16", "MiB/s": "62.5", "obj/s": "1000", "p50 ms": "12.5", "p99 ms": "41.0",
			"Errors": "0", "Duration s": "20.0", "Client machine": "linux/amd64, 2 cores", "Client CPU cores": "0.42",
			"Server CPU cores": "1.37", "Server CPU ms/op": "1.370", "Machine CPU ms/op": "1.950"},
		{"Server": "minio", "Workload": "put 64KiB c16", "MiB/s": "31.2", "obj/s": "500", "p50 ms": "25.0", "p99 ms": "90.0",
			"Errors": "SlowDown 3", "Duration s": "20.0", "Client machine": "linux/amd64, 2 cores", "Client CPU cores": "0.31",
			"Server CPU cores": "—", "Server CPU ms/op": "—", "Machine CPU ms/op": "—"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d summary rows, want %d: %v", len(rows), len(want), rows)
	}
	for i, w := range want {
		for h, v := range w {
			if got, ok := rows[i][h]; !ok || got != v {
				t.Errorf("row %d, column %q: %q (present %v), want %q", i, h, got, ok, v)
			}
		}
		for h, v := range rows[i] {
			if strings.HasPrefix(h, "Client") && (strings.Contains(v, "1.37") || strings.Contains(v, "1.95")) {
				t.Errorf("column %q holds the server's or the machine's CPU: %q", h, v)
			}
		}
	}

	// Results without server readings get no empty server columns.
	b.Reset()
	if err := WriteHTML(&b, "t", rs[1:], nil); err != nil {
		t.Fatal(err)
	}
	for h := range summaryOf(t, b.String())[0] {
		if strings.Contains(h, "Server CPU") || strings.Contains(h, "Machine CPU") {
			t.Errorf("column %q with no reading in any result", h)
		}
	}
}
