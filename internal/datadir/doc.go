// Package datadir owns the layout of a JOG data dir: the names of the
// files in it that more than one package knows (the SQLite database, the
// generated credentials, the lock file, the blob store's temp dir) and the
// exclusive lock that keeps one process at a time working on it (a running
// server, or jog fsck --repair).
//
// It opens no store: internal/backend does, from the configuration.
package datadir
