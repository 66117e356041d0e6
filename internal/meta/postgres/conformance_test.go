package postgres

import (
	"context"
	"io/fs"
	"os"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/metatest"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// openURL creates a new, empty database on the shared cluster.
func openURL(t *testing.T) string {
	t.Helper()
	return pgtest.Shared(t).NewDatabase(t)
}

// mustMigrations lists the embedded migrations.
func mustMigrations(t *testing.T) []string {
	t.Helper()
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// openFresh opens a store on a new, empty database of the shared cluster.
func openFresh(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), openURL(t), Options{MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func opener(t *testing.T) meta.Store { return openFresh(t) }

// The conformance suite, group by group as the groups are implemented.
var _ = metatest.Run

func TestConformanceBuckets(t *testing.T) { metatest.RunBuckets(t, opener) }

func TestConformanceObjects(t *testing.T) { metatest.RunObjects(t, opener) }

func TestConformanceUploads(t *testing.T) { metatest.RunUploads(t, opener) }

func TestConformanceMaintenance(t *testing.T) { metatest.RunMaintenance(t, opener) }

func TestConformanceIAM(t *testing.T) { metatest.RunIAM(t, opener) }

func TestConformanceReservations(t *testing.T) { metatest.RunReservations(t, opener) }

func TestConformanceSessions(t *testing.T) { metatest.RunSessions(t, opener) }
