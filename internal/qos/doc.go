// Package qos owns throughput reservations (issue 23, docs/QOS.md): what
// makes one valid, its state at an instant (pending, active, expired),
// and the Reservations service the S3 edge drives — create with
// admission control against the configured capacity, list, show, cancel,
// and the cheap lookups the data path makes on every request that
// presents a reservation (Active) or whose principal has one bound to it
// (Bound).
//
// The store (meta.ReservationStore) keeps reservations and admits them
// atomically; this package decides everything else. The data-path
// scheduler that enforces the rates is internal/qos/sched; the Activator
// registers reservations in it from their start to their end, and
// admission leaves its best-effort guard unreserved (Reservable).
package qos
