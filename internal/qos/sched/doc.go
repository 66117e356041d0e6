// Package sched is the data-path scheduler of throughput reservations
// (issue 23 item 4): it decides when a request may move its next chunk of
// body bytes so that every active reservation gets at least its rate while
// others compete, the spare capacity is shared by weight, a reservation is
// capped at its limit, and best effort never starves.
//
// The model is mClock's (Gulati, Merchant, Varman, OSDI 2010; Ceph's dmClock
// OSD scheduler) in bytes: each client — a reservation, or a best-effort
// principal — carries a reservation tag R (when its next reserved byte is
// due, advancing chunk/rate), a limit tag L (chunk/limit) and a proportional
// tag P (virtual time, chunk/weight). A direction is paced at its capacity;
// at each grant the scheduler first serves the smallest due R tag
// (constraint phase), otherwise the smallest P tag among clients under
// their limit (weight phase). Service in one phase is not charged to the
// other, so a reserved client gets its rate plus its weighted share of what
// is left. The best-effort class as a whole holds a pseudo-reservation of
// Config.BestEffortShare of the capacity: the starvation guard. Idle
// clients and an idle device bank at most one burst (one chunk by default).
//
// A Direction is unit-agnostic: Scheduler.Requests is the same scheduler
// counting requests instead of bytes, for request-rate reservations.
// Scheduler.Reserve registers a reservation in every direction it reserves;
// a request rate also reserves the first RequestBytes of each request's
// body in the byte directions (Spec.Head), so that a small request granted
// on its reservation does not then wait as best effort for its bytes.
//
// With no reservation registered (or only reservations with a Head) a
// direction is unscheduled: Flow.Wait and the Reader and Writer wrappers
// cost one atomic load, no lock and no allocation. docs/QOS.md (Enforcement) describes the model and the tests.
//
// The package stands alone: the reservations control plane registers and
// releases reservations (Scheduler.Reserve, Release, SetCapacity), and the
// data path asks for grants through a Flow.
package sched
