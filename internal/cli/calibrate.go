package cli

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/units"
)

const calibrateUsage = `Usage: jog calibrate [--data-dir DIR] [--size 1GiB] [--dry-run]

Measures the sequential throughput of the data dir's disk — a file of
--size written in 1 MiB chunks (O_DIRECT where the file system allows it,
fsynced before the clock stops), then read back (O_DIRECT) — and saves it
in the data dir (qos.json) as the capacity throughput reservations are
admitted against where --qos-read-capacity / --qos-write-capacity are not
given (docs/QOS.md). It loads the disk: run it while the server is idle.

Flags:
`

// capacityFlag is a measured rate as a --qos-*-capacity value: rounded
// down to whole MB/s from 1 MB/s up, so that it reads easily and never
// promises more than was measured.
func capacityFlag(bytesPerSecond int64) string {
	if bytesPerSecond >= 1e6 {
		bytesPerSecond -= bytesPerSecond % 1e6
	}
	r := config.Rate(bytesPerSecond)
	return r.String()
}

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("jog calibrate", flag.ContinueOnError)
	fl.Usage = func() { fmt.Fprint(fl.Output(), calibrateUsage); fl.PrintDefaults() }
	dataDir := dataDirFlag(fl, "the data dir to measure")
	size := int64(1 << 30)
	fl.Func("size", "bytes to write and read back, e.g. 1GiB (default 1GiB)", func(s string) (err error) {
		size, err = units.ParseSize(s)
		return err
	})
	dry := fl.Bool("dry-run", false, "print the figures, do not save them")
	if code, done := parseFlags(fl, args, stdout, stderr); done {
		return code
	}
	if fl.NArg() != 0 || size <= 0 {
		fl.Usage()
		return 2
	}
	c, err := qos.Calibrate(ctx, *dataDir, size)
	if err != nil {
		fmt.Fprintln(stderr, "jog calibrate:", err)
		return 1
	}
	note := ""
	if !c.Direct {
		note = " (the file system refused O_DIRECT: the read may have come from the page cache)"
	}
	fmt.Fprintf(stdout, "write %s/s, read %s/s over %s%s\n", units.Human(float64(c.WriteBytesPerSecond)),
		units.Human(float64(c.ReadBytesPerSecond)), units.Human(float64(c.Size)), note)
	if *dry {
		fmt.Fprintf(stdout, "to use it: jog server --qos-read-capacity %s --qos-write-capacity %s\n",
			capacityFlag(c.ReadBytesPerSecond), capacityFlag(c.WriteBytesPerSecond))
		return 0
	}
	if err := qos.SaveCalibration(*dataDir, c); err != nil {
		fmt.Fprintln(stderr, "jog calibrate:", err)
		return 1
	}
	fmt.Fprintln(stdout, "saved in the data dir: the server admits reservations against it unless --qos-*-capacity say otherwise")
	return 0
}
