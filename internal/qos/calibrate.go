package qos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta"
)

// Calibration is what `jog calibrate` measured of a data dir: sequential
// throughput of large writes (made durable: fsync before the clock stops)
// and of large reads, in bytes per second, kept in the data dir
// (datadir.QoSFile) as the capacity reservations are admitted against.
type Calibration struct {
	ReadBytesPerSecond  int64     `json:"readBytesPerSecond"`
	WriteBytesPerSecond int64     `json:"writeBytesPerSecond"`
	Size                int64     `json:"size"`   // bytes written, then read
	Direct              bool      `json:"direct"` // the read bypassed the page cache (O_DIRECT)
	Measured            time.Time `json:"measured"`
}

// Capacity is the calibration as a capacity.
func (c Calibration) Capacity() meta.Capacity {
	return meta.Capacity{Read: c.ReadBytesPerSecond, Write: c.WriteBytesPerSecond}
}

// calibrationChunk is the size of each write and read: large, sequential
// transfers, as the reservations' clients make (multipart parts).
const calibrationChunk = 1 << 20

// Calibrate measures the sequential write and read throughput of a file of
// size bytes (rounded up to a MiB) in dir's temp directory, and removes
// it. Writes go through O_DIRECT where the file system allows it, and the
// file is fsynced before the write clock stops; the read uses O_DIRECT
// too (Calibration.Direct), else it may be served from the page cache
// and overstate the disk.
func Calibrate(ctx context.Context, dir string, size int64) (Calibration, error) {
	n := max((size+calibrationChunk-1)/calibrationChunk, 1)
	tmp := filepath.Join(dir, datadir.TempDir)
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return Calibration{}, err
	}
	f, direct, err := openDirect(tmp)
	if err != nil {
		return Calibration{}, err
	}
	path := f.Name()
	defer os.Remove(path)
	buf := alignedBuffer(calibrationChunk)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // not zeros: nothing may compress or skip them
	}
	start := time.Now()
	for i := int64(0); i < n; i++ {
		if err := ctx.Err(); err != nil {
			f.Close()
			return Calibration{}, err
		}
		if _, err := f.Write(buf); err != nil {
			f.Close()
			return Calibration{}, fmt.Errorf("calibrate: write: %w", err)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return Calibration{}, err
	}
	wrote := time.Since(start)
	if err := f.Close(); err != nil {
		return Calibration{}, err
	}
	r, rdirect, err := reopenDirect(path)
	if err != nil {
		return Calibration{}, err
	}
	defer r.Close()
	start = time.Now()
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return Calibration{}, err
		}
		m, err := r.Read(buf)
		total += int64(m)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Calibration{}, fmt.Errorf("calibrate: read: %w", err)
		}
	}
	read := time.Since(start)
	bytes := n * calibrationChunk
	if total != bytes {
		return Calibration{}, fmt.Errorf("calibrate: read back %d bytes of %d", total, bytes)
	}
	return Calibration{
		WriteBytesPerSecond: rate(bytes, wrote), ReadBytesPerSecond: rate(bytes, read),
		Size: bytes, Direct: direct && rdirect, Measured: time.Now().UTC().Truncate(time.Second),
	}, nil
}

func rate(n int64, d time.Duration) int64 {
	if d <= 0 {
		d = time.Nanosecond
	}
	return int64(float64(n) / d.Seconds())
}

// SaveCalibration writes c to dir's datadir.QoSFile.
func SaveCalibration(dir string, c Calibration) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, datadir.QoSFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o640); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, datadir.QoSFile))
}

// LoadCalibration reads dir's datadir.QoSFile; ok is false when there is
// none.
func LoadCalibration(dir string) (c Calibration, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, datadir.QoSFile))
	if errors.Is(err, os.ErrNotExist) {
		return Calibration{}, false, nil
	}
	if err != nil {
		return Calibration{}, false, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return Calibration{}, false, fmt.Errorf("%s: %w", datadir.QoSFile, err)
	}
	return c, true, nil
}
