package postgres

import (
	"context"
	"sync"
	"testing"
)

// TestOpenMigratesOnce: gateways opening one new database at once migrate
// it once, and each finds the schema current.
func TestOpenMigratesOnce(t *testing.T) {
	url := openURL(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	stores := make([]*Store, 3)
	errs := make([]error, 3)
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, url, Options{MaxConns: 2})
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("gateway %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	var rows, version int
	if err := stores[0].pool.QueryRow(ctx, "SELECT count(*), max(version) FROM jog_schema").Scan(&rows, &version); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || version != len(mustMigrations(t)) {
		t.Errorf("jog_schema: %d rows, version %d; want 1 row at %d", rows, version, len(mustMigrations(t)))
	}
	var accounts int
	if err := stores[1].pool.QueryRow(ctx, "SELECT count(*) FROM iam_state").Scan(&accounts); err != nil || accounts != 1 {
		t.Errorf("iam_state rows %d, %v; want 1", accounts, err)
	}
}
