// Package storage opens a data dir's storage from the configuration: the
// metadata store named by --meta (config.MetaBackends: SQLite in
// <data-dir>/jog.db, or a PostgreSQL database, the data dir then holding
// blobs only) and the blob store (disk, in the data dir). It is the one
// opener, not a store: the stores live in internal/meta/... and
// internal/blob/.... It takes the data dir's lock (internal/datadir) for as
// long as the stores are open — exclusive with SQLite, shared among the
// gateways of an external metadata store — applies the settings each store
// understands (--fsync, --pack-max) and hands them back behind interfaces
// (meta.Store, blob.Store): the server, jog fsck and later tools open
// stores here and import no store package.
//
// A new metadata backend is one entry in metaBackends and one name in
// config.MetaBackends (config.MetaBackend maps a --meta value to it).
package storage
