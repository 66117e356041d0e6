// Package ui holds the web console's built files, embedded in the
// binary: dist/index.html and its assets. This is a placeholder until
// the UI lands (console-ui replaces this file and dist/).
package ui

import "embed"

// FS holds dist/: index.html and its assets.
//
//go:embed dist
var FS embed.FS
