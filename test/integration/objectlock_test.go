package integration

// Object lock: buckets created with it, their default retention, each
// version's retention and legal hold, the lock headers of writes and
// reads, and every refusal to remove a locked version — each refusal
// followed by a read proving the version is still there.

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/test/integration/itest"
)

func createLockBucket(t *testing.T, c *s3.Client, bucket string) {
	t.Helper()
	_, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(bucket), ObjectLockEnabledForBucket: aws.Bool(true)})
	if err != nil {
		t.Fatalf("CreateBucket(%s, object lock): %v", bucket, err)
	}
}

// putLocked writes key with the given lock headers and returns its version.
func putLocked(t *testing.T, c *s3.Client, bucket, key string, mode types.ObjectLockMode, until time.Time, hold types.ObjectLockLegalHoldStatus) string {
	t.Helper()
	in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(key)}
	if mode != "" {
		in.ObjectLockMode, in.ObjectLockRetainUntilDate = mode, aws.Time(until)
	}
	in.ObjectLockLegalHoldStatus = hold
	out, err := c.PutObject(context.Background(), in)
	if err != nil {
		t.Fatalf("PutObject(%s, lock %s): %v", key, mode, err)
	}
	return aws.ToString(out.VersionId)
}

// wantVersionThere fails unless key's version is still readable.
func wantVersionThere(t *testing.T, c *s3.Client, bucket, key, version string) {
	t.Helper()
	_, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(version)})
	if err != nil {
		t.Fatalf("version %s of %s is gone: %v", version, key, err)
	}
}

func deleteVersion(c *s3.Client, bucket, key, version string, bypass bool) error {
	in := &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), VersionId: aws.String(version)}
	if bypass {
		in.BypassGovernanceRetention = aws.Bool(true)
	}
	_, err := c.DeleteObject(context.Background(), in)
	return err
}

func TestObjectLockBucket(t *testing.T) {
	ctx := context.Background()
	_, c := itest.Start(t)
	createLockBucket(t, c, "locked")
	itest.CreateBucket(t, c, "plain")
	wantVersioning(t, c, "locked", types.BucketVersioningStatusEnabled)

	_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("locked"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusSuspended}})
	itest.WantErr(t, err, http.StatusConflict, "InvalidBucketState")
	wantVersioning(t, c, "locked", types.BucketVersioningStatusEnabled)

	got, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("locked")})
	if err != nil || got.ObjectLockConfiguration.ObjectLockEnabled != types.ObjectLockEnabledEnabled || got.ObjectLockConfiguration.Rule != nil {
		t.Fatalf("GetObjectLockConfiguration = %+v, %v; want Enabled without a rule", got, err)
	}
	put := func(bucket string, rule *types.ObjectLockRule) error {
		_, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: aws.String(bucket),
			ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled, Rule: rule}})
		return err
	}
	rule := func(mode types.ObjectLockRetentionMode, days, years int32) *types.ObjectLockRule {
		d := &types.DefaultRetention{Mode: mode}
		if days != 0 {
			d.Days = aws.Int32(days)
		}
		if years != 0 {
			d.Years = aws.Int32(years)
		}
		return &types.ObjectLockRule{DefaultRetention: d}
	}
	if err := put("locked", rule(types.ObjectLockRetentionModeGovernance, 3, 0)); err != nil {
		t.Fatalf("PutObjectLockConfiguration: %v", err)
	}
	itest.WantErr(t, put("locked", rule(types.ObjectLockRetentionModeGovernance, 3, 1)), http.StatusBadRequest, "MalformedXML")
	itest.WantErr(t, put("locked", rule(types.ObjectLockRetentionModeGovernance, -1, 0)), http.StatusBadRequest, "InvalidArgument")
	itest.WantErr(t, put("locked", rule("FOREVER", 3, 0)), http.StatusBadRequest, "MalformedXML")
	// S3's bound: 100 years. A huge period is refused, not wrapped into a
	// date in the past that protects nothing.
	itest.WantErr(t, put("locked", rule(types.ObjectLockRetentionModeCompliance, 36501, 0)), http.StatusBadRequest, "InvalidArgument")
	itest.WantErr(t, put("locked", rule(types.ObjectLockRetentionModeCompliance, 0, 300000000)), http.StatusBadRequest, "InvalidArgument")
	got, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("locked")})
	if err != nil || got.ObjectLockConfiguration.Rule == nil || got.ObjectLockConfiguration.Rule.DefaultRetention.Mode != types.ObjectLockRetentionModeGovernance ||
		aws.ToInt32(got.ObjectLockConfiguration.Rule.DefaultRetention.Days) != 3 || got.ObjectLockConfiguration.Rule.DefaultRetention.Years != nil {
		t.Fatalf("GetObjectLockConfiguration after the refusals = %+v, %v; want GOVERNANCE 3 days", got, err)
	}

	// A bucket created without object lock.
	_, err = c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("plain")})
	itest.WantErr(t, err, http.StatusNotFound, "ObjectLockConfigurationNotFoundError")
	itest.WantErr(t, put("plain", nil), http.StatusConflict, "InvalidBucketState")
	setVersioning(t, c, "plain", types.BucketVersioningStatusSuspended)
	itest.WantErr(t, put("plain", nil), http.StatusConflict, "InvalidBucketState")
	_, err = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("plain"), Key: aws.String("k"), Body: strings.NewReader("x"),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	itest.WantNoObject(t, c, "plain", "k")
	itest.Put(t, c, "plain", "k", []byte("x"))
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("plain"), Key: aws.String("k")})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	_, err = c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("plain"), Key: aws.String("k"),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOn}})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	if err := deleteVersion(c, "plain", "k", "null", false); err != nil {
		t.Errorf("DeleteObject on a plain bucket: %v", err)
	}

	// The default retention applies to a version that names none.
	v := itest.Put(t, c, "locked", "dflt", []byte("d"))
	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("locked"), Key: aws.String("dflt")})
	if err != nil || h.ObjectLockMode != types.ObjectLockModeGovernance || h.ObjectLockRetainUntilDate == nil ||
		h.ObjectLockRetainUntilDate.Before(time.Now().Add(71*time.Hour)) {
		t.Fatalf("HEAD of a default-retained version = mode %q until %v, %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate, err)
	}
	itest.WantErr(t, deleteVersion(c, "locked", "dflt", aws.ToString(v.VersionId), false), http.StatusForbidden, "AccessDenied")
	wantVersionThere(t, c, "locked", "dflt", aws.ToString(v.VersionId))
	itest.WantErr(t, func() error {
		_, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String("locked")})
		return err
	}(),
		http.StatusConflict, "BucketNotEmpty")
	wantVersionThere(t, c, "locked", "dflt", aws.ToString(v.VersionId))
}

func TestObjectLockEnforced(t *testing.T) {
	ctx := context.Background()
	srv, c := itest.Start(t)
	createLockBucket(t, c, "lockb")
	hour := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	comp := putLocked(t, c, "lockb", "comp", types.ObjectLockModeCompliance, hour, "")
	gov := putLocked(t, c, "lockb", "gov", types.ObjectLockModeGovernance, hour, "")
	hold := putLocked(t, c, "lockb", "hold", "", time.Time{}, types.ObjectLockLegalHoldStatusOn)

	h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("lockb"), Key: aws.String("comp")})
	if err != nil || h.ObjectLockMode != types.ObjectLockModeCompliance || !aws.ToTime(h.ObjectLockRetainUntilDate).Equal(hour) ||
		h.ObjectLockLegalHoldStatus != "" { // S3 sends no legal hold for a version that never had one
		t.Fatalf("HEAD comp = %q %v %q, %v", h.ObjectLockMode, h.ObjectLockRetainUntilDate, h.ObjectLockLegalHoldStatus, err)
	}
	_, g := itest.Get(t, c, "lockb", "hold")
	if g.ObjectLockLegalHoldStatus != types.ObjectLockLegalHoldStatusOn || g.ObjectLockMode != "" {
		t.Fatalf("GET hold = legal hold %q mode %q", g.ObjectLockLegalHoldStatus, g.ObjectLockMode)
	}

	// COMPLIANCE and legal holds: no one removes them, bypass or not.
	for _, v := range []struct{ key, version string }{{"comp", comp}, {"hold", hold}} {
		for _, bypass := range []bool{false, true} {
			itest.WantErr(t, deleteVersion(c, "lockb", v.key, v.version, bypass), http.StatusForbidden, "AccessDenied")
			wantVersionThere(t, c, "lockb", v.key, v.version)
		}
	}
	itest.WantErr(t, deleteVersion(c, "lockb", "gov", gov, false), http.StatusForbidden, "AccessDenied")
	wantVersionThere(t, c, "lockb", "gov", gov)

	// DeleteObjects: refused per key, with the same code.
	out, err := c.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: aws.String("lockb"), Delete: &types.Delete{Objects: []types.ObjectIdentifier{
		{Key: aws.String("comp"), VersionId: aws.String(comp)}, {Key: aws.String("gov"), VersionId: aws.String(gov)},
	}}})
	if err != nil || len(out.Errors) != 2 || len(out.Deleted) != 0 || aws.ToString(out.Errors[0].Code) != "AccessDenied" {
		t.Fatalf("DeleteObjects of locked versions = %+v, %v", out, err)
	}
	wantVersionThere(t, c, "lockb", "comp", comp)
	wantVersionThere(t, c, "lockb", "gov", gov)

	// A delete without a version writes a delete marker: allowed.
	d, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String("lockb"), Key: aws.String("comp")})
	if err != nil || !aws.ToBool(d.DeleteMarker) {
		t.Fatalf("DeleteObject without a version = %+v, %v; want a delete marker", d, err)
	}
	wantVersionThere(t, c, "lockb", "comp", comp)

	// Retention changes: COMPLIANCE only extends; GOVERNANCE with bypass.
	setRet := func(key, version string, mode types.ObjectLockRetentionMode, until time.Time, bypass bool) error {
		in := &s3.PutObjectRetentionInput{Bucket: aws.String("lockb"), Key: aws.String(key), VersionId: aws.String(version),
			Retention: &types.ObjectLockRetention{Mode: mode, RetainUntilDate: aws.Time(until)}}
		if bypass {
			in.BypassGovernanceRetention = aws.Bool(true)
		}
		_, err := c.PutObjectRetention(ctx, in)
		return err
	}
	itest.WantErr(t, setRet("comp", comp, types.ObjectLockRetentionModeCompliance, hour.Add(-time.Minute), true), http.StatusForbidden, "AccessDenied")
	itest.WantErr(t, setRet("comp", comp, types.ObjectLockRetentionModeGovernance, hour.Add(time.Hour), true), http.StatusForbidden, "AccessDenied")
	itest.WantErr(t, setRet("comp", comp, types.ObjectLockRetentionModeCompliance, time.Now().Add(-time.Hour), true), http.StatusBadRequest, "InvalidArgument")
	if err := setRet("comp", comp, types.ObjectLockRetentionModeCompliance, hour.Add(time.Hour), false); err != nil {
		t.Fatalf("extend COMPLIANCE: %v", err)
	}
	r, err := c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("lockb"), Key: aws.String("comp"), VersionId: aws.String(comp)})
	if err != nil || r.Retention.Mode != types.ObjectLockRetentionModeCompliance || !aws.ToTime(r.Retention.RetainUntilDate).Equal(hour.Add(time.Hour)) {
		t.Fatalf("GetObjectRetention = %+v, %v", r, err)
	}
	itest.WantErr(t, setRet("gov", gov, types.ObjectLockRetentionModeGovernance, hour.Add(-time.Minute), false), http.StatusForbidden, "AccessDenied")
	itest.WantErr(t, setRet("gov", gov, types.ObjectLockRetentionModeCompliance, hour.Add(time.Hour), false), http.StatusForbidden, "AccessDenied")
	if err := setRet("gov", gov, types.ObjectLockRetentionModeGovernance, time.Now().Add(time.Minute), true); err != nil {
		t.Fatalf("shorten GOVERNANCE with bypass: %v", err)
	}
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("lockb"), Key: aws.String("hold")})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchObjectLockConfiguration")
	_, err = c.GetObjectRetention(ctx, &s3.GetObjectRetentionInput{Bucket: aws.String("lockb"), Key: aws.String("comp"), VersionId: aws.String(unknownVersion)})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchVersion")

	// GOVERNANCE goes with bypass; the legal hold once released.
	if err := deleteVersion(c, "lockb", "gov", gov, true); err != nil {
		t.Fatalf("DeleteObject(gov, bypass): %v", err)
	}
	lh, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String("lockb"), Key: aws.String("hold"), VersionId: aws.String(hold)})
	if err != nil || lh.LegalHold.Status != types.ObjectLockLegalHoldStatusOn {
		t.Fatalf("GetObjectLegalHold = %+v, %v", lh, err)
	}
	if _, err := c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("lockb"), Key: aws.String("hold"), VersionId: aws.String(hold),
		LegalHold: &types.ObjectLockLegalHold{Status: types.ObjectLockLegalHoldStatusOff}}); err != nil {
		t.Fatalf("PutObjectLegalHold OFF: %v", err)
	}
	if err := deleteVersion(c, "lockb", "hold", hold, false); err != nil {
		t.Fatalf("DeleteObject after the hold is released: %v", err)
	}

	// Lock headers need Content-MD5 or a checksum: a raw PUT without either.
	req := itest.RawRequest(t, srv, http.MethodPut, "/lockb/raw", []byte("raw"))
	req.Header.Set("X-Amz-Object-Lock-Legal-Hold", "ON")
	itest.Sign(t, req, []byte("raw"), itest.SignOpts{})
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidRequest")
	itest.WantNoObject(t, c, "lockb", "raw")
	// Mode without a date.
	req = itest.RawRequest(t, srv, http.MethodPut, "/lockb/raw", []byte("raw"))
	req.Header.Set("X-Amz-Object-Lock-Mode", "GOVERNANCE")
	req.Header.Set("Content-Md5", "gNRKdD5Qf2hgy+BLhq3UDA==")
	itest.Sign(t, req, []byte("raw"), itest.SignOpts{})
	resp, body = itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusBadRequest, "InvalidArgument")
	itest.WantNoObject(t, c, "lockb", "raw")

	// CopyObject carries lock headers to the copy.
	cp, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: aws.String("lockb"), Key: aws.String("copy"), CopySource: aws.String("lockb/comp?versionId=" + comp),
		ObjectLockLegalHoldStatus: types.ObjectLockLegalHoldStatusOn})
	if err != nil {
		t.Fatalf("CopyObject with a legal hold: %v", err)
	}
	itest.WantErr(t, deleteVersion(c, "lockb", "copy", aws.ToString(cp.VersionId), true), http.StatusForbidden, "AccessDenied")
	wantVersionThere(t, c, "lockb", "copy", aws.ToString(cp.VersionId))
}

// TestObjectLockLegalHoldNeverSet: a legal hold never set is no legal hold
// configuration (404 NoSuchObjectLockConfiguration, no header on HEAD),
// unlike one released (Status OFF), as S3.
func TestObjectLockLegalHoldNeverSet(t *testing.T) {
	ctx := context.Background()
	_, c := itest.Start(t)
	createLockBucket(t, c, "nsb")
	hour := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	ret := putLocked(t, c, "nsb", "ret", types.ObjectLockModeGovernance, hour, "")
	plain := putLocked(t, c, "nsb", "plain", "", time.Time{}, "")
	off := putLocked(t, c, "nsb", "off", "", time.Time{}, types.ObjectLockLegalHoldStatusOff)
	want := func(key, version string, status types.ObjectLockLegalHoldStatus) {
		t.Helper()
		lh, err := c.GetObjectLegalHold(ctx, &s3.GetObjectLegalHoldInput{Bucket: aws.String("nsb"), Key: aws.String(key), VersionId: aws.String(version)})
		if status == "" {
			itest.WantErr(t, err, http.StatusNotFound, "NoSuchObjectLockConfiguration")
		} else if err != nil || lh.LegalHold.Status != status {
			t.Fatalf("GetObjectLegalHold(%s) = %+v, %v; want %s", key, lh, err, status)
		}
		h, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String("nsb"), Key: aws.String(key), VersionId: aws.String(version)})
		if err != nil || h.ObjectLockLegalHoldStatus != status {
			t.Fatalf("HEAD %s: legal hold %q, %v; want %q", key, h.ObjectLockLegalHoldStatus, err, status)
		}
	}
	want("ret", ret, "")
	want("plain", plain, "")
	want("off", off, types.ObjectLockLegalHoldStatusOff)
	for _, v := range []struct{ key, version string }{{"ret", ret}, {"plain", plain}} {
		for _, st := range []types.ObjectLockLegalHoldStatus{types.ObjectLockLegalHoldStatusOn, types.ObjectLockLegalHoldStatusOff} {
			if _, err := c.PutObjectLegalHold(ctx, &s3.PutObjectLegalHoldInput{Bucket: aws.String("nsb"), Key: aws.String(v.key),
				VersionId: aws.String(v.version), LegalHold: &types.ObjectLockLegalHold{Status: st}}); err != nil {
				t.Fatalf("PutObjectLegalHold(%s, %s): %v", v.key, st, err)
			}
			want(v.key, v.version, st)
		}
	}
	// The retention still protects ret; the released hold does not.
	itest.WantErr(t, deleteVersion(c, "nsb", "ret", ret, false), http.StatusForbidden, "AccessDenied")
	wantVersionThere(t, c, "nsb", "ret", ret)
	if err := deleteVersion(c, "nsb", "plain", plain, false); err != nil {
		t.Fatalf("DeleteObject(plain) after its hold is released: %v", err)
	}
}

// TestObjectLockOnExistingBucket: PutObjectLockConfiguration turns object
// lock on for a bucket whose versioning is Enabled, as S3 does since 2023;
// its versioning cannot be suspended after, versions written before keep
// no lock, and new ones get the default retention.
func TestObjectLockOnExistingBucket(t *testing.T) {
	ctx := context.Background()
	_, c := itest.StartBucket(t, "later")
	setVersioning(t, c, "later", types.BucketVersioningStatusEnabled)
	before := aws.ToString(itest.Put(t, c, "later", "old", []byte("before")).VersionId)
	_, err := c.PutObjectLockConfiguration(ctx, &s3.PutObjectLockConfigurationInput{Bucket: aws.String("later"),
		ObjectLockConfiguration: &types.ObjectLockConfiguration{ObjectLockEnabled: types.ObjectLockEnabledEnabled,
			Rule: &types.ObjectLockRule{DefaultRetention: &types.DefaultRetention{Mode: types.ObjectLockRetentionModeCompliance, Days: aws.Int32(1)}}}})
	if err != nil {
		t.Fatalf("PutObjectLockConfiguration on a versioned bucket: %v", err)
	}
	got, err := c.GetObjectLockConfiguration(ctx, &s3.GetObjectLockConfigurationInput{Bucket: aws.String("later")})
	if err != nil || got.ObjectLockConfiguration.ObjectLockEnabled != types.ObjectLockEnabledEnabled || got.ObjectLockConfiguration.Rule == nil {
		t.Fatalf("GetObjectLockConfiguration = %+v, %v", got, err)
	}
	_, err = c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: aws.String("later"),
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusSuspended}})
	itest.WantErr(t, err, http.StatusConflict, "InvalidBucketState")
	wantVersioning(t, c, "later", types.BucketVersioningStatusEnabled)

	v := aws.ToString(itest.Put(t, c, "later", "new", []byte("after"), func(in *s3.PutObjectInput) {
		in.ChecksumAlgorithm = types.ChecksumAlgorithmCrc32
	}).VersionId)
	itest.WantErr(t, deleteVersion(c, "later", "new", v, true), http.StatusForbidden, "AccessDenied")
	wantVersionThere(t, c, "later", "new", v)
	if err := deleteVersion(c, "later", "old", before, false); err != nil {
		t.Fatalf("a version written before object lock has none: %v", err)
	}
}
