package metamigrate_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/postgres"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/metamigrate"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

type store interface {
	meta.Store
	meta.Exporter
	meta.Importer
}

func openSQLite(t *testing.T, path string) store {
	t.Helper()
	s, err := sqlite.OpenWith(t.Context(), path, sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T) (store, string) {
	t.Helper()
	url := pgtest.Shared(t).NewDatabase(t)
	s, err := postgres.Open(t.Context(), url, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, url
}

// migrate copies src into dst and verifies the copy by its checksums.
func migrate(t *testing.T, src meta.Exporter, dst store) metamigrate.Report {
	t.Helper()
	var rep metamigrate.Report
	if err := metamigrate.Copy(t.Context(), src, dst, nil, &rep); err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if err := metamigrate.Verify(t.Context(), dst, &rep); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	return rep
}

// TestRoundTrip copies a store holding every kind of row from SQLite to
// PostgreSQL and back to SQLite: what meta.Store answers must be the same
// from all three, and each store must go on working (new IDs do not
// collide with copied ones).
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := openSQLite(t, filepath.Join(dir, "src.db"))
	fill(t, src)
	want := snapshot(t, src)

	pg, _ := openPostgres(t)
	rep := migrate(t, src, pg)
	for _, tr := range rep.Tables {
		if tr.Name != "reservations" && tr.Name != "iam_state" && tr.Rows == 0 {
			t.Errorf("table %s: no rows copied: fill misses it", tr.Name)
		}
	}
	compareSnapshots(t, "sqlite -> postgres", want, snapshot(t, pg))

	back := openSQLite(t, filepath.Join(dir, "back.db"))
	migrate(t, pg, back)
	compareSnapshots(t, "postgres -> sqlite", want, snapshot(t, back))

	for name, s := range map[string]meta.Store{"postgres": pg, "sqlite": back} {
		writeAfter(t, name, s)
	}
}

// writeAfter writes new rows of every generated ID to a migrated store.
func writeAfter(t *testing.T, name string, s meta.Store) {
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "new", Region: "r", CreatedAt: t0, Owner: "o"}); err != nil {
		t.Errorf("%s: CreateBucket after the migration: %v", name, err)
	}
	if _, err := s.PutObject(ctx, meta.Object{Bucket: "new", Key: "k", VersionID: meta.NullVersion, Inline: []byte("x"), Size: 1, ETag: "e", LastModified: t0}, meta.Condition{}); err != nil {
		t.Errorf("%s: inline PutObject after the migration: %v", name, err)
	}
	if err := s.CreateEntity(ctx, meta.IAMEntity{Kind: meta.EntityUser, Name: "carol", Path: "/", ID: "AIDACAROL", ARN: "arn:carol", Created: t0}); err != nil {
		t.Errorf("%s: CreateEntity after the migration: %v", name, err)
	}
	if err := s.CreatePolicy(ctx, meta.ManagedPolicy{Name: "P2", Path: "/", ID: "ANPAP2", ARN: "arn:p2", Document: []byte("{}"), DefaultVersion: "v1", Created: t0, Updated: t0}); err != nil {
		t.Errorf("%s: CreatePolicy after the migration: %v", name, err)
	}
	o, err := s.GetObject(ctx, "plain", "a/inline", "")
	if err != nil || string(o.Inline) != "small bytes\x00\xff" {
		t.Errorf("%s: copied inline object = %q, %v", name, o.Inline, err)
	}
}

// TestNotEmpty: a target holding anything is refused, and left alone.
func TestNotEmpty(t *testing.T) {
	dir := t.TempDir()
	src := openSQLite(t, filepath.Join(dir, "src.db"))
	fill(t, src)
	for name, dst := range map[string]store{"sqlite": openSQLite(t, filepath.Join(dir, "dst.db")), "postgres": must1(openPostgres(t))} {
		if err := dst.CreateBucket(t.Context(), meta.Bucket{Name: "there", Region: "r", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		var rep metamigrate.Report
		err := metamigrate.Copy(t.Context(), src, dst, nil, &rep)
		if !errors.Is(err, meta.ErrNotEmpty) {
			t.Errorf("%s: Copy into a store with a bucket = %v, want ErrNotEmpty", name, err)
		}
		if bs, _ := dst.ListBuckets(t.Context(), meta.ListBucketsOptions{}); len(bs) != 1 {
			t.Errorf("%s: target changed: %v", name, bs)
		}
	}
}

func must1[T any](v T, _ string) T { return v }

// invisible are the columns meta.Store does not show (a client cannot
// tell a wrong value), which only the copy's checksum vouches for.
var invisible = []string{
	"bucket_configs.updated_at",                      // no method returns it
	"iam_state.id",                                   // always 1
	"inline_data.id",                                 // the objects' inline_id moves with it
	"objects.inline_id", "object_versions.inline_id", // pointing at other inline rows gives wrong bytes, but a
	// consistent +1 on both sides is invisible; inline_data.data is checked
	"object_versions.seq",                              // order only: +1 on every row keeps it
	"buckets.id", "iam_policies.id", "iam_entities.id", // surrogate keys
}

// TestEveryColumnChecked copies a filled store with one column's values
// changed on the way, for every column of meta.Tables in turn: the copy's
// checksum must differ (Verify fails), and unless the column is invisible
// to clients, what meta.Store answers must differ too. It shows that the
// round trip test fails when a column is not copied.
func TestEveryColumnChecked(t *testing.T) {
	dir := t.TempDir()
	src := openSQLite(t, filepath.Join(dir, "src.db"))
	fill(t, src)
	want := snapshot(t, src)
	n := 0
	for _, tab := range meta.Tables {
		for ci, c := range tab.Columns {
			n++
			name := tab.Name + "." + c.Name
			dst, err := sqlite.OpenWith(t.Context(), filepath.Join(dir, name+".db"), sqlite.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			checkMutation(t, name, src, dst, tab.Name, ci, want)
			dst.Close()
		}
	}
	t.Logf("%d columns changed one at a time", n)
}

// checkMutation copies src into dst with column col of table changed.
func checkMutation(t *testing.T, name string, src meta.Exporter, dst store, table string, col int, want map[string]string) {
	var rep metamigrate.Report
	if err := metamigrate.Copy(t.Context(), src, mutating{dst, table, col}, nil, &rep); err != nil {
		return // the target refused the changed rows (a key or constraint): caught
	}
	if err := metamigrate.Verify(t.Context(), dst, &rep); !errors.Is(err, metamigrate.ErrMismatch) {
		t.Errorf("%s changed: Verify = %v, want ErrMismatch", name, err)
	}
	if slices.Contains(invisible, name) {
		return
	}
	if diffs := diffSnapshots(want, snapshot(t, dst)); len(diffs) == 0 {
		t.Errorf("%s changed: meta.Store answers the same", name)
	}
}

// mutating is an importer that changes column col of table's rows.
type mutating struct {
	store
	table string
	col   int
}

func (m mutating) BeginImport(ctx context.Context) (meta.Import, error) {
	im, err := m.store.BeginImport(ctx)
	return mutImport{im, m}, err
}

type mutImport struct {
	meta.Import
	m mutating
}

func (im mutImport) Write(ctx context.Context, t meta.Table, rows []meta.Row) error {
	if t.Name != im.m.table {
		return im.Import.Write(ctx, t, rows)
	}
	changed := make([]meta.Row, len(rows))
	for i, r := range rows {
		r = slices.Clone(r)
		switch v := r[im.m.col].(type) {
		case nil:
			if t.Columns[im.m.col].Kind == meta.KindText {
				r[im.m.col] = ""
			}
		case int64:
			r[im.m.col] = v + 1
		case string:
			r[im.m.col] = v + "x"
		case bool:
			r[im.m.col] = !v
		case []byte:
			r[im.m.col] = append(slices.Clone(v), 'x')
		}
		changed[i] = r
	}
	return im.Import.Write(ctx, t, changed)
}

// TestSchemaCovered: every column of both schemas is copied (meta.Tables)
// or derived by the importer. A migration that adds a column fails here
// until the column is given to meta.Tables or named derived.
func TestSchemaCovered(t *testing.T) {
	copied := map[string]bool{}
	for _, tab := range meta.Tables {
		for _, c := range tab.Columns {
			copied[tab.Name+"."+c.Name] = true
		}
	}
	derived := map[string][]string{
		"sqlite":   {"objects.parent", "objects.is_latest", "buckets.has_versions", "buckets.used_bytes", "buckets.object_count", "dirs.bucket_id", "dirs.parent", "dirs.name"},
		"postgres": {"buckets.used_bytes", "jog_schema.version"},
	}
	check := func(backend string, cols []string) {
		seen := map[string]bool{}
		for _, c := range cols {
			seen[c] = true
			if !copied[c] && !slices.Contains(derived[backend], c) {
				t.Errorf("%s: column %s is neither copied nor derived", backend, c)
			}
		}
		for c := range copied {
			if !seen[c] {
				t.Errorf("%s: meta.Tables names %s, which the schema lacks", backend, c)
			}
		}
	}

	path := filepath.Join(t.TempDir(), "s.db")
	openSQLite(t, path).Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var cols []string
	rows, err := db.Query("SELECT m.name || '.' || p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	check("sqlite", cols)

	_, url := openPostgres(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	pgRows, err := conn.Query(t.Context(), "SELECT table_name || '.' || column_name FROM information_schema.columns WHERE table_schema = current_schema()")
	if err != nil {
		t.Fatal(err)
	}
	cols, err = pgx.CollectRows(pgRows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	check("postgres", cols)
}

// TestManyRows copies tables of several batches each, some cut by rows
// and some by bytes (inline data), from SQLite to PostgreSQL and back.
func TestManyRows(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: writes 3,000 objects")
	}
	dir := t.TempDir()
	src := openSQLite(t, filepath.Join(dir, "src.db"))
	ctx := t.Context()
	if err := src.CreateBucket(ctx, meta.Bucket{Name: "many", Region: "r", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	inline := make([]byte, 16<<10)
	for i := range 3000 {
		o := meta.Object{Bucket: "many", Key: fmt.Sprintf("d%d/k%05d", i%7, i), VersionID: meta.NullVersion, BlobID: fmt.Sprintf("b%d", i),
			Size: int64(i), ETag: fmt.Sprint(i), LastModified: t0}
		if i%10 == 0 {
			inline[0] = byte(i)
			o.BlobID, o.Inline, o.Size = "", inline, int64(len(inline))
		}
		if _, err := src.PutObject(ctx, o, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	want := snapshot(t, src)
	pg, _ := openPostgres(t)
	rep := migrate(t, src, pg)
	if n := rep.Tables[slices.IndexFunc(rep.Tables, func(r metamigrate.TableReport) bool { return r.Name == "objects" })].Rows; n != 3000 {
		t.Errorf("objects copied: %d rows, want 3000", n)
	}
	compareSnapshots(t, "sqlite -> postgres", want, snapshot(t, pg))
	back := openSQLite(t, filepath.Join(dir, "back.db"))
	migrate(t, pg, back)
	compareSnapshots(t, "postgres -> sqlite", want, snapshot(t, back))
}

// TestUnstorable: a key SQLite keeps but PostgreSQL's text cannot hold
// stops the copy with meta.ErrUnstorableKey naming it, and nothing is
// committed.
func TestUnstorable(t *testing.T) {
	src := openSQLite(t, filepath.Join(t.TempDir(), "src.db"))
	ctx := t.Context()
	if err := src.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "r", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"fine", "nul\x00key"} {
		if _, err := src.PutObject(ctx, meta.Object{Bucket: "b", Key: k, VersionID: meta.NullVersion, ETag: "e", LastModified: t0}, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	pg, _ := openPostgres(t)
	var rep metamigrate.Report
	err := metamigrate.Copy(ctx, src, pg, nil, &rep)
	if !errors.Is(err, meta.ErrUnstorableKey) || !strings.Contains(err.Error(), `"nul\x00key"`) {
		t.Errorf("Copy of a key with a NUL = %v, want ErrUnstorableKey naming it", err)
	}
	if rep.Committed {
		t.Error("the copy committed")
	}
	if bs, _ := pg.ListBuckets(ctx, meta.ListBucketsOptions{}); len(bs) != 0 {
		t.Errorf("target after the failed copy: %v", bs)
	}
}
