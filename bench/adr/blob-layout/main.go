// Command blob-layout is the measurement behind docs/adr/0002-blob-layout.md:
// 1,000 writes of 4 KiB per blob layout variant, each with the fsyncs that
// variant needs, printed as ops/s and ms per write. It writes under a
// temporary directory in -dir (the disk to measure) and removes it after.
//
//	go run ./bench/adr/blob-layout -dir /data
package main

import (
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"
)

func id() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// must stops the measurement at the first failed file operation: a variant
// that skipped a failed write would look faster than it is.
func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func syncDir(d string) {
	f, err := os.Open(d)
	must(err)
	must(f.Sync())
	must(f.Close())
}

// write creates path with data, fsyncing it when sync is set.
func write(path string, data []byte, sync bool) {
	f, err := os.Create(path)
	must(err)
	_, err = f.Write(data)
	must(err)
	if sync {
		must(f.Sync())
	}
	must(f.Close())
}

// renameFanOut moves tmp to dir/name, creating dir on first use, and
// returns dir.
func renameFanOut(tmp, dir, name string) string {
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		must(os.MkdirAll(dir, 0o755))
		must(os.Rename(tmp, filepath.Join(dir, name)))
	}
	return dir
}

func main() {
	parent := flag.String("dir", os.TempDir(), "directory on the disk to measure")
	n := flag.Int("n", 1000, "writes per variant")
	flag.Parse()
	root, err := os.MkdirTemp(*parent, "layoutbench")
	must(err)
	defer func() { _ = os.RemoveAll(root) }()
	data := make([]byte, 4096)
	run := func(name string, fn func(i int)) {
		t := time.Now()
		for i := 0; i < *n; i++ {
			fn(i)
		}
		d := time.Since(t)
		fmt.Printf("%-45s %8.0f ops/s  %6.2f ms/op\n", name, float64(*n)/d.Seconds(), d.Seconds()*1000/float64(*n))
	}
	must(os.MkdirAll(filepath.Join(root, "tmp"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "flat"), 0o755))
	// A: write directly at final name, fsync file only (no rename, no dir fsync)
	run("A write+fsync (final name, no dir fsync)", func(i int) {
		write(filepath.Join(root, "flat", id()), data, true)
	})
	// B: write+fsync+dir fsync, flat dir
	run("B write+fsync+dirfsync (flat)", func(i int) {
		write(filepath.Join(root, "flat", id()), data, true)
		syncDir(filepath.Join(root, "flat"))
	})
	// C: tmp + fsync + rename into fan-out + dir fsync (JOG)
	run("C tmp+fsync+rename+dirfsync (ab/cd fan-out)", func(i int) {
		x := id()
		tmp := filepath.Join(root, "tmp", x)
		write(tmp, data, true)
		syncDir(renameFanOut(tmp, filepath.Join(root, "blobs", x[:2], x[2:4]), x))
	})
	// D: key-named files: mkdir -p parent dirs of key + tmp + rename + dir fsync (versitygw/rclone style)
	run("D key-named: mkdir -p + tmp+rename+dirfsync", func(i int) {
		key := fmt.Sprintf("photos/%03d/%05d.jpg", i%50, i)
		dst := filepath.Join(root, "keys", key)
		must(os.MkdirAll(filepath.Dir(dst), 0o755))
		tmp := filepath.Join(root, "tmp", id())
		write(tmp, data, true)
		must(os.Rename(tmp, dst))
		syncDir(filepath.Dir(dst))
	})
	// E: no fsync at all (what rclone/versitygw do by default)
	run("E tmp+rename, no fsync", func(i int) {
		x := id()
		tmp := filepath.Join(root, "tmp", x)
		write(tmp, data, false)
		renameFanOut(tmp, filepath.Join(root, "blobs2", x[:2], x[2:4]), x)
	})
}
