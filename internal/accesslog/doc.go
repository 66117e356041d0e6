// Package accesslog is JOG's access log: one line per S3 request, in JSON
// or logfmt-style text, written by an s3api.Observer (Logger) through a
// Writer that never makes a request wait on the disk.
//
// A request appends its line to an in-memory buffer under a mutex; a
// background goroutine writes the buffer out every FlushInterval, or as
// soon as it holds FlushSize bytes. While the disk is slow the buffer
// grows up to MaxBuffer; lines beyond it are dropped and counted
// (Writer.Dropped), and the drops are reported once per flush through
// the error callback, rather than any request blocking. The file is
// reopened by Reopen (SIGUSR1 after logrotate moved it), so rotation
// loses nothing. internal/bucketlog spools S3 server access log records
// through the same Writer.
package accesslog
