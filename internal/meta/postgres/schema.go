package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// HasSchema reports whether the database at url holds a JOG schema (its
// jog_schema table), creating nothing: for tools that must find a store
// and not make one (jog fsck).
func HasSchema(ctx context.Context, url string) (bool, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ok bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass('jog_schema') IS NOT NULL").Scan(&ok); err != nil {
		return false, fmt.Errorf("postgres: %w", err)
	}
	return ok, nil
}
