package qos

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/jogstore/jog/internal/datadir"
)

// TestCalibrate measures a 2 MiB file (a check of the mechanics, not of
// a disk: no figure is asserted but that there is one), leaves nothing
// behind, and round-trips the result through the data dir.
func TestCalibrate(t *testing.T) {
	dir := t.TempDir()
	c, err := Calibrate(t.Context(), dir, 2<<20-1)
	if err != nil {
		t.Fatal(err)
	}
	if c.Size != 2<<20 || c.ReadBytesPerSecond <= 0 || c.WriteBytesPerSecond <= 0 || c.Measured.IsZero() {
		t.Errorf("Calibrate = %+v", c)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, datadir.TempDir)); len(left) != 0 {
		t.Errorf("calibration left %d files in tmp/", len(left))
	}
	if _, ok, err := LoadCalibration(dir); ok || err != nil {
		t.Errorf("LoadCalibration before any save: %v, %v", ok, err)
	}
	if err := SaveCalibration(dir, c); err != nil {
		t.Fatal(err)
	}
	got, ok, err := LoadCalibration(dir)
	if err != nil || !ok || got.Capacity() != c.Capacity() || !got.Measured.Equal(c.Measured) {
		t.Errorf("LoadCalibration = %+v, %v, %v; want %+v", got, ok, err, c)
	}
	_ = os.WriteFile(filepath.Join(dir, datadir.QoSFile), []byte("{"), 0o600)
	if _, _, err := LoadCalibration(dir); err == nil {
		t.Error("a damaged qos.json loaded")
	}
}
