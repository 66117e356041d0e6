package gateways

import (
	"math"
	"testing"

	"github.com/anishathalye/porcupine"
)

func op(client int, call, ret int64, in input, out output) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

// TestModel: the checker accepts linearizable histories and rejects the
// anomalies the gateways must not show — a stale read after a write
// completed, two winners of one If-None-Match race, an If-Match that
// succeeded against a value that was not there — so the end-to-end test
// can fail.
func TestModel(t *testing.T) {
	const k = "k"
	put := func(v string) input { return input{Key: k, Kind: opPut, Value: v} }
	get := input{Key: k, Kind: opGet}
	ifAbsent := func(v string) input { return input{Key: k, Kind: opPutIfAbsent, Value: v} }
	ifMatch := func(v, was string) input { return input{Key: k, Kind: opPutIfMatch, Value: v, Expect: was} }
	ok, failed, unknown := output{Out: outOK}, output{Out: outFailed}, output{Out: outUnknown}
	read := func(v string) output { return output{Out: outOK, Value: v} }
	forever := int64(math.MaxInt64)
	for _, c := range []struct {
		name string
		ok   bool
		h    []porcupine.Operation
	}{
		{"sequential", true, []porcupine.Operation{op(0, 0, 1, put("a"), ok), op(1, 2, 3, get, read("a"))}},
		{"concurrent read may see either", true, []porcupine.Operation{op(0, 0, 2, put("b"), ok), op(1, 1, 3, get, output{Out: outMissing})}},
		{"stale read", false, []porcupine.Operation{op(0, 0, 1, put("a"), ok), op(0, 2, 3, put("b"), ok), op(1, 4, 5, get, read("a"))}},
		{"two winners of if-none-match", false, []porcupine.Operation{op(0, 0, 3, ifAbsent("a"), ok), op(1, 1, 2, ifAbsent("b"), ok)}},
		{"one winner of if-none-match", true, []porcupine.Operation{op(0, 0, 3, ifAbsent("a"), ok), op(1, 1, 2, ifAbsent("b"), failed), op(2, 4, 5, get, read("a"))}},
		{"if-match against a value not there", false, []porcupine.Operation{op(0, 0, 1, put("a"), ok), op(1, 2, 3, ifMatch("c", "b"), ok)}},
		{"if-match against the value there", true, []porcupine.Operation{op(0, 0, 1, put("a"), ok), op(1, 2, 3, ifMatch("c", "a"), ok), op(2, 4, 5, get, read("c"))}},
		{"unknown write may have happened", true, []porcupine.Operation{op(0, 0, forever, put("a"), unknown), op(1, 2, 3, get, read("a"))}},
		{"unknown write may not have happened", true, []porcupine.Operation{op(0, 0, forever, put("a"), unknown), op(1, 2, 3, get, output{Out: outMissing})}},
		{"deleted object read", false, []porcupine.Operation{op(0, 0, 1, put("a"), ok), op(0, 2, 3, input{Key: k, Kind: opDelete}, ok), op(1, 4, 5, get, read("a"))}},
	} {
		if got := porcupine.CheckOperations(model(), c.h); got != c.ok {
			t.Errorf("%s: linearizable %v, want %v", c.name, got, c.ok)
		}
	}
}
