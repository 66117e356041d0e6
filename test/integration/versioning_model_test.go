package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// modelVersion is one version in versionModel: newest first per key.
type modelVersion struct {
	id     string
	marker bool
	body   []byte
	lock   modelLock // on a bucket with object lock
}

// versionModel is S3's versioning rules over an in-memory bucket.
type versionModel struct {
	bucket string
	state  types.BucketVersioningStatus // "" until first set
	keys   map[string][]modelVersion
}

// write records a new latest version of key with id (a PUT, copy or
// delete marker): the null version replaces any null version.
func (m *versionModel) write(key string, v modelVersion) {
	vs := m.keys[key]
	if v.id == "null" {
		vs = slices.DeleteFunc(slices.Clone(vs), func(x modelVersion) bool { return x.id == "null" })
	}
	m.keys[key] = append([]modelVersion{v}, vs...)
}

func (m *versionModel) latestLive(key string) (modelVersion, bool) {
	vs := m.keys[key]
	if len(vs) == 0 || vs[0].marker {
		return modelVersion{}, false
	}
	return vs[0], true
}

// TestVersioningModel runs seeded random puts, deletes, deletes of
// versions, copies, suspends and enables on a few keys against
// versionModel, checking every key through GET and HEAD, every version by
// ID, ListObjectVersions and ListObjectsV2 as it goes.
func TestVersioningModel(t *testing.T) {
	srv, c := itest.StartBucket(t, "model")
	ctx := context.Background()
	b := aws.String("model")
	rng := rand.New(rand.NewPCG(20, 1))
	keys := []string{"a", "d/b", "d/e/c"}
	m := &versionModel{bucket: "model", keys: map[string][]modelVersion{}}
	steps := 800
	if testing.Short() {
		steps = 200
	}
	for step := 1; step <= steps; step++ {
		key := keys[rng.IntN(len(keys))]
		what := ""
		switch r := rng.IntN(20); {
		case r < 7:
			body := fmt.Appendf(nil, "%s at step %d", key, step)
			what = "put " + key
			out := itest.Put(t, c, "model", key, body)
			m.write(key, modelVersion{id: wantWriteVersion(t, m, out.VersionId, what), body: body})
		case r < 11:
			what = "delete " + key
			out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String(key)})
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			if m.state == "" {
				if out.VersionId != nil || aws.ToBool(out.DeleteMarker) {
					t.Fatalf("step %d: %s on an unversioned bucket = %+v", step, what, out)
				}
				m.keys[key] = nil
				break
			}
			if !aws.ToBool(out.DeleteMarker) {
				t.Fatalf("step %d: %s: no delete marker", step, what)
			}
			m.write(key, modelVersion{id: wantWriteVersion(t, m, out.VersionId, what), marker: true})
		case r < 14:
			vs := m.keys[key]
			if len(vs) == 0 {
				continue
			}
			v := vs[rng.IntN(len(vs))]
			what = "delete " + key + "@" + v.id
			out, err := c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: b, Key: aws.String(key), VersionId: aws.String(v.id)})
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			if aws.ToBool(out.DeleteMarker) != v.marker {
				t.Fatalf("step %d: %s: DeleteMarker %v", step, what, aws.ToBool(out.DeleteMarker))
			}
			m.keys[key] = slices.DeleteFunc(slices.Clone(vs), func(x modelVersion) bool { return x.id == v.id })
		case r < 17:
			src := keys[rng.IntN(len(keys))]
			what = "copy " + src + " to " + key
			out, err := c.CopyObject(ctx, &s3.CopyObjectInput{Bucket: b, Key: aws.String(key), CopySource: aws.String("model/" + src),
				MetadataDirective: types.MetadataDirectiveReplace})
			sv, ok := m.latestLive(src)
			if !ok {
				itest.WantErr(t, err, http.StatusNotFound, "NoSuchKey")
				break
			}
			if err != nil {
				t.Fatalf("step %d: %s: %v", step, what, err)
			}
			if want := sv.id; m.state == "" {
				if out.CopySourceVersionId != nil {
					t.Fatalf("step %d: %s: copy source version %q on an unversioned bucket", step, what, aws.ToString(out.CopySourceVersionId))
				}
			} else if aws.ToString(out.CopySourceVersionId) != want {
				t.Fatalf("step %d: %s: copy source version %q, want %q", step, what, aws.ToString(out.CopySourceVersionId), want)
			}
			m.write(key, modelVersion{id: wantWriteVersion(t, m, out.VersionId, what), body: sv.body})
		case r < 19:
			what = "enable"
			setVersioning(t, c, "model", types.BucketVersioningStatusEnabled)
			m.state = types.BucketVersioningStatusEnabled
		default:
			if m.state == "" {
				continue // suspending first is possible, but rarer in practice
			}
			what = "suspend"
			setVersioning(t, c, "model", types.BucketVersioningStatusSuspended)
			m.state = types.BucketVersioningStatusSuspended
		}
		if step%10 == 0 || step == steps {
			checkVersionModel(t, srv, c, m, keys, fmt.Sprintf("after step %d (%s)", step, what))
		}
	}
}

// wantWriteVersion checks the x-amz-version-id of a write against the
// bucket's state and returns the version ID the write created.
func wantWriteVersion(t *testing.T, m *versionModel, got *string, what string) string {
	t.Helper()
	switch m.state {
	case "":
		if got != nil {
			t.Fatalf("%s on an unversioned bucket: x-amz-version-id %q", what, aws.ToString(got))
		}
		return "null"
	case types.BucketVersioningStatusSuspended:
		if aws.ToString(got) != "null" {
			t.Fatalf("%s on a suspended bucket: x-amz-version-id %q, want null", what, aws.ToString(got))
		}
		return "null"
	}
	id := aws.ToString(got)
	if id == "" || id == "null" {
		t.Fatalf("%s on a versioned bucket: x-amz-version-id %q", what, id)
	}
	return id
}

func checkVersionModel(t *testing.T, srv *testutil.Server, c *s3.Client, m *versionModel, keys []string, when string) {
	t.Helper()
	ctx := context.Background()
	b := aws.String(m.bucket)
	var want, live []string
	sorted := slices.Clone(keys)
	sort.Strings(sorted)
	for _, k := range sorted {
		vs := m.keys[k]
		for i, v := range vs {
			s := k + "@" + v.id
			if v.marker {
				s += "(DM)"
			}
			if i == 0 {
				s += "*"
			}
			want = append(want, s)
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: b, Key: aws.String(k), VersionId: aws.String(v.id)})
			if v.marker {
				itest.WantErr(t, err, http.StatusMethodNotAllowed, "MethodNotAllowed")
				continue
			}
			if err != nil {
				t.Fatalf("%s: GET %s@%s: %v", when, k, v.id, err)
			}
			body, _ := io.ReadAll(out.Body)
			out.Body.Close()
			if !bytes.Equal(body, v.body) {
				t.Fatalf("%s: GET %s@%s = %q, want %q", when, k, v.id, body, v.body)
			}
		}
		out, err := c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: b, Key: aws.String(k)})
		lv, ok := m.latestLive(k)
		switch {
		case ok:
			live = append(live, k)
			if err != nil || aws.ToInt64(out.ContentLength) != int64(len(lv.body)) {
				t.Fatalf("%s: HEAD %s = %+v, %v; want %d bytes", when, k, out, err, len(lv.body))
			}
			itest.WantObject(t, c, m.bucket, k, lv.body)
		case len(vs) > 0:
			itest.WantErr(t, err, http.StatusNotFound, "NotFound")
			if itest.ErrHeader(err, "X-Amz-Delete-Marker") != "true" || itest.ErrHeader(err, "X-Amz-Version-Id") != vs[0].id {
				t.Fatalf("%s: HEAD %s under marker %s: headers %q %q", when, k, vs[0].id,
					itest.ErrHeader(err, "X-Amz-Delete-Marker"), itest.ErrHeader(err, "X-Amz-Version-Id"))
			}
		default:
			itest.WantErr(t, err, http.StatusNotFound, "NotFound")
			if itest.ErrHeader(err, "X-Amz-Delete-Marker") != "" {
				t.Fatalf("%s: HEAD %s with no versions: x-amz-delete-marker sent", when, k)
			}
		}
	}
	if got := versionsOf(t, srv, c, m.bucket, 2); !slices.Equal(got, want) {
		t.Fatalf("%s: versions = %q\nwant %q", when, got, want)
	}
	list, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: b})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range list.Contents {
		got = append(got, aws.ToString(o.Key))
	}
	if !slices.Equal(got, live) {
		t.Fatalf("%s: ListObjectsV2 = %q, want %q", when, got, live)
	}
}
