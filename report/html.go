package report

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/hammer-load/hammer/folder"
	"github.com/hammer-load/hammer/report/chart"
	"github.com/hammer-load/hammer/report/html/uplot"
	"github.com/hammer-load/hammer/verify"
)

// pageFiles are report.html's template, stylesheet and script.
//
//go:embed html/page.tmpl html/page.css html/page.js
var pageFiles embed.FS

// htmlInput is what report.html is rendered from.
type htmlInput struct {
	s Summary
	// f is the results folder, whose records draw the stories.
	f *folder.Folder
	// charts are the numbers of the charts; nil when Write drew none.
	charts *chart.Data
	// pages are porcupine's drawings, by run.
	pages map[string]string
}

// page is everything page.tmpl shows.
type page struct {
	Title    string
	Banner   banner
	Runs     []runRow
	Notes    []template.HTML
	Manifest []manifestRow
	Grid     *grid
	Sections []section
	// Charts lists the charts the page draws, in report.md's order; Data
	// is their numbers, which page.js feeds to uPlot.
	Charts []folder.Chart
	Data   *chart.Data
	Style  chart.Style
	// The inlined assets.
	CSS, UPlotCSS   template.CSS
	UPlotJS, PageJS template.JS
	UPlotLicense    string
	UPlotVersion    string
}

// banner is the folder's verdict at the top of the page.
type banner struct {
	// Word is valid, invalid or unknown; Class styles it.
	Word, Class string
	ExitCode    int
	Text        string
	// NotJudged says what was not judged and why: why a run is unknown,
	// the gaps in an invalid run's evidence, and skipped scenarios.
	NotJudged []string
}

// runRow is one run's row of the verdict table.
type runRow struct {
	Name, Anchor                       string
	Contenders                         int
	Sold, Oversold, P50, P99, Sellout  string
	Floor, Efficiency, Skew, Expected  string
	PeakInFlight                       int
	Verdict, VerdictClass, ExpectClass string
}

// manifestRow is one row of how the runs were made.
type manifestRow struct {
	What  string
	Value template.HTML
}

// writeHTML writes report.html: the verdict, the runs, the gate's grid,
// every run's section with its stories drawn, and the charts.
func writeHTML(w io.Writer, in htmlInput) error {
	t, err := template.New("page.tmpl").Funcs(template.FuncMap{"ms": fmtMs, "num": num}).
		ParseFS(pageFiles, "html/page.tmpl")
	if err != nil {
		return fmt.Errorf("%s template: %w", folder.HTMLFile, err)
	}
	p, err := buildPage(in)
	if err != nil {
		return err
	}
	return t.Execute(w, p)
}

// buildPage computes the page from the summary and the folder.
func buildPage(in htmlInput) (page, error) {
	s := in.s
	css, err := pageFiles.ReadFile("html/page.css")
	if err != nil {
		return page{}, err
	}
	js, err := pageFiles.ReadFile("html/page.js")
	if err != nil {
		return page{}, err
	}
	title := "hammer"
	if s.Command != "" {
		title += " " + s.Command
	}
	p := page{
		Title: title + " — " + s.RunID, Banner: folderBanner(s), Notes: tableNotes(s), Grid: buildGrid(s),
		CSS: template.CSS(css), UPlotCSS: template.CSS(uplot.CSS), UPlotJS: template.JS(uplot.JS),
		PageJS: template.JS(js), UPlotLicense: uplot.License, UPlotVersion: uplot.Version,
	}
	for _, r := range manifestRows(s) {
		p.Manifest = append(p.Manifest, manifestRow{r[0], inlineCode(r[1])})
	}
	for _, r := range s.Runs {
		p.Runs = append(p.Runs, buildRunRow(r))
		p.Sections = append(p.Sections, buildSection(r, in))
	}
	if in.charts != nil {
		p.Charts, p.Data, p.Style = folder.Charts(), in.charts, chart.Styles(*in.charts)
	}
	return p, nil
}

// folderBanner is the folder's verdict: invalid when hammer exited 1 (a
// strategy was caught, or a run missed its expectation), valid when it
// exited 0, unknown otherwise.
func folderBanner(s Summary) banner {
	h := folderHeadline(s)
	b := banner{Word: "unknown", Class: "unknown", ExitCode: s.ExitCode, Text: h.text}
	switch s.ExitCode {
	case 0:
		b.Word, b.Class = "valid", "valid"
	case 1:
		b.Word, b.Class = "invalid", "invalid"
	}
	if b.Word != strings.ToLower(h.label) {
		b.Text = h.label + ": " + h.text
	}
	for _, r := range s.Runs {
		for _, u := range append(slices.Clone(r.Undetermined), r.gaps...) {
			b.NotJudged = append(b.NotJudged, r.Name+": "+u)
		}
	}
	for _, sk := range s.Skipped {
		b.NotJudged = append(b.NotJudged, "skipped "+sk)
	}
	return b
}

// buildRunRow is run r's row of the verdict table, in report.md's cells.
func buildRunRow(r RunSummary) runRow {
	expected := string(r.Expected)
	if expected == "" {
		expected = "–"
	}
	return runRow{
		Name: r.Name, Anchor: runAnchor(r.Name), Contenders: r.Contenders, Sold: soldCell(r),
		Oversold: oversoldCell(r), P50: fmtMs(r.P50Ms), P99: fmtMs(r.P99Ms), Sellout: fmtSellout(r.SelloutMs),
		Floor: fmtFloor(r.FloorMs), Efficiency: fmtEff(r.Efficiency), Skew: fmtSkew(r), Expected: expected,
		PeakInFlight: r.PeakInFlight, Verdict: verdictCell(r), VerdictClass: string(r.Verdict),
		ExpectClass: expectClass(r),
	}
}

// expectClass styles a run by its verdict against its expectation: ok
// when it met it (or, without one, is valid), fail when it missed it (or
// is invalid), unknown when the verdict is.
func expectClass(r RunSummary) string {
	switch {
	case r.Verdict == verify.Unknown, r.unshown():
		return "unknown"
	case r.Expected == "" && r.Verdict == verify.Valid, r.Expected != "" && r.ExpectOK:
		return "ok"
	}
	return "fail"
}

// tableNotes are report.md's notes under the verdict table (the floor,
// the start, the CPUs), as paragraphs.
func tableNotes(s Summary) []template.HTML {
	var b strings.Builder
	writeFloorNote(&b, s)
	writeStartNote(&b, s)
	writeCPUNote(&b, s)
	var out []template.HTML
	for _, para := range strings.Split(b.String(), "\n") {
		if para = strings.TrimSpace(para); para != "" {
			out = append(out, inlineCode(para))
		}
	}
	return out
}

// codeSpan is a Markdown code span.
var codeSpan = regexp.MustCompile("`([^`]*)`")

// inlineCode turns a line of Markdown text with code spans into HTML,
// escaping everything else.
func inlineCode(md string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range codeSpan.FindAllStringSubmatchIndex(md, -1) {
		b.WriteString(template.HTMLEscapeString(md[last:m[0]]))
		b.WriteString("<code>" + template.HTMLEscapeString(md[m[2]:m[3]]) + "</code>")
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(md[last:]))
	return template.HTML(b.String())
}

// runAnchor is the id of a run's section: "run-" and the run's name with
// every character but letters, digits, '-' and '_' turned into '_'.
func runAnchor(name string) string {
	return "run-" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, name)
}
