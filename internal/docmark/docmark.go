// Package docmark fills the generated parts of the docs from the tests' runs, so that no
// figure, excerpt or chart in them is typed by hand.
//
// The docs' generated parts are marked in the Markdown, each with the name of the test
// that owns it (its prefix), so that an expensive run is made once, by one test, and
// every figure it yields is checked there:
//
//	a figure inline:  <!--fig bf.before.p99-->8.1 s<!--/fig-->
//	a fenced block:   <!--gen bf.run-before--> on the line before the block's fence
//	a block quote:    <!--gen det.hot-key--> on the line before its first "> " line
//	a table:          <!--gen mechkeys.table--> on the line before its first "|" line
//	an image:         <!--copy bf out/black-friday/shard-load.png images/black-friday-shard-load.png-->
//
// A test computes its figures and blocks from its runs and calls Apply: what the doc says
// must be exactly what the run gives, or, with update (make docs), the doc is rewritten. Markers of other owners are left alone; a marker of this owner that the test
// did not compute is an error, and so is a figure the test computed that no doc uses.

package docmark

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	figRE  = regexp.MustCompile(`<!--fig ([a-z0-9_.-]+)-->(.*?)<!--/fig-->`)
	genRE  = regexp.MustCompile(`^<!--gen ([a-z0-9_.-]+)-->\s*$`)
	copyRE = regexp.MustCompile(`^<!--copy ([a-z0-9]+) (\S+) (\S+)-->\s*$`)
)

// Parts is what a test computed for the docs: figures and fenced blocks by name, and
// the directory the copied images' sources are relative to.
type Parts struct {
	Owner   string            // the markers' prefix (before the first dot), or a copy's owner
	Figs    map[string]string // inline figures by name
	Blocks  map[string]string // fenced blocks' contents by name
	SrcRoot string            // copied images' sources are relative to it
	Update  bool              // rewrite the docs instead of comparing them
	used    map[string]bool
}

// Updating reports whether the docs are being rewritten (make docs sets
// SHARDSIM_UPDATE_DOCS=1 for the packages whose tests have no -update flag).
func Updating() bool { return os.Getenv("SHARDSIM_UPDATE_DOCS") != "" }

// Apply checks (or with p.Update or Updating rewrites) the owner's markers in the docs at
// paths.
func Apply(t testing.TB, p *Parts, paths ...string) {
	t.Helper()
	p.Update = p.Update || Updating()
	p.used = map[string]bool{}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.render(path, string(src))
		if err != nil {
			t.Error(err)
			continue
		}
		if out == string(src) {
			continue
		}
		if p.Update {
			if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: figures or blocks differ from what the runs give now (make docs rewrites them; read the diff)\n%s", path, firstDiff(string(src), out))
	}
	for name := range p.Figs {
		if !p.used[name] {
			t.Errorf("figure %s is computed but no doc shows it", name)
		}
	}
	for name := range p.Blocks {
		if !p.used[name] {
			t.Errorf("block %s is computed but no doc shows it", name)
		}
	}
}

func (p *Parts) mine(name string) bool { return strings.HasPrefix(name, p.Owner+".") }

// render returns doc with the owner's markers filled from p.
func (p *Parts) render(path, doc string) (string, error) {
	r := &docRender{p: p, path: path, lines: strings.SplitAfter(doc, "\n")}
	for ; r.i < len(r.lines); r.i++ {
		if err := r.line(); err != nil {
			return "", err
		}
	}
	if len(r.errs) > 0 {
		return "", fmt.Errorf("%s", strings.Join(r.errs, "\n"))
	}
	return r.b.String(), nil
}

// docRender is one doc being filled: its lines, the one being read (i), the text written
// so far and the problems found, each with its line.
type docRender struct {
	p     *Parts
	path  string
	lines []string
	i     int
	b     strings.Builder
	errs  []string
}

// errorf notes a problem at line (1-based) of the doc.
func (r *docRender) errorf(line int, format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf("%s:%d: ", r.path, line)+fmt.Sprintf(format, args...))
}

// line writes line i filled: a block or quote after a gen marker (the lines it replaces
// are consumed), an image a copy marker names (copied or compared), the line's figures.
func (r *docRender) line() error {
	l := r.lines[r.i]
	if m := genRE.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil && r.p.mine(m[1]) {
		return r.gen(l, m[1])
	}
	if m := copyRE.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil && m[1] == r.p.Owner {
		r.copyImage(m[2], m[3])
	}
	r.b.WriteString(r.figures(l))
	return nil
}

// gen writes the gen marker l of block name and the block quote or fenced block after
// it, filled with the block's text (kept as it is when the test computed none).
func (r *docRender) gen(l, name string) error {
	body, ok := r.p.Blocks[name]
	if !ok {
		r.errorf(r.i+1, "no block %s", name)
	}
	r.p.used[name] = true
	next := r.i + 1
	switch {
	case next < len(r.lines) && strings.HasPrefix(r.lines[next], ">"):
		r.quote(l, body, ok)
		return nil
	case next < len(r.lines) && strings.HasPrefix(r.lines[next], "|"):
		r.table(l, body, ok)
		return nil
	case next >= len(r.lines) || !strings.HasPrefix(r.lines[next], "```"):
		r.errorf(r.i+1, "a fenced block must follow <!--gen %s-->", name)
		r.b.WriteString(l)
		return nil
	}
	return r.fenced(l, body, ok)
}

// quote replaces the block quote after marker l by body, wrapped (when ok).
func (r *docRender) quote(l, body string, ok bool) {
	end := r.i + 1
	for end < len(r.lines) && strings.HasPrefix(r.lines[end], ">") {
		end++
	}
	r.b.WriteString(l)
	if ok {
		r.b.WriteString(Quote(body, 90))
	} else {
		r.b.WriteString(strings.Join(r.lines[r.i+1:end], ""))
	}
	r.i = end - 1
}

// table replaces the Markdown table after marker l (its lines begin with "|") by body,
// a table too (when ok).
func (r *docRender) table(l, body string, ok bool) {
	end := r.i + 1
	for end < len(r.lines) && strings.HasPrefix(r.lines[end], "|") {
		end++
	}
	r.b.WriteString(l)
	if ok {
		r.b.WriteString(body)
		if !strings.HasSuffix(body, "\n") {
			r.b.WriteString("\n")
		}
	} else {
		r.b.WriteString(strings.Join(r.lines[r.i+1:end], ""))
	}
	r.i = end - 1
}

// fenced replaces the contents of the fenced block after marker l by body (when ok).
func (r *docRender) fenced(l, body string, ok bool) error {
	end := r.i + 2
	for end < len(r.lines) && strings.TrimSpace(r.lines[end]) != "```" {
		end++
	}
	if end == len(r.lines) {
		return fmt.Errorf("%s:%d: block not closed", r.path, r.i+2)
	}
	r.b.WriteString(l)
	r.b.WriteString(r.lines[r.i+1])
	if !ok {
		body = strings.Join(r.lines[r.i+2:end], "")
	}
	r.b.WriteString(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		r.b.WriteString("\n")
	}
	r.b.WriteString(r.lines[end])
	r.i = end
	return nil
}

// copyImage copies the image src (relative to SrcRoot) to dst (relative to the doc), or
// checks that dst is that image.
func (r *docRender) copyImage(src, dst string) {
	got, err := os.ReadFile(filepath.Join(r.p.SrcRoot, src))
	dst = filepath.Join(filepath.Dir(r.path), dst)
	switch {
	case err != nil:
		r.errorf(r.i+1, "%v", err)
	case r.p.Update:
		if err := os.WriteFile(dst, got, 0o644); err != nil {
			r.errs = append(r.errs, err.Error())
		}
	default:
		if want, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, want) {
			r.errorf(r.i+1, "%s is not the chart the run draws now (make docs copies it)", dst)
		}
	}
}

// figures fills the owner's inline figures of line l.
func (r *docRender) figures(l string) string {
	return figRE.ReplaceAllStringFunc(l, func(s string) string {
		m := figRE.FindStringSubmatch(s)
		if !r.p.mine(m[1]) {
			return s
		}
		v, ok := r.p.Figs[m[1]]
		if !ok {
			r.errorf(r.i+1, "no figure %s", m[1])
			return s
		}
		r.p.used[m[1]] = true
		return "<!--fig " + m[1] + "-->" + v + "<!--/fig-->"
	})
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  doc: %s\n  run: %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("the doc has %d lines, the run's %d", len(al), len(bl))
}

// Quote writes text as a Markdown block quote, its words wrapped at width columns.
func Quote(text string, width int) string {
	var b strings.Builder
	line := ">"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > width && line != ">" {
			b.WriteString(line + "\n")
			line = ">"
		}
		line += " " + w
	}
	b.WriteString(line + "\n")
	return b.String()
}

// Figures checks (or under make docs rewrites) the owner's figures in the doc at path, a
// path relative to the test's directory.
func Figures(t testing.TB, path, owner string, figs map[string]string) {
	t.Helper()
	doc, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	Apply(t, &Parts{Owner: owner, Figs: figs}, doc)
}
