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
	var errs []string
	lines := strings.SplitAfter(doc, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := genRE.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil && p.mine(m[1]) {
			body, ok := p.Blocks[m[1]]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: no block %s", path, i+1, m[1]))
			}
			p.used[m[1]] = true
			if i+1 < len(lines) && strings.HasPrefix(lines[i+1], ">") {
				// A block quote: its lines are replaced by the text, wrapped.
				end := i + 1
				for end < len(lines) && strings.HasPrefix(lines[end], ">") {
					end++
				}
				b.WriteString(l)
				if ok {
					b.WriteString(Quote(body, 90))
				} else {
					b.WriteString(strings.Join(lines[i+1:end], ""))
				}
				i = end - 1
				continue
			}
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				errs = append(errs, fmt.Sprintf("%s:%d: a fenced block must follow <!--gen %s-->", path, i+1, m[1]))
				b.WriteString(l)
				continue
			}
			end := i + 2
			for end < len(lines) && strings.TrimSpace(lines[end]) != "```" {
				end++
			}
			if end == len(lines) {
				return "", fmt.Errorf("%s:%d: block not closed", path, i+2)
			}
			b.WriteString(l)
			b.WriteString(lines[i+1])
			if !ok {
				body = strings.Join(lines[i+2:end], "")
			}
			b.WriteString(body)
			if body != "" && !strings.HasSuffix(body, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(lines[end])
			i = end
			continue
		}
		if m := copyRE.FindStringSubmatch(strings.TrimRight(l, "\n")); m != nil && m[1] == p.Owner {
			got, err := os.ReadFile(filepath.Join(p.SrcRoot, m[2]))
			dst := filepath.Join(filepath.Dir(path), m[3])
			switch {
			case err != nil:
				errs = append(errs, fmt.Sprintf("%s:%d: %v", path, i+1, err))
			case p.Update:
				if err := os.WriteFile(dst, got, 0o644); err != nil {
					errs = append(errs, err.Error())
				}
			default:
				if want, err := os.ReadFile(dst); err != nil || !bytes.Equal(got, want) {
					errs = append(errs, fmt.Sprintf("%s:%d: %s is not the chart the run draws now (make docs copies it)", path, i+1, dst))
				}
			}
		}
		l = figRE.ReplaceAllStringFunc(l, func(s string) string {
			m := figRE.FindStringSubmatch(s)
			if !p.mine(m[1]) {
				return s
			}
			v, ok := p.Figs[m[1]]
			if !ok {
				errs = append(errs, fmt.Sprintf("%s:%d: no figure %s", path, i+1, m[1]))
				return s
			}
			p.used[m[1]] = true
			return "<!--fig " + m[1] + "-->" + v + "<!--/fig-->"
		})
		b.WriteString(l)
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return b.String(), nil
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
