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

// TextWidth is the widest line Text writes.
func (t *Table) TextWidth() int {
	ws := (&table{head: t.Head, rows: t.Rows}).widths(escape.Line)
	n := 0
	for _, w := range ws {
		n += w
	}
	return n + 2*max(len(ws)-1, 0)
}

// Fit splits the table by columns into tables no wider than width that each repeat the
// first Left columns (the labels), in column order; the table itself when it fits, or
// when its labels and one more column do not (nothing narrower can hold a row).
func (t *Table) Fit(width int) []*Table {
	if t.TextWidth() <= width || t.Left <= 0 || t.Left >= len(t.Head) {
		return []*Table{t}
	}
	ws := (&table{head: t.Head, rows: t.Rows}).widths(escape.Line)
	labels := 0
	for _, w := range ws[:t.Left] {
		labels += w + 2
	}
	var out []*Table
	for i := t.Left; i < len(t.Head); {
		cols := []int{i}
		used := labels + ws[i]
		for i++; i < len(t.Head) && used+2+ws[i] <= width; i++ {
			cols = append(cols, i)
			used += 2 + ws[i]
		}
		part := &Table{Left: t.Left, Head: pick(t.Head, t.Left, cols)}
		for _, r := range t.Rows {
			part.Rows = append(part.Rows, pick(r, t.Left, cols))
		}
		out = append(out, part)
	}
	return out
}

// pick is the first left cells of row, then its cells cols.
func pick(row []string, left int, cols []int) []string {
	out := append([]string(nil), row[:left]...)
	for _, c := range cols {
		if c < len(row) {
			out = append(out, row[c])
		}
	}
	return out
}

// FitText writes the table as text no wider than width where it can be (Fit), its parts
// one under the other, a blank line between them.
func (t *Table) FitText(w io.Writer, width int) {
	for i, part := range t.Fit(width) {
		if i > 0 {
			fmt.Fprintln(w)
		}
		part.Text(w)
	}
}
