package integration

// Bucket replication's configuration (internal/bucketrepl): Put, Get and
// DeleteBucketReplication through aws-sdk-go-v2 against a server with
// replication targets; S3's refusals, each leaving the stored
// configuration as it was; versioning that cannot be suspended under a
// configuration; the document gone with its bucket; the IAM actions.
// The targets need not answer: delivery is replication_test.go's.

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
	"github.com/jogstore/jog/test/integration/itest"
)

// withReplicationTargets gives the server targets: "dr" serves any bucket,
// "arch" bucket archive alone. Their endpoints need not answer.
func withReplicationTargets() testutil.Option {
	return func(c *config.Config) {
		c.Replication.Targets.Items = []string{"dr=http://127.0.0.1:9/", "arch=http://127.0.0.1:9/archive"}
		c.Replication.Credentials.Items = []string{"dr=DRKEY:dr-secret-key", "arch=ARCHKEY:arch-secret-key"}
	}
}

// replicationDoc is a V2 configuration of one rule to destination.
func replicationDoc(destination string) string {
	return `<ReplicationConfiguration><Role>arn:aws:iam::1:role/r</Role><Rule><ID>all</ID><Priority>1</Priority><Filter/>` +
		`<Status>Enabled</Status><DeleteMarkerReplication><Status>Disabled</Status></DeleteMarkerReplication>` +
		`<Destination><Bucket>` + destination + `</Bucket></Destination></Rule></ReplicationConfiguration>`
}

// sdkReplication is a V2 configuration of two rules, as an SDK sends it.
func sdkReplication() *types.ReplicationConfiguration {
	return &types.ReplicationConfiguration{Role: aws.String("arn:aws:iam::123456789012:role/replication"), Rules: []types.ReplicationRule{
		{ID: aws.String("logs"), Priority: aws.Int32(2), Status: types.ReplicationRuleStatusEnabled,
			Filter:                  &types.ReplicationRuleFilter{Prefix: aws.String("logs/")},
			DeleteMarkerReplication: &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusEnabled},
			Destination:             &types.Destination{Bucket: aws.String("arn:aws:s3:::archive"), StorageClass: types.StorageClassStandard}},
		{ID: aws.String("tagged"), Priority: aws.Int32(1), Status: types.ReplicationRuleStatusDisabled,
			Filter: &types.ReplicationRuleFilter{And: &types.ReplicationRuleAndOperator{Prefix: aws.String("img/"),
				Tags: []types.Tag{{Key: aws.String("dr"), Value: aws.String("yes")}}}},
			DeleteMarkerReplication:   &types.DeleteMarkerReplication{Status: types.DeleteMarkerReplicationStatusDisabled},
			ExistingObjectReplication: &types.ExistingObjectReplication{Status: types.ExistingObjectReplicationStatusEnabled},
			Destination:               &types.Destination{Bucket: aws.String("arn:jog:replication::dr:photos")}},
	}}
}

func TestReplicationConfig(t *testing.T) {
	replicationConfigCycle(t)
}

// TestReplicationConfigPostgres is the same with the metadata in
// PostgreSQL: the configuration is a bucket configuration document there
// too, with no schema of its own.
func TestReplicationConfigPostgres(t *testing.T) {
	url := pgtest.Own(t).NewDatabase(t)
	replicationConfigCycle(t, func(cfg *config.Config) { cfg.Meta = url })
}

// replicationConfigCycle puts, reads, refuses and deletes configurations
// on a server with opts.
func replicationConfigCycle(t *testing.T, opts ...testutil.Option) {
	srv := testutil.StartServer(t, append(opts, withReplicationTargets(), testutil.WithoutFsync())...)
	c := srv.AWSClient(t)
	ctx := context.Background()
	b := aws.String("repl-src")
	itest.CreateBucket(t, c, *b)
	put := func(cfg *types.ReplicationConfiguration) error {
		_, err := c.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: b, ReplicationConfiguration: cfg})
		return err
	}
	get := func() (*types.ReplicationConfiguration, error) {
		out, err := c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: b})
		if err != nil {
			return nil, err
		}
		return out.ReplicationConfiguration, nil
	}
	setVersioning := func(s types.BucketVersioningStatus) error {
		_, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b, VersioningConfiguration: &types.VersioningConfiguration{Status: s}})
		return err
	}

	// Unversioned: refused as S3 refuses it; nothing stored.
	err := put(sdkReplication())
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	if err == nil || !strings.Contains(err.Error(), "Versioning must be 'Enabled'") {
		t.Errorf("unversioned bucket: %v, want S3's message", err)
	}
	_, err = get()
	itest.WantErr(t, err, http.StatusNotFound, "ReplicationConfigurationNotFoundError")

	// Versioned: stored, and read back as sent.
	if err := setVersioning(types.BucketVersioningStatusEnabled); err != nil {
		t.Fatal(err)
	}
	if err := put(sdkReplication()); err != nil {
		t.Fatal(err)
	}
	got, err := get()
	if err != nil {
		t.Fatal(err)
	}
	wantReplication(t, got, sdkReplication())

	// Refusals leave it as it was.
	bad := func(edit func(*types.ReplicationConfiguration)) *types.ReplicationConfiguration {
		cfg := sdkReplication()
		edit(cfg)
		return cfg
	}
	for _, r := range []struct {
		name   string
		cfg    *types.ReplicationConfiguration
		status int
		code   string
		msg    string
	}{
		{"destination no target serves", bad(func(c *types.ReplicationConfiguration) {
			c.Rules[0].Destination.Bucket = aws.String("arn:jog:replication::nope:archive")
		}), http.StatusBadRequest, "InvalidRequest", "dr (http://127.0.0.1:9), arch (http://127.0.0.1:9/archive)"},
		{"target serving another bucket", bad(func(c *types.ReplicationConfiguration) {
			c.Rules[0].Destination.Bucket = aws.String("arn:jog:replication::arch:other")
		}), http.StatusBadRequest, "InvalidRequest", "serves bucket archive alone"},
		{"duplicate priority", bad(func(c *types.ReplicationConfiguration) { c.Rules[1].Priority = aws.Int32(2) }),
			http.StatusBadRequest, "InvalidRequest", "priority"},
		{"duplicate ID", bad(func(c *types.ReplicationConfiguration) { c.Rules[1].ID = aws.String("logs") }),
			http.StatusBadRequest, "InvalidArgument", "unique"},
		{"no delete marker replication", bad(func(c *types.ReplicationConfiguration) { c.Rules[0].DeleteMarkerReplication = nil }),
			http.StatusBadRequest, "InvalidRequest", "DeleteMarkerReplication"},
		{"GLACIER", bad(func(c *types.ReplicationConfiguration) {
			c.Rules[0].Destination.StorageClass = types.StorageClassGlacier
		}),
			http.StatusNotImplemented, "NotImplemented", "one storage class"},
		{"replication time", bad(func(c *types.ReplicationConfiguration) {
			c.Rules[0].Destination.ReplicationTime = &types.ReplicationTime{Status: types.ReplicationTimeStatusEnabled,
				Time: &types.ReplicationTimeValue{Minutes: aws.Int32(15)}}
		}), http.StatusNotImplemented, "NotImplemented", "ReplicationTime"},
		{"not an ARN", bad(func(c *types.ReplicationConfiguration) { c.Rules[0].Destination.Bucket = aws.String("archive") }),
			http.StatusBadRequest, "InvalidArgument", "ARN"},
	} {
		err := put(r.cfg)
		itest.WantErr(t, err, r.status, r.code)
		if err == nil || !strings.Contains(err.Error(), r.msg) {
			t.Errorf("%s: %v, want a message with %q", r.name, err, r.msg)
		}
	}
	if got, err := get(); err != nil {
		t.Error(err)
	} else {
		wantReplication(t, got, sdkReplication())
	}

	// Versioning cannot be suspended under a configuration.
	itest.WantErr(t, setVersioning(types.BucketVersioningStatusSuspended), http.StatusConflict, "InvalidBucketState")
	if v, err := c.GetBucketVersioning(ctx, &s3.GetBucketVersioningInput{Bucket: b}); err != nil || v.Status != types.BucketVersioningStatusEnabled {
		t.Errorf("versioning after a refused suspension: %v %v, want Enabled", v.Status, err)
	}

	// Deleted: gone; suspending is allowed again; deleting none is fine.
	for range 2 {
		if _, err := c.DeleteBucketReplication(ctx, &s3.DeleteBucketReplicationInput{Bucket: b}); err != nil {
			t.Fatal(err)
		}
	}
	_, err = get()
	itest.WantErr(t, err, http.StatusNotFound, "ReplicationConfigurationNotFoundError")
	if err := setVersioning(types.BucketVersioningStatusSuspended); err != nil {
		t.Errorf("suspending without a configuration: %v", err)
	}

	// A missing bucket: NoSuchBucket for the three.
	nb := aws.String("repl-nosuch")
	_, err = c.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: nb, ReplicationConfiguration: sdkReplication()})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: nb})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
	_, err = c.DeleteBucketReplication(ctx, &s3.DeleteBucketReplicationInput{Bucket: nb})
	itest.WantErr(t, err, http.StatusNotFound, "NoSuchBucket")
}

// TestReplicationConfigGoesWithBucket: a bucket deleted and created again
// has no replication configuration.
func TestReplicationConfigGoesWithBucket(t *testing.T) {
	srv := testutil.StartServer(t, withReplicationTargets(), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	b := aws.String("repl-gone")
	for i := range 2 {
		itest.CreateBucket(t, c, *b)
		if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
			VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
			t.Fatal(err)
		}
		_, err := c.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: b})
		itest.WantErr(t, err, http.StatusNotFound, "ReplicationConfigurationNotFoundError")
		if i == 1 {
			break
		}
		if _, err := c.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: b, ReplicationConfiguration: sdkReplication()}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: b}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReplicationConfigNoTargets: a server without targets refuses every
// configuration, saying how to configure one.
func TestReplicationConfigNoTargets(t *testing.T) {
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := context.Background()
	b := aws.String("repl-none")
	itest.CreateBucket(t, c, *b)
	if _, err := c.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: b, ReplicationConfiguration: sdkReplication()})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidRequest")
	if err == nil || !strings.Contains(err.Error(), "--replication-target") {
		t.Errorf("no targets: %v, want a message naming --replication-target", err)
	}
}

const replBootstrap = `{"users": [
 {"name": "repluser", "accessKeys": [{"accessKeyId": "AKIAREPLUSER00000000", "secretAccessKey": "repluser-secret-0000000000000000000000000"}]}
]}`

// TestReplicationConfigIAM: s3:PutReplicationConfiguration authorises Put
// and Delete, s3:GetReplicationConfiguration Get: a user denied them gets
// 403 and changes nothing; allowed them alone, the user is served.
func TestReplicationConfigIAM(t *testing.T) {
	file := filepath.Join(t.TempDir(), "iam.json")
	if err := os.WriteFile(file, []byte(replBootstrap), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := testutil.StartServer(t, withReplicationTargets(), testutil.WithIAMBootstrap(file), testutil.WithoutFsync())
	ctx := context.Background()
	root := srv.AWSClient(t)
	b := aws.String("repl-iam")
	itest.CreateBucket(t, root, *b)
	if _, err := root.PutBucketVersioning(ctx, &s3.PutBucketVersioningInput{Bucket: b,
		VersioningConfiguration: &types.VersioningConfiguration{Status: types.BucketVersioningStatusEnabled}}); err != nil {
		t.Fatal(err)
	}
	admin := iamClient(t, srv, testutil.AccessKey, testutil.SecretKey)
	user := srv.AWSClient(t, func(o *s3.Options) {
		o.Credentials = credentials.NewStaticCredentialsProvider("AKIAREPLUSER00000000", "repluser-secret-0000000000000000000000000", "")
	})
	setPolicy := func(stmts ...map[string]any) { setUserStatements(t, admin, "repluser", stmts...) }
	put := func() error {
		_, err := user.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: b, ReplicationConfiguration: sdkReplication()})
		return err
	}
	get := func() error {
		_, err := user.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: b})
		return err
	}
	del := func() error {
		_, err := user.DeleteBucketReplication(ctx, &s3.DeleteBucketReplicationInput{Bucket: b})
		return err
	}
	rootHas := func() bool {
		_, err := root.GetBucketReplication(ctx, &s3.GetBucketReplicationInput{Bucket: b})
		return err == nil
	}
	allowAllBut := func(action string) {
		setPolicy(map[string]any{"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
			map[string]any{"Effect": "Deny", "Action": action, "Resource": "*"})
	}

	// Denied s3:PutReplicationConfiguration: Put and Delete refused.
	allowAllBut("s3:PutReplicationConfiguration")
	itest.WantErr(t, put(), http.StatusForbidden, "AccessDenied")
	if rootHas() {
		t.Error("a refused Put stored a configuration")
	}
	if _, err := root.PutBucketReplication(ctx, &s3.PutBucketReplicationInput{Bucket: b, ReplicationConfiguration: sdkReplication()}); err != nil {
		t.Fatal(err)
	}
	itest.WantErr(t, del(), http.StatusForbidden, "AccessDenied")
	if !rootHas() {
		t.Error("a refused Delete removed the configuration")
	}
	// Denied s3:GetReplicationConfiguration: Get refused.
	allowAllBut("s3:GetReplicationConfiguration")
	itest.WantErr(t, get(), http.StatusForbidden, "AccessDenied")

	// Allowed exactly the two actions on the bucket: all three served.
	setPolicy(map[string]any{"Effect": "Allow", "Action": []string{"s3:PutReplicationConfiguration", "s3:GetReplicationConfiguration"},
		"Resource": "arn:aws:s3:::repl-iam"})
	for name, call := range map[string]func() error{"Put": put, "Get": get} {
		if err := call(); err != nil {
			t.Errorf("%s allowed: %v", name, err)
		}
	}
	if err := del(); err != nil || rootHas() {
		t.Errorf("Delete allowed: %v, configuration still there: %v", err, rootHas())
	}
}

// wantReplication compares a configuration read back with the one sent.
func wantReplication(t *testing.T, got, want *types.ReplicationConfiguration) {
	t.Helper()
	if aws.ToString(got.Role) != aws.ToString(want.Role) || len(got.Rules) != len(want.Rules) {
		t.Fatalf("got role %q and %d rules, want %q and %d", aws.ToString(got.Role), len(got.Rules), aws.ToString(want.Role), len(want.Rules))
	}
	for i, w := range want.Rules {
		g := got.Rules[i]
		gj, _ := json.Marshal(ruleView(g))
		wj, _ := json.Marshal(ruleView(w))
		if string(gj) != string(wj) {
			t.Errorf("rule %d:\n got %s\nwant %s", i, gj, wj)
		}
	}
}

// ruleView is what a rule says, without the SDK's no-copy fields.
func ruleView(r types.ReplicationRule) map[string]any {
	v := map[string]any{"id": aws.ToString(r.ID), "priority": aws.ToInt32(r.Priority), "status": r.Status,
		"bucket": aws.ToString(r.Destination.Bucket), "class": r.Destination.StorageClass}
	if r.Filter != nil {
		v["prefix"] = aws.ToString(r.Filter.Prefix)
		if a := r.Filter.And; a != nil {
			v["andPrefix"] = aws.ToString(a.Prefix)
			for _, tg := range a.Tags {
				v["tag:"+aws.ToString(tg.Key)] = aws.ToString(tg.Value)
			}
		}
	}
	if r.DeleteMarkerReplication != nil {
		v["deleteMarkers"] = r.DeleteMarkerReplication.Status
	}
	if r.ExistingObjectReplication != nil {
		v["existing"] = r.ExistingObjectReplication.Status
	}
	return v
}
