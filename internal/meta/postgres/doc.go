// Package postgres is the PostgreSQL metadata store (issue 24, ADR 0018):
// the same meta.Store as internal/meta/sqlite, for many stateless gateways
// sharing one database (`jog server --meta postgres://…`). It passes the
// same conformance suite (internal/meta/metatest).
//
// # Concurrency
//
// SQLite has one writer, so its transactions are serial. Here many
// gateways' transactions run at once, at PostgreSQL's READ COMMITTED
// isolation, and the store serialises what must be serial with locks taken
// in a fixed order, so that two transactions never wait on each other in
// opposite orders:
//
//  1. The bucket's row: FOR KEY SHARE by every transaction that changes the
//     bucket's objects, versions, uploads or parts (many at once; FOR NO
//     KEY UPDATE, one at a time, in a bucket known to have a quota, whose
//     usage trigger updates the row: startWrite), FOR UPDATE by DeleteBucket, SetBucketQuota, SetBucketVersioning and
//     EnableObjectLock, which therefore wait for those in flight and are
//     waited for by those that follow (lockBucket): a write reads the
//     bucket's versioning, object lock and quota under its shared lock,
//     and they hold until it commits.
//  2. The key: a transaction-scoped advisory lock on (bucket id, hash of
//     the key) before reading the version a write replaces (keyLockSQL). A
//     condition (If-Match, If-None-Match) is checked and the write made
//     under it, so two gateways' conditional writes to one key are
//     serial; a hash collision only serialises two keys needlessly.
//     Writes that change several keys (none today) lock them in key order.
//  3. Rows, as the statements take them.
//
// A transaction that fails with a serialization failure or a deadlock is
// retried from the start (inTx).
//
// # What is not here
//
// No cache: several gateways share the database, and a value cached in one
// would be stale after another's change. Bucket IDs are looked up in the
// statement that needs them (a join or a subquery on the unique name).
// What gateways cache above the store (bucket configurations, IAM,
// reservations, the console's signed-out sessions) the store announces
// instead (meta.Changes, notify.go): triggers NOTIFY their changes at
// commit, and a listener connection relays them.
package postgres
