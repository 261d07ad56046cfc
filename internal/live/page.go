package live

import (
	_ "embed"
	"strings"

	"github.com/hammer-load/hammer/internal/webassets/uplot"
)

// pageTemplate is the live page, with uPlot's stylesheet and script left
// out (see Page).
//
//go:embed page.html
var pageTemplate string

// Page is the live page: one HTML file with uPlot inlined, which loads
// nothing from anywhere but the server's own event stream and report.
func Page() []byte {
	return []byte(strings.NewReplacer(
		"/*UPLOT_CSS*/", uplot.CSS(),
		"/*UPLOT_JS*/", uplot.JS(),
	).Replace(pageTemplate))
}
