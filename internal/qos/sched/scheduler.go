package sched

// Scheduler is the pair of independent directions of a server's data path.
type Scheduler struct {
	Read  *Direction // bytes written to the socket on GET
	Write *Direction // bytes read from the socket on PUT and UploadPart
}

// New returns a Scheduler whose directions share everything in cfg but the
// capacity.
func New(cfg Config, readCapacity, writeCapacity float64) *Scheduler {
	r, w := cfg, cfg
	r.Capacity, w.Capacity = readCapacity, writeCapacity
	return &Scheduler{Read: NewDirection(r), Write: NewDirection(w)}
}
