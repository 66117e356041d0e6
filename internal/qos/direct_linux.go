package qos

import (
	"os"
	"syscall"
	"unsafe"
)

// openDirect creates a calibration file in dir with O_DIRECT, or without
// it where the file system refuses it (tmpfs): direct says which.
func openDirect(dir string) (f *os.File, direct bool, err error) {
	name := dir + "/calibrate-" + NewID()
	f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_DIRECT, 0o640)
	if err == nil {
		return f, true, nil
	}
	f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	return f, false, err
}

// reopenDirect opens path to read it with O_DIRECT where allowed.
func reopenDirect(path string) (*os.File, bool, error) {
	if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECT, 0); err == nil {
		return f, true, nil
	}
	f, err := os.Open(path)
	return f, false, err
}

// alignedBuffer returns n bytes aligned to 4 KiB, as O_DIRECT requires.
func alignedBuffer(n int) []byte {
	const align = 4096
	b := make([]byte, n+align)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&b[0])) & (align - 1)); r != 0 {
		off = align - r
	}
	return b[off : off+n]
}
