package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// How jog admin prints an answer, as gh and kubectl do: for people, a
// listing has a header line (its field names) and says so when it is
// empty, one result prints as labelled lines ("AccessKeyId: …"), an
// action that returns nothing confirms what it did in one line; with
// --json, the same fields, by name, as a JSON array (a listing) or object.

// printer prints jog admin's answers on out, as JSON when json is set.
type printer struct {
	out  io.Writer
	json bool
}

// jsonWords are the spellings of --json after the command's words (jog
// admin user list --json), where the flag set does not see them.
var jsonWords = []string{"--json", "-json"}

// takeJSON removes --json from words and reports whether it was there.
func takeJSON(words []string) ([]string, bool) {
	kept := slices.DeleteFunc(slices.Clone(words), func(w string) bool { return slices.Contains(jsonWords, w) })
	return kept, len(kept) != len(words)
}

// printList prints rows of fields as a listing; none prints "no <what>".
func (a *printer) printList(what string, rows [][]string, fields []string) error {
	if a.json {
		objs := make([]map[string]string, 0, len(rows))
		for _, r := range rows {
			objs = append(objs, fieldMap(r, fields))
		}
		return a.printJSON(objs)
	}
	if len(rows) == 0 {
		fmt.Fprintf(a.out, "no %s\n", what)
		return nil
	}
	fmt.Fprintln(a.out, strings.Join(fields, "\t"))
	for _, r := range rows {
		fmt.Fprintln(a.out, strings.Join(r, "\t"))
	}
	return nil
}

// printOne prints one result's fields as labelled lines; a result of one
// field (a policy document) is printed alone. A secret access key is
// shown this once: the line after it says so.
func (a *printer) printOne(row, fields []string) error {
	if a.json {
		return a.printJSON(fieldMap(row, fields))
	}
	if len(fields) == 1 {
		fmt.Fprintln(a.out, row[0])
		return nil
	}
	for i, f := range fields {
		fmt.Fprintf(a.out, "%s: %s\n", f, row[i])
	}
	if slices.Contains(fields, "SecretAccessKey") {
		fmt.Fprintln(a.out, "The secret access key is shown only this once: keep it now.")
	}
	return nil
}

// printDone confirms an action that answers nothing: done for people;
// with --json, the action and its parameters by name (not a document's
// text, which the caller has).
func (a *printer) printDone(action string, params, args []string, done string) error {
	if !a.json {
		fmt.Fprintln(a.out, done)
		return nil
	}
	obj := map[string]string{"Action": action}
	for i, p := range params {
		if !strings.HasSuffix(p, "Document") {
			obj[p] = args[i]
		}
	}
	return a.printJSON(obj)
}

func (a *printer) printJSON(v any) error {
	enc := json.NewEncoder(a.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// fieldMap is a row as an object keyed by its fields' names.
func fieldMap(row, fields []string) map[string]string {
	m := make(map[string]string, len(fields))
	for i, f := range fields {
		m[f] = row[i]
	}
	return m
}
