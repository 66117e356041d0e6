package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

// modelLock is a version's object lock in versionModel: a retention (mode
// "" for none) and a legal hold, holdSet once one was placed or released.
type modelLock struct {
	mode          types.ObjectLockMode
	until         time.Time
	hold, holdSet bool
}

// protects is S3's rule for a removal of the version: a legal hold forbids
// it, a retention too (every retention of the test lasts longer than the
// test), GOVERNANCE only without x-amz-bypass-governance-retention.
func (l modelLock) protects(bypass bool) bool {
	return l.hold || l.mode == types.ObjectLockModeCompliance || l.mode == types.ObjectLockModeGovernance && !bypass
}

// status is the legal hold S3 reports: ON, OFF once released, "" (no
// legal hold configuration, no header) when none was ever placed.
func (l modelLock) status() types.ObjectLockLegalHoldStatus {
	switch {
	case l.hold:
		return types.ObjectLockLegalHoldStatusOn
	case l.holdSet:
		return types.ObjectLockLegalHoldStatusOff
	}
	return ""
}

// TestVersioningLockModel runs seeded random puts and copies with lock
// headers, delete markers, deletes of versions with and without the
// GOVERNANCE bypass, and legal holds placed and released on a bucket with
// object lock, against versionModel with each version's lock: the model
// predicts which deletes S3 refuses (403 AccessDenied, nothing changed),
// and every key, version, listing, retention and legal hold is checked as
// it goes. Every retention ends a day after the test starts (S3 refuses
// dates in the past), so none can expire while it runs.
func TestVersioningLockModel(t *testing.T) {
	srv, c := itest.Start(t)
	createLockBucket(t, c, "lmodel")
	ctx := context.Background()
	b := aws.String("lmodel")
	rng := rand.New(rand.NewPCG(20, 13))
	keys := []string{"a", "d/b", "d/e/c"}
	m := &versionModel{bucket: "lmodel", state: types.BucketVersioningStatusEnabled, keys: map[string][]modelVersion{}}
	day := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Second)
	steps := 500
	if testing.Short() {
		steps = 150
	}
	randomLock := func() modelLock {
		var l modelLock
		switch rng.IntN(3) {
		case 1:
			l.mode = types.ObjectLockModeGovernance
		case 2:
			l.mode = types.ObjectLockModeCompliance
		}
		if l.mode != "" {
			l.until = day.Add(time.Duration(rng.IntN(3600)) * time.Second)
		}
		switch rng.IntN(4) {
		case 0:
			l.hold, l.holdSet = true, true
		case 1:
			l.holdSet = true // OFF
		}
		return l
	}
	for step := 1; step <= steps; step++ {
		key := keys[rng.IntN(len(keys))]
		vs := m.keys[key]
		what := ""
		switch r := rng.IntN(20); {
		case r < 6:
			body := fmt.Appendf(nil, "%s at step %d", key, step)
			l := randomLock()
			what = fmt.Sprintf("put %s lock %+v", key, l)
			in := &s3.PutObjectInput{Bucket: b, Key: aws.String(key), Body: strings.NewReader(string(body)),
				ObjectLockLegalHoldStatus: l.status()}
			if l.mode != "" {
				in.ObjectLockMode, in.ObjectLockRetainUntilDate = l.mode, aws.Time(l.until)
			}
			if rng.IntN(10) == 0 { // a date in the past: refused, nothing written
				what += " (an hour ago)"
				in.ObjectLockMode, in.ObjectLockRetainUntilDate = types.ObjectLockModeGovernance, aws.Time(time.Now().Add(-time.Hour))
				_, err := c.PutObject(ctx, in)
				itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
				break
			}
			out, err := c.PutObject(ctx, in)
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			m.write(key, modelVersion{id: wantWriteVersion(t, m, out.VersionId, what), body: body, lock: l})
		case r < 8:
			src := keys[rng.IntN(len(keys))]
			l := randomLock()
			what = fmt.Sprintf("copy %s to %s lock %+v", src, key, l)
			in := &s3.CopyObjectInput{Bucket: b, Key: aws.String(key), CopySource: aws.String("lmodel/" + src),
				MetadataDirective: types.MetadataDirectiveReplace, ObjectLockLegalHoldStatus: l.status()}
			if l.mode != "" {
				in.ObjectLockMode, in.ObjectLockRetainUntilDate = l.mode, aws.Time(l.until)
			}
			out, err := c.CopyObject(ctx, in)
			sv, ok := m.latestLive(src)
			if !ok {
				itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
				break
			}
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			m.write(key, modelVersion{id: wantWriteVersion(t, m, out.VersionId, what), body: sv.body, lock: l})
		case r < 11:
			what = "delete " + key
			out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String(key)})
			if err != nil || !aws.ToBool(out.DeleteMarker) {
				t.Fatalf("step %d: %s: %+v, %v; want a delete marker (never refused)", step, what, out, err)
			}
			m.write(key, modelVersion{id: wantWriteVersion(t, m, out.VersionId, what), marker: true})
		case r < 16:
			if len(vs) == 0 {
				continue
			}
			v := vs[rng.IntN(len(vs))]
			bypass := rng.IntN(2) == 0
			what = fmt.Sprintf("delete %s@%s bypass %v (lock %+v)", key, v.id, bypass, v.lock)
			err := deleteVersion(c, "lmodel", key, v.id, bypass)
			if v.lock.protects(bypass) {
				itest.WantErr(t, err, http.StatusForbidden, "AccessDenied")
				break
			}
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			m.keys[key] = slices.DeleteFunc(slices.Clone(vs), func(x modelVersion) bool { return x.id == v.id })
		default:
			i := rng.IntN(len(vs) + 1)
			if i == len(vs) || vs[i].marker {
				continue
			}
			on := rng.IntN(2) == 0
			what = fmt.Sprintf("legal hold %v on %s@%s", on, key, vs[i].id)
			status := map[bool]types.ObjectLockLegalHoldStatus{true: types.ObjectLockLegalHoldStatusOn, false: types.ObjectLockLegalHoldStatusOff}[on]
			if _, err := c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: b, Key: aws.String(key), VersionId: aws.String(vs[i].id),
				LegalHold: &types.ObjectLockLegalHold{Status: status}}); err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			vs[i].lock.hold, vs[i].lock.holdSet = on, true
		}
		if step%10 == 0 || step == steps {
			when := fmt.Sprintf("after step %d (%s)", step, what)
			checkVersionModel(t, srv, c, m, keys, when)
			checkLockModel(t, c, m, when)
		}
	}
}

// checkLockModel checks every version's retention and legal hold through
// GetObjectRetention, GetObjectLegalHold and HEAD by version ID.
func checkLockModel(t *testing.T, c *s3.Client, m *versionModel, when string) {
	t.Helper()
	ctx := context.Background()
	b := aws.String(m.bucket)
	for k, vs := range m.keys {
		for _, v := range vs {
			if v.marker {
				continue
			}
			at := fmt.Sprintf("%s: %s@%s", when, k, v.id)
			r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: b, Key: aws.String(k), VersionId: aws.String(v.id)})
			if v.lock.mode == "" {
				itest.WantErr(t, err, http.StatusNotFound, "NoSuchObjectLockConfiguration")
			} else if err != nil || string(r.Retention.Mode) != string(v.lock.mode) || !aws.ToTime(r.Retention.RetainUntilDate).Equal(v.lock.until) {
				t.Fatalf("%s: GetObjectRetention = %+v, %v; want %s until %v", at, r, err, v.lock.mode, v.lock.until)
			}
			lh, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: b, Key: aws.String(k), VersionId: aws.String(v.id)})
			want := v.lock.status()
			if want == "" {
				itest.WantErr(t, err, http.StatusNotFound, "NoSuchObjectLockConfiguration")
			} else if err != nil || lh.LegalHold.Status != want {
				t.Fatalf("%s: GetObjectLegalHold = %+v, %v; want %s", at, lh, err, want)
			}
			h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String(k), VersionId: aws.String(v.id)})
			if err != nil || h.ObjectLockMode != v.lock.mode || h.ObjectLockLegalHoldStatus != want ||
				(v.lock.mode != "" && !aws.ToTime(h.ObjectLockRetainUntilDate).Equal(v.lock.until)) {
				t.Fatalf("%s: HEAD lock = %q %v %q, %v; want %+v", at, h.ObjectLockMode, h.ObjectLockRetainUntilDate, h.ObjectLockLegalHoldStatus, err, v.lock)
			}
		}
	}
}
