package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hammer-load/hammer/folder"
)

// The JUnit XML shape CI systems read: one testsuite, one testcase per run.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Time     string       `xml:"time,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name       string          `xml:"name,attr"`
		Tests      int             `xml:"tests,attr"`
		Failures   int             `xml:"failures,attr"`
		Errors     int             `xml:"errors,attr"`
		Skipped    int             `xml:"skipped,attr"`
		Time       string          `xml:"time,attr"`
		Properties []junitProperty `xml:"properties>property"`
		Cases      []junitCase     `xml:"testcase"`
	}
	junitProperty struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		Classname string        `xml:"classname,attr"`
		Time      string        `xml:"time,attr"`
		Skipped   *junitProblem `xml:"skipped,omitempty"`
		Failure   *junitProblem `xml:"failure,omitempty"`
		Error     *junitProblem `xml:"error,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitProblem struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr,omitempty"`
		Text    string `xml:",chardata"`
	}
)

// renderJUnit renders a summary as JUnit XML: one test case per run, a failure
// when the run missed its expectation (the violations and their stories in
// the body), an error when its outcome could not be determined.
func renderJUnit(s Summary, name string) ([]byte, error) {
	suite := junitSuite{Name: name, Properties: []junitProperty{
		{Name: "run_id", Value: s.RunID},
		{Name: "seed", Value: fmt.Sprint(s.Seed)},
		{Name: "stack", Value: s.Stack},
	}}
	var total float64
	for _, r := range s.Runs {
		c := junitCase{Name: r.Name, Classname: strings.ReplaceAll(name, " ", "."), Time: seconds(r.ElapsedMs)}
		total += r.ElapsedMs
		var body bytes.Buffer
		writeDetails(&body, r, limits{lines: -1, stories: -1})
		switch {
		case r.unshown():
			c.Error = &junitProblem{Message: r.ExpectReason, Type: "undetermined", Text: body.String()}
			suite.Errors++
		case !r.ExpectOK:
			c.Failure = &junitProblem{Message: r.ExpectReason, Type: "expectation", Text: body.String()}
			suite.Failures++
		default:
			c.SystemOut = r.ExpectReason
		}
		suite.Cases = append(suite.Cases, c)
	}
	for _, sk := range s.Skipped {
		cell, why, _ := strings.Cut(sk, ": ")
		suite.Cases = append(suite.Cases, junitCase{Name: cell, Classname: strings.ReplaceAll(name, " ", "."),
			Time: seconds(0), Skipped: &junitProblem{Message: why}})
		suite.Skipped++
	}
	suite.Tests, suite.Time = len(suite.Cases), seconds(total)
	doc := junitSuites{Name: name, Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Time: suite.Time, Suites: []junitSuite{suite}}
	out, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("junit: %w", err)
	}
	return append([]byte(xml.Header), append(out, '\n')...), nil
}

// saveJUnit writes junit.xml into dir, its suite called name.
func saveJUnit(dir string, s Summary, name string) error {
	b, err := renderJUnit(s, name)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, folder.JUnitFile), b, 0o644)
}

func seconds(ms float64) string { return fmt.Sprintf("%.3f", ms/1000) }
