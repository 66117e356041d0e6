// Package datadir owns the layout of a JOG data dir: the names of the
// files in it that more than one package knows (the SQLite database, the
// generated credentials, the lock file, the blob store's temp dir) and the
// lock on it: exclusive for a process that needs it alone (a server with
// the embedded SQLite store, jog fsck --repair), shared by the gateways
// that serve one namespace from an external metadata store.
//
// It opens no store: internal/storage does, from the configuration.
package datadir
