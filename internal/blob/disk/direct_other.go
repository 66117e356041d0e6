//go:build !linux

package disk

import "os"

func probeDirect(string) bool { return false }

func setDirect(*os.File, bool) error { return nil }
