package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/shardsim/shardsim/internal/escape"
)

// table is a small text table: the first `left` columns are left-aligned, the rest
// (numbers) right-aligned, except the last when lastLeft is set (a list of words).
type table struct {
	head     []string
	rows     [][]string
	left     int
	lastLeft bool
}

// leftAt reports whether column i is left-aligned.
func (t *table) leftAt(i int) bool { return i < t.left || t.lastLeft && i == len(t.head)-1 }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) widths(cell func(string) string) []int {
	w := make([]int, len(t.head))
	for i, h := range t.head {
		w[i] = len([]rune(cell(h)))
	}
	for _, r := range t.rows {
		for i, c := range r {
			w[i] = max(w[i], len([]rune(cell(c))))
		}
	}
	return w
}

func pad(s string, w int, left bool) string {
	n := w - len([]rune(s))
	if n <= 0 {
		return s
	}
	if left {
		return s + strings.Repeat(" ", n)
	}
	return strings.Repeat(" ", n) + s
}

// text writes the table with two spaces between columns, each cell on one line
// (escape.Line: a name's control characters are shown, not sent to the terminal).
func (t *table) text(w io.Writer, indent string) {
	ws := t.widths(escape.Line)
	line := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = pad(escape.Line(c), ws[i], t.leftAt(i))
		}
		fmt.Fprintln(w, strings.TrimRight(indent+strings.Join(parts, "  "), " "))
	}
	line(t.head)
	for _, r := range t.rows {
		line(r)
	}
}

// markdown writes the table as a GitHub-flavoured Markdown table; every cell, made by
// shardsim or not, passes through escape.MarkdownCell, so that no name or value becomes
// markup.
func (t *table) markdown(w io.Writer) {
	ws := t.widths(escape.MarkdownCell)
	line := func(cells []string) {
		parts := make([]string, len(cells))
		for i, c := range cells {
			parts[i] = pad(escape.MarkdownCell(c), ws[i], t.leftAt(i))
		}
		fmt.Fprintln(w, "| "+strings.Join(parts, " | ")+" |")
	}
	line(t.head)
	seps := make([]string, len(ws))
	for i, n := range ws {
		if t.leftAt(i) {
			seps[i] = strings.Repeat("-", max(n, 3))
		} else {
			seps[i] = strings.Repeat("-", max(n, 3)-1) + ":"
		}
	}
	fmt.Fprintln(w, "| "+strings.Join(seps, " | ")+" |")
	for _, r := range t.rows {
		line(r)
	}
}

// Table is a table for a command's standard output: the first Left columns are
// left-aligned (labels), the rest right-aligned (numbers).
type Table struct {
	Head []string
	Rows [][]string
	Left int
}

// Text writes the table as text, two spaces between columns.
func (t *Table) Text(w io.Writer) { (&table{head: t.Head, rows: t.Rows, left: t.Left}).text(w, "") }

// Markdown writes the table as a GitHub-flavoured Markdown table.
func (t *Table) Markdown(w io.Writer) { (&table{head: t.Head, rows: t.Rows, left: t.Left}).markdown(w) }
