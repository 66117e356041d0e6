//go:build !linux

package qos

import "os"

// openDirect creates a calibration file in dir; O_DIRECT is Linux's.
func openDirect(dir string) (*os.File, bool, error) {
	f, err := os.OpenFile(dir+"/calibrate-"+NewID(), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	return f, false, err
}

func reopenDirect(path string) (*os.File, bool, error) {
	f, err := os.Open(path)
	return f, false, err
}

func alignedBuffer(n int) []byte { return make([]byte, n) }
