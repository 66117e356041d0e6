package meta

import "time"

// Store is a metadata backend: the six groups a reader thinks in, each in
// its own file with its contract, composed into the one interface servers
// and tools hold. A function that needs only one group takes that group's
// interface.
//
//	BucketStore       buckets and their configuration documents (buckets.go)
//	ObjectStore       object versions: read, write, delete, list (objects.go)
//	UploadStore       multipart uploads and their parts (multipart.go)
//	MaintenanceStore  whole-store walks for recovery and fsck (maintenance.go)
//	IAMStore          users, keys, groups, roles, policies (iam.go)
//	ReservationStore  throughput reservations and their admission (reservations.go)
//
// A feature adds its methods to the group it belongs to, and its cases to
// that group's entry point of the conformance suite (metatest): a bucket
// setting (lifecycle rules, policy, tags) is usually a configuration
// document and needs no new method; per-version state (version
// listings, delete markers, retention, object tags) goes to ObjectStore;
// a background walk (lifecycle expiry) to MaintenanceStore. State that
// belongs to no bucket (IAM users and policies) is a group of its own,
// IAMStore, so each group stays small enough to read whole.
//
// The contracts every group shares:
//
//   - All methods are safe for concurrent use.
//   - Not-found results are sentinels (errors.go): ErrBucketNotFound,
//     ErrObjectNotFound, ErrUploadNotFound, ErrNoSuchConfig, ErrNoSuchEntity; callers test
//     them with errors.Is.
//   - A method that changes objects or parts returns the blob IDs it freed:
//     those no metadata refers to once its transaction has committed (a
//     blob another object or part still names is not freed). The caller
//     deletes those blobs after the call returns, never before: a crash in
//     between leaves an orphan blob, which recovery removes, rather than a
//     missing one. On error nothing changed and nothing is freed.
//   - A Condition is checked inside the transaction that commits the
//     change, against the version that change replaces: no other write
//     comes between the check and the commit.
//
// Optional capabilities a backend may add are separate interfaces that
// callers discover with a type assertion (IndexChecker, Changes,
// CommitReporter): a backend says which it offers with a compile-time
// guard, var _ meta.IndexChecker = (*Store)(nil).
type Store interface {
	BucketStore
	ObjectStore
	UploadStore
	MaintenanceStore
	IAMStore
	ReservationStore

	// Close releases the store. No method may be called after it.
	Close() error
}

// Now is the clock stores use for timestamps, truncated to what S3 reports.
func Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
