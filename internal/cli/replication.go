package cli

import (
	"context"
	"fmt"
)

// replicationResync is "jog admin replication resync BUCKET" (POST: start
// or find running) and "… status BUCKET" (GET) on the bucket's
// ?replication-resync: it prints the resync's progress, labelled.
func replicationResync(method string) adminCommand {
	return adminCommand{args: []string{"BUCKET"}, run: func(ctx context.Context, a *admin, args []string) error {
		out, err := a.s3Call(ctx, method, args[0], "replication-resync", nil)
		if err != nil {
			return err
		}
		fields := []string{"Started", "Ended", "After", "Scanned", "Queued", "Error"}
		rows, err := rowsOf(out, "ReplicationResync", fields...)
		if err != nil || len(rows) != 1 {
			return fmt.Errorf("unreadable answer: %v", err)
		}
		r := rows[0]
		if a.json {
			return a.printOne(append([]string{args[0]}, r...), append([]string{"Bucket"}, fields...))
		}
		state := "running"
		if r[1] != "" {
			state = "ended " + r[1]
		}
		fmt.Fprintf(a.out, "bucket:   %s\nresync:   %s (started %s)\nscanned:  %s versions\nqueued:   %s versions\n", args[0], state, r[0], r[3], r[4])
		if r[2] != "" {
			fmt.Fprintf(a.out, "done up to key: %s\n", r[2])
		}
		if r[5] != "" {
			fmt.Fprintf(a.out, "error:    %s\n", r[5])
		}
		return nil
	}}
}
