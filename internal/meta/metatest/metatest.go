// Package metatest is the conformance suite every meta.Store implementation
// runs (meta/sqlite always, meta/postgres against a throwaway cluster):
//
//	func TestConformance(t *testing.T) {
//		metatest.Run(t, func(t *testing.T) meta.Store { return openFresh(t) })
//	}
//
// It is organised as meta.Store is, one entry point per group: RunBuckets,
// RunObjects, RunUploads, RunMaintenance, RunIAM, RunReservations and RunSessions, and Run for them all, so a new
// backend can be brought up and tested group by group. Cases set up and
// cross-check through other groups where the contract spans them: every
// group needs CreateBucket; RunBuckets puts and deletes objects to test
// buckets that are not empty; RunObjects checks what writes free with
// UnreferencedBlobs and inline data with ScanObjects; RunMaintenance scans
// multipart objects. A backend that lacks a group can embed meta.Store in
// its type to compile, and run the groups whose cases it can serve.
//
// It uses only the meta.Store interface. Each case runs as a subtest on a
// fresh, empty store; the large listing case (100,000 keys) is skipped under
// go test -short.
package metatest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Opener returns a new, empty store for each call; the suite closes it when
// the subtest ends (the opener must not).
type Opener func(t *testing.T) meta.Store

// Run runs the whole conformance suite: every group's cases.
func Run(t *testing.T, open Opener) {
	RunBuckets(t, open)
	RunObjects(t, open)
	RunUploads(t, open)
	RunMaintenance(t, open)
	RunIAM(t, open)
	RunReservations(t, open)
	RunSessions(t, open)
}

// RunBuckets runs the cases of meta.BucketStore: buckets (Buckets/...) and
// their configuration documents (Configs/...).
func RunBuckets(t *testing.T, open Opener) { run(t, open, bucketCases) }

// RunObjects runs the cases of meta.ObjectStore: object versions
// (Objects/...), write conditions (Conditions/...) and racing conditional
// writers (Concurrency/...), and listings (List/...).
func RunObjects(t *testing.T, open Opener) { run(t, open, objectCases) }

// RunUploads runs the cases of meta.UploadStore (Multipart/...).
func RunUploads(t *testing.T, open Opener) { run(t, open, uploadCases) }

// RunMaintenance runs the cases of meta.MaintenanceStore: the version
// scan (Objects/Scan) and UnreferencedBlobs.
func RunMaintenance(t *testing.T, open Opener) { run(t, open, maintenanceCases) }

// testCase is one subtest: fn runs on a fresh store.
type testCase struct {
	name string
	fn   func(t *testing.T, s meta.Store)
}

func run(t *testing.T, open Opener, cases []testCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			c.fn(t, s)
		})
	}
}

var bucketCases = []testCase{
	{"Buckets/CreateGetList", testBucketsCreateGetList},
	{"Buckets/Duplicate", testBucketsDuplicate},
	{"Buckets/NotFound", testBucketsNotFound},
	{"Buckets/NotEmpty", testBucketsNotEmpty},
	{"Buckets/Recreate", testBucketsRecreate},
	{"Buckets/Isolation", testBucketsIsolation},
	{"Buckets/ListPages", testBucketsListPages},

	{"Configs/RoundTrip", testConfigsRoundTrip},
	{"Configs/NoBucket", testConfigsNoBucket},
	{"Configs/BucketDelete", testConfigsBucketDelete},
}

var objectCases = []testCase{
	{"Objects/RoundTrip", testObjectsRoundTrip},
	{"Objects/UserMetaEmpty", testObjectsUserMetaEmpty},
	{"Objects/Overwrite", testObjectsOverwrite},
	{"Objects/ZeroByte", testObjectsZeroByte},
	{"Objects/Delete", testObjectsDelete},
	{"Objects/SharedBlob", testObjectsSharedBlob},
	{"Objects/Versions", testObjectsVersions},
	{"Objects/OddKeys", testObjectsOddKeys},
	{"Objects/Inline", testObjectsInline},

	{"Conditions/IfNoneMatchAny", testConditionsIfNoneMatchAny},
	{"Conditions/IfMatch", testConditionsIfMatch},
	{"Conditions/Delete", testConditionsDelete},
	{"Conditions/IfMatchAny", testConditionsIfMatchAny},
	{"Conditions/DeleteSizeAndTime", testConditionsDeleteSizeAndTime},

	{"Concurrency/IfNoneMatchAny", testConcurrencyIfNoneMatchAny},
	{"Concurrency/Overwrite", testConcurrencyOverwrite},

	{"List/Empty", testListEmpty},
	{"List/PrefixExact", testListPrefixExact},
	{"List/Delimiter", testListDelimiter},
	{"List/DelimiterWithPrefix", testListDelimiterWithPrefix},
	{"List/MultiCharDelimiter", testListMultiCharDelimiter},
	{"List/After", testListAfter},
	{"List/Limits", testListLimits},
	{"List/Pagination", testListPagination},
	{"List/HighCodePoints", testListHighCodePoints},
	{"List/Summary", testListSummary},
	{"List/Large", testListLarge},
	{"List/Churn", testListChurn},
}

func init() { objectCases = append(append(objectCases, versionCases...), keyStateCases...) }

var uploadCases = []testCase{
	{"Multipart/CreateGet", testUploadCreateGet},
	{"Multipart/PartsReplaceList", testUploadPartsReplaceList},
	{"Multipart/Complete", testUploadComplete},
	{"Multipart/CompleteChangedPart", testUploadCompleteChangedPart},
	{"Multipart/CompleteCondition", testUploadCompleteCondition},
	{"Multipart/Abort", testUploadAbort},
	{"Multipart/OverwriteFreesParts", testUploadOverwriteFreesParts},
	{"Multipart/ListUploads", testListUploads},
	{"Multipart/DeleteBucketAborts", testDeleteBucketAborts},
}

var maintenanceCases = []testCase{
	{"Objects/Scan", testObjectsScan},
	{"UnreferencedBlobs", testUnreferencedBlobs},
}

// t0 is a millisecond-precise timestamp, as stores keep them (see meta.Now).
var t0 = time.Date(2024, 5, 6, 7, 8, 9, 123_000_000, time.UTC)

var blobSeq atomic.Int64

// newBlob returns a blob ID unique within the process.
func newBlob() string { return fmt.Sprintf("blob-%06d", blobSeq.Add(1)) }

// object is a minimal object of bucket/key pointing at blob.
func object(bucket, key, blob string) meta.Object {
	return meta.Object{
		Bucket:       bucket,
		Key:          key,
		BlobID:       blob,
		Size:         int64(len(key)),
		ETag:         "etag-" + blob,
		LastModified: t0,
	}
}

func mkBucket(t *testing.T, s meta.Store, name string) {
	t.Helper()
	err := s.CreateBucket(t.Context(), meta.Bucket{Name: name, Region: "us-east-1", Owner: "owner", CreatedAt: t0})
	if err != nil {
		t.Fatalf("CreateBucket(%q): %v", name, err)
	}
}

// put writes o unconditionally and returns what it freed.
func put(t *testing.T, s meta.Store, o meta.Object) []string {
	t.Helper()
	freed, err := s.PutObject(t.Context(), o, meta.Condition{})
	if err != nil {
		t.Fatalf("PutObject(%q, %q): %v", o.Bucket, o.Key, err)
	}
	return freed
}

func get(t *testing.T, s meta.Store, bucket, key string) meta.Object {
	t.Helper()
	o, err := s.GetObject(t.Context(), bucket, key, "")
	if err != nil {
		t.Fatalf("GetObject(%q, %q): %v", bucket, key, err)
	}
	return o
}

func del(t *testing.T, s meta.Store, bucket, key string) []string {
	t.Helper()
	freed, err := s.DeleteObject(t.Context(), bucket, key, "", meta.Condition{})
	if err != nil {
		t.Fatalf("DeleteObject(%q, %q): %v", bucket, key, err)
	}
	return freed
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

func wantFreed(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	sort.Strings(g)
	sort.Strings(w)
	if !slices.Equal(g, w) {
		t.Errorf("%s: freed = %q, want %q", what, got, want)
	}
}

func wantMissing(t *testing.T, s meta.Store, bucket, key string) {
	t.Helper()
	_, err := s.GetObject(t.Context(), bucket, key, "")
	wantErr(t, fmt.Sprintf("GetObject(%q, %q)", bucket, key), err, meta.ErrObjectNotFound)
}

// checkObject compares every stored field of got with want.
func checkObject(t *testing.T, got, want meta.Object) {
	t.Helper()
	if want.VersionID == "" {
		want.VersionID = meta.NullVersion
	}
	if got.Bucket != want.Bucket || got.Key != want.Key || got.VersionID != want.VersionID {
		t.Errorf("object identity = (%q, %q, %q), want (%q, %q, %q)",
			got.Bucket, got.Key, got.VersionID, want.Bucket, want.Key, want.VersionID)
	}
	if got.BlobID != want.BlobID || got.Size != want.Size || got.ETag != want.ETag ||
		got.StorageClass != want.StorageClass || got.Owner != want.Owner {
		t.Errorf("object %q = {BlobID:%q Size:%d ETag:%q StorageClass:%q Owner:%q}, want {BlobID:%q Size:%d ETag:%q StorageClass:%q Owner:%q}",
			want.Key, got.BlobID, got.Size, got.ETag, got.StorageClass, got.Owner,
			want.BlobID, want.Size, want.ETag, want.StorageClass, want.Owner)
	}
	if !got.LastModified.Equal(want.LastModified) {
		t.Errorf("object %q LastModified = %v, want %v", want.Key, got.LastModified, want.LastModified)
	}
	if got.Headers != want.Headers {
		t.Errorf("object %q Headers = %+v, want %+v", want.Key, got.Headers, want.Headers)
	}
	// A nil and an empty UserMeta are the same thing.
	if len(got.UserMeta) != len(want.UserMeta) || !maps.Equal(got.UserMeta, want.UserMeta) {
		t.Errorf("object %q UserMeta = %q, want %q", want.Key, got.UserMeta, want.UserMeta)
	}
}

// errOnly drops the freed blob list of a call that returns one.
func errOnly(_ []string, err error) error { return err }
