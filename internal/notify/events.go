package notify

import "strings"

// EventName is an S3 event type as a configuration names it
// ("s3:ObjectCreated:Put"); the Event record carries it without "s3:".
type EventName string

// The events JOG emits.
const (
	ObjectCreatedPut                     EventName = "s3:ObjectCreated:Put"
	ObjectCreatedPost                    EventName = "s3:ObjectCreated:Post"
	ObjectCreatedCopy                    EventName = "s3:ObjectCreated:Copy"
	ObjectCreatedCompleteMultipartUpload EventName = "s3:ObjectCreated:CompleteMultipartUpload"
	ObjectRemovedDelete                  EventName = "s3:ObjectRemoved:Delete"
	ObjectRemovedDeleteMarkerCreated     EventName = "s3:ObjectRemoved:DeleteMarkerCreated"
	LifecycleExpirationDelete            EventName = "s3:LifecycleExpiration:Delete"
	LifecycleExpirationDeleteMarker      EventName = "s3:LifecycleExpiration:DeleteMarkerCreated"
)

// emitted are the event types (and their wildcards) a configuration may
// name: those JOG emits.
var emitted = map[string]bool{
	"s3:ObjectCreated:*": true, string(ObjectCreatedPut): true, string(ObjectCreatedPost): true,
	string(ObjectCreatedCopy): true, string(ObjectCreatedCompleteMultipartUpload): true,
	"s3:ObjectRemoved:*": true, string(ObjectRemovedDelete): true, string(ObjectRemovedDeleteMarkerCreated): true,
	"s3:LifecycleExpiration:*": true, string(LifecycleExpirationDelete): true, string(LifecycleExpirationDeleteMarker): true,
}

// notEmitted are S3's other event types: S3 sends them for what JOG does
// not do (restores, replication, tiering, transitions) or does without
// events (tagging, ACLs). A configuration naming one is refused with 501,
// not accepted to stay silent.
var notEmitted = []string{
	"s3:ReducedRedundancyLostObject", "s3:ObjectRestore:", "s3:Replication:",
	"s3:ObjectTagging:", "s3:ObjectAcl:", "s3:IntelligentTiering",
	"s3:LifecycleTransition", "s3:TestEvent",
}

func checkEvent(e string) error {
	if emitted[e] {
		return nil
	}
	for _, p := range notEmitted {
		if strings.HasPrefix(e, p) {
			return &ConfigError{Code: CodeNotImplemented, Name: "Event", Value: e,
				Msg: "JOG does not emit this event type: only s3:ObjectCreated:*, s3:ObjectRemoved:* and s3:LifecycleExpiration:* events."}
		}
	}
	return invalid("The event is not supported for notifications", e, "")
}

// Rules is a bucket's configuration compiled for matching events.
type Rules struct {
	rules []rule
}

type rule struct {
	id, target     string
	events         []string
	prefix, suffix string
}

// Compile returns c's rules; nil (no events) for an empty configuration.
func Compile(c Config) *Rules {
	if len(c.Queues) == 0 {
		return nil
	}
	rs := &Rules{}
	for _, q := range c.Queues {
		p, s := q.prefixSuffix()
		rs.rules = append(rs.rules, rule{id: q.ID, target: q.Queue, events: q.Events, prefix: p, suffix: s})
	}
	return rs
}

// Match calls fn with the configuration ID and target of each of the
// bucket's configurations event name on key matches. A nil Rules matches
// nothing.
func (rs *Rules) Match(name EventName, key string, fn func(id, target string)) {
	if rs == nil {
		return
	}
	for _, r := range rs.rules {
		if strings.HasPrefix(key, r.prefix) && strings.HasSuffix(key, r.suffix) && matchesAny(r.events, string(name)) {
			fn(r.id, r.target)
		}
	}
}

// matchesAny reports whether name is one of patterns or falls under a
// wildcard of them ("s3:ObjectCreated:*").
func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name || (strings.HasSuffix(p, ":*") && strings.HasPrefix(name, p[:len(p)-1])) {
			return true
		}
	}
	return false
}
