// Package uplot holds uPlot, the chart library report.html draws its
// charts with, vendored from the npm registry (see NOTICE.md for the
// version and where it came from) and embedded into the binary, so the
// page needs no network.
package uplot

import _ "embed"

// Version is the vendored uPlot's version, as published on npm.
const Version = "1.6.32"

// JS is uPlot's minified browser build (dist/uPlot.iife.min.js), which
// defines the global uPlot.
//
//go:embed uPlot.iife.min.js
var JS string

// CSS is uPlot's stylesheet (dist/uPlot.min.css).
//
//go:embed uPlot.min.css
var CSS string

// License is uPlot's MIT licence, which must travel with it: report.html
// carries it in a comment beside the inlined library.
//
//go:embed LICENSE
var License string
