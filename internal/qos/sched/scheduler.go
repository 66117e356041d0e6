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

// RequestBytes is what a request-rate reservation reserves, per reserved
// request, in the Read and Write directions: the first RequestBytes of each
// of its requests' bodies are its own (Spec.Head), at RequestBytes ×
// Requests bytes/s on top of any byte rate, so that a small request granted
// on the reservation does not then queue as best effort behind every
// backlogged client for its bytes. The rest of a larger body is best effort
// under its principal. docs/QOS.md (Request rates).
const RequestBytes = 16 << 10

// Rates is one reservation in every direction: bytes/s of reads and of
// writes, requests/s; 0 reserves nothing in that direction.
type Rates struct{ Read, Write, Requests float64 }

// specs returns the Spec rt registers in each of Scheduler.directions; a
// zero Rate registers none there.
func (rt Rates) specs() [3]Spec {
	bytes := func(rate float64) Spec {
		s := Spec{Rate: rate + rt.Requests*RequestBytes}
		if rate <= 0 && rt.Requests > 0 {
			s.Head = RequestBytes // a request rate alone: its requests' heads only
		}
		return s
	}
	return [3]Spec{bytes(rt.Read), bytes(rt.Write), {Rate: rt.Requests}}
}

// directions are s's directions in the order of Rates.specs (nil where
// absent).
func (s *Scheduler) directions() [3]*Direction { return [3]*Direction{s.Read, s.Write, s.Requests} }

// Reserve registers the reservation id with rt in every direction it
// reserves (a request rate in the request direction, and RequestBytes per
// request in the byte directions), or updates it; on an error it releases
// id everywhere.
func (s *Scheduler) Reserve(id string, rt Rates) error {
	dirs := s.directions()
	for i, spec := range rt.specs() {
		if dirs[i] == nil || spec.Rate <= 0 {
			continue
		}
		if err := dirs[i].Reserve(id, spec); err != nil {
			s.Release(id)
			return err
		}
	}
	return nil
}

// Release ends the reservation id in every direction.
func (s *Scheduler) Release(id string) {
	for _, d := range s.directions() {
		if d != nil {
			d.Release(id)
		}
	}
}
