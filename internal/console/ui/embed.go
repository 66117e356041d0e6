// Package ui holds the JOG console's front end: plain ES modules, one
// stylesheet and index.html under dist/, served as they are (no build
// step; docs/adr/0022-console-front-end.md). package internal/console
// serves FS at /console/.
package ui

import "embed"

// FS holds dist/index.html and its assets (dist/app.css, dist/js/...).
//
//go:embed dist
var FS embed.FS
