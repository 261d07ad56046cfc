package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/hammer-load/hammer/history"
)

// writeReplicaLogs lists, in report.md, the logs of the replicas of a
// user's service, each run's with the last lines each replica printed.
func writeReplicaLogs(b *strings.Builder, s Summary) {
	var d strings.Builder
	for _, r := range s.Runs {
		for _, l := range r.ReplicaLogs {
			fmt.Fprintf(&d, "| `%s` | %d | [%s](%s) | %s | %s |\n", r.Name, l.Replica, l.File, l.File, logSize(l), mdLast(l.Last))
		}
	}
	if d.Len() == 0 {
		return
	}
	b.WriteString("## The service's logs\n\nWhat each replica printed on stdout and stderr, and the last lines of it that say something.\n\n")
	b.WriteString("| run | replica | log | size | last lines |\n|---|---:|---|---|---|\n")
	b.WriteString(d.String())
	b.WriteString("\n")
}

// logSize says how much a replica printed, and how much of it its file
// left out.
func logSize(l history.ReplicaLog) string {
	s := bytesText(l.Written)
	if l.Cut > 0 {
		s += fmt.Sprintf(" (%s cut from the middle)", bytesText(l.Cut))
	}
	return s
}

// bytesText renders a byte count: "812 B", "3.4 KiB", "1.2 MiB".
func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// mdLast renders a log's last lines in one cell of a Markdown table.
func mdLast(last []string) string {
	if len(last) == 0 {
		return "–"
	}
	parts := make([]string, len(last))
	for i, l := range last {
		parts[i] = "`" + strings.ReplaceAll(strings.ReplaceAll(l, "`", "'"), "|", "\\|") + "`"
	}
	return strings.Join(parts, "<br>")
}

// logsFact is the row of a run's facts in report.html that links the
// replicas' logs, each with its last line; "" for a run with none.
func logsFact(logs []history.ReplicaLog) template.HTML {
	var parts []string
	for _, l := range logs {
		p := fmt.Sprintf(`<a href="%s">replica %d</a> (%s)`, template.HTMLEscapeString(l.File), l.Replica, template.HTMLEscapeString(logSize(l)))
		if n := len(l.Last); n > 0 {
			p += ": <code>" + template.HTMLEscapeString(strings.Join(l.Last, " | ")) + "</code>"
		}
		parts = append(parts, p)
	}
	return template.HTML(strings.Join(parts, "<br>"))
}
