//go:build !linux

package disk

import (
	"errors"
	"os"
)

var errNoPacks = errors.New("packs need Linux hole punching")

func probePacks(string, string) bool { return false }

func punchHole(*os.File, int64, int64) error { return errNoPacks }

func nextData(*os.File, int64) (int64, bool, error) { return 0, false, errNoPacks }

func noData(*os.File) (bool, error) { return false, errNoPacks }

func fdatasync(f *os.File) error { return f.Sync() }

func lockShared(*os.File) error { return errNoPacks }

func tryLockExclusive(*os.File) bool { return false }
