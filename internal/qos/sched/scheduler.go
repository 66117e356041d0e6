package sched

// Scheduler is the set of independent directions of a server's data path.
// Each is scheduled on its own; a reservation is registered in every
// direction it reserves (Reserve on that Direction) and is best effort in
// the others.
type Scheduler struct {
	Read  *Direction // body bytes written to the socket on GET, in bytes
	Write *Direction // body bytes read from the socket on PUT and UploadPart, in bytes
	// Requests is the request-rate dimension: one unit per request, rates
	// in requests/s. Nil when no request capacity is configured.
	Requests *Direction
}

// Capacities are what the server can do per direction. Zero leaves a
// direction unpaced (Read, Write) or absent (Requests).
type Capacities struct {
	Read, Write float64 // bytes/s
	Requests    float64 // requests/s
}

// New returns a Scheduler whose directions share cfg but for the capacity.
// The request direction grants one request at a time and banks at most one.
func New(cfg Config, c Capacities) *Scheduler {
	r, w := cfg, cfg
	r.Capacity, w.Capacity = c.Read, c.Write
	s := &Scheduler{Read: NewDirection(r), Write: NewDirection(w)}
	if c.Requests > 0 {
		q := cfg
		q.Capacity, q.Chunk, q.Burst = c.Requests, 1, 1
		s.Requests = NewDirection(q)
	}
	return s
}

// Release ends the reservation id in every direction.
func (s *Scheduler) Release(id string) {
	for _, d := range []*Direction{s.Read, s.Write, s.Requests} {
		if d != nil {
			d.Release(id)
		}
	}
}
