// Package outage keeps the log of a dependency's outage readable: the
// callers of a store that stops answering report each failure and each
// success to a Tracker, which logs the outage's start in one WARN line,
// then at most one line per interval with how many failures it did not
// log, and one INFO line when the store answers again ("serving again").
// Error texts are folded into one line (a driver's error may hold
// several, one per address it tried).
package outage
