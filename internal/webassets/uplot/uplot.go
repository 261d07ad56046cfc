// Package uplot holds uPlot, a small chart library for the browser,
// vendored for the pages hammer serves and writes (the live page,
// report.html), so that they make no network request.
//
// The files are uPlot 1.6.32 exactly as the npm registry ships it
// (`npm pack uplot@1.6.32`, sha256 of the tarball
// 4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d):
// dist/uPlot.iife.min.js, dist/uPlot.min.css and its LICENSE (MIT),
// kept beside them. To update, pack the new version the same way, copy
// the same three files and change Version.
package uplot

import _ "embed"

// Version is the uPlot release vendored here.
const Version = "1.6.32"

// The files, embedded; read through the functions below only.
var (
	//go:embed uPlot.iife.min.js
	js string
	//go:embed uPlot.min.css
	css string
	//go:embed LICENSE
	license string
)

// JS is uPlot's minified browser build; it defines the global uPlot.
func JS() string { return js }

// CSS is uPlot's stylesheet.
func CSS() string { return css }

// License is uPlot's licence text, to ship with every copy.
func License() string { return license }
