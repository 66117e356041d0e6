package disk

import (
	"os"
	"path/filepath"
	"syscall"
)

// directFlag opens a file for direct I/O: writes go from the process's
// buffer to the device without a copy into the page cache.
const directFlag = syscall.O_DIRECT

// probeDirect reports whether files in dir can be written with O_DIRECT
// (tmpfs and some network file systems refuse it).
func probeDirect(dir string) bool {
	name := filepath.Join(dir, ".direct-probe-"+newID())
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|directFlag, 0o640)
	if err != nil {
		return false
	}
	defer os.Remove(name)
	defer f.Close()
	buf := alignedBuf(directAlign)
	_, err = f.Write(buf)
	return err == nil
}

// setDirect turns O_DIRECT on or off for f.
func setDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if e != 0 {
			ferr = e
			return
		}
		flags &^= syscall.O_DIRECT
		if on {
			flags |= syscall.O_DIRECT
		}
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFL, flags); e != 0 {
			ferr = e
		}
	})
	if err != nil {
		return err
	}
	return ferr
}
