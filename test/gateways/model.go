// Package gateways tests several `jog server` processes over one
// PostgreSQL database and one shared data directory (issue 24):
// linearizable per key (TestLinearizableAcrossGateways: concurrent clients
// put, get, delete, put conditionally and complete multipart uploads on a
// few keys through three gateways while gateways are killed with SIGKILL
// and restarted; the recorded history is checked per key with porcupine,
// github.com/anishathalye/porcupine), and no gateway serving another's
// change stale for longer than its cache's stated bound (TestStaleness).
package gateways

import (
	"fmt"

	"github.com/anishathalye/porcupine"
)

// opKind is what a client did.
type opKind int

const (
	opGet opKind = iota
	opPut
	opDelete
	opPutIfAbsent // If-None-Match: *
	opPutIfMatch  // If-Match: the ETag of Value's predecessor (Expect)
	opMultipart   // CreateMultipartUpload, UploadPart ×2, Complete, through different gateways
)

func (k opKind) String() string {
	return [...]string{"get", "put", "delete", "put-if-absent", "put-if-match", "multipart"}[k]
}

// input is one operation on one key. Value names what a write stores (the
// object's bytes are derived from it); Expect is the value whose ETag an
// If-Match names.
type input struct {
	Key    string
	Kind   opKind
	Value  string
	Expect string
}

// outcome is how an operation ended.
type outcome int

const (
	outOK      outcome = iota // 200/204: done (for a get: found, Value read)
	outMissing                // get: 404 NoSuchKey
	outFailed                 // a condition did not hold: 412 (or 404 for If-Match on no object)
	outRefused                // refused before it was tried (503 SlowDown, 409 ConditionalRequestConflict): not done
	outUnknown                // no answer (the gateway died, a 500): it may or may not have happened
)

// output is what the client saw. For a get, Value is the value read.
type output struct {
	Out   outcome
	Value string
}

// state is a key's object: absent, or present with a value.
type state struct {
	Exists bool
	Value  string
}

// step is the sequential specification: every state the key can be in
// after op, given what the client saw; none if the observation is
// impossible from s. An unknown outcome is either state: applied or not.
func step(s state, in input, out output) []state {
	applied := func() (state, bool) {
		switch in.Kind {
		case opPut, opMultipart:
			return state{true, in.Value}, true
		case opDelete:
			return state{}, true
		case opPutIfAbsent:
			return state{true, in.Value}, !s.Exists
		case opPutIfMatch:
			// Values are unique per write, so the ETag the client read
			// with Expect matches exactly when Expect is still there.
			return state{true, in.Value}, s.Exists && s.Value == in.Expect
		}
		return s, false
	}
	if in.Kind == opGet {
		switch {
		case out.Out == outOK && s.Exists && s.Value == out.Value:
			return []state{s}
		case out.Out == outMissing && !s.Exists:
			return []state{s}
		}
		return nil
	}
	next, holds := applied()
	switch out.Out {
	case outOK:
		if holds {
			return []state{next}
		}
	case outFailed:
		if !holds && (in.Kind == opPutIfAbsent || in.Kind == opPutIfMatch) {
			return []state{s}
		}
	case outRefused:
		return []state{s}
	case outUnknown:
		if holds {
			return []state{s, next}
		}
		return []state{s}
	}
	return nil
}

// model is the porcupine model of one key at a time (histories are
// partitioned by key).
func model() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
			byKey := map[string][]porcupine.Operation{}
			var keys []string
			for _, op := range h {
				k := op.Input.(input).Key
				if _, ok := byKey[k]; !ok {
					keys = append(keys, k)
				}
				byKey[k] = append(byKey[k], op)
			}
			parts := make([][]porcupine.Operation, 0, len(keys))
			for _, k := range keys {
				parts = append(parts, byKey[k])
			}
			return parts
		},
		Init: func() []any { return []any{state{}} },
		Step: func(s, in, out any) []any {
			var r []any
			for _, n := range step(s.(state), in.(input), out.(output)) {
				r = append(r, n)
			}
			return r
		},
		DescribeOperation: func(in, out any) string {
			i, o := in.(input), out.(output)
			res := [...]string{"ok", "missing", "failed", "refused", "unknown"}[o.Out]
			switch i.Kind {
			case opGet:
				if o.Out == outOK {
					res = o.Value
				}
				return fmt.Sprintf("get(%s) → %s", i.Key, res)
			case opPutIfMatch:
				return fmt.Sprintf("put-if-match(%s, %s, was %s) → %s", i.Key, i.Value, i.Expect, res)
			}
			return fmt.Sprintf("%s(%s, %s) → %s", i.Kind, i.Key, i.Value, res)
		},
		DescribeState: func(s any) string {
			st := s.(state)
			if !st.Exists {
				return "absent"
			}
			return st.Value
		},
	}
	return nm.ToModel()
}
