package main

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestCLIDoc: docs/cli.md is written from the commands table and the flag sets the
// commands parse with, so it cannot fall behind them. -update rewrites it:
//
//	go test ./cmd/shardsim -run TestCLIDoc -update
func TestCLIDoc(t *testing.T) {
	var b strings.Builder
	writeCLIDoc(&b)
	golden(t, "../../docs/cli.md", b.String())
}

// writeCLIDoc writes the command-line reference in Markdown: the commands, the exit
// statuses, and per command its usage, what it does, examples and a table of its flags.
func writeCLIDoc(w io.Writer) {
	fmt.Fprint(w, "# Command line\n\n")
	fmt.Fprint(w, "<!-- Written by `go test ./cmd/shardsim -run TestCLIDoc -update` from the commands' flag sets: edit cmd/shardsim, not this file. -->\n\n")
	fmt.Fprint(w, "`shardsim COMMAND [ARGUMENTS] [flags]`, with flags in GNU style: `--name value`, `--name=value`, `-x value`, ")
	fmt.Fprint(w, "and single-letter flags grouped (`-qj 2`). SCENARIO is a path to a .toml file or the name of a built-in ")
	fmt.Fprint(w, "scenario (`shardsim list`). `shardsim help COMMAND` prints what `shardsim COMMAND --help` does: the text below.\n\n")
	fmt.Fprint(w, "| command | what it does |\n|---|---|\n")
	for _, c := range commands {
		fmt.Fprintf(w, "| [`%s`](#%s) | %s |\n", strings.TrimSpace("shardsim "+c.name+" "+c.operands), c.name, mdText(c.summary))
	}
	fmt.Fprint(w, "\n## Exit status\n\n| status | meaning |\n|---|---|\n")
	for _, e := range exitStatuses {
		fmt.Fprintf(w, "| %d | %s |\n", e.code, mdText(e.meaning))
	}
	for _, c := range commands {
		fs, _, _ := c.flagSet()
		fmt.Fprintf(w, "\n## %s\n\n```sh\nshardsim %s %s\n```\n\n%s\n\nExamples:\n\n```sh\n", c.name, c.name, c.usage, mdText(c.about))
		for _, e := range c.examples {
			fmt.Fprintln(w, e)
		}
		fmt.Fprint(w, "```\n\n| flag | short | type | default | what it does |\n|---|---|---|---|---|\n")
		fs.VisitAll(func(f *pflag.Flag) {
			arg, usage := pflag.UnquoteUsage(f)
			short := ""
			if f.Shorthand != "" {
				short = "`-" + f.Shorthand + "`"
			}
			if arg == "" {
				arg = "bool"
			}
			fmt.Fprintf(w, "| `--%s` | %s | %s | %s | %s |\n", f.Name, short, mdText(arg), mdDefault(f.DefValue), mdText(usage))
		})
	}
}

// mdDefault writes a flag's default: a value as code, a default in words ("the
// scenario's") as text, and no default as nothing.
func mdDefault(def string) string {
	switch {
	case def == "":
		return ""
	case strings.Contains(def, " "):
		return mdText(def)
	}
	return "`" + strings.ReplaceAll(def, "|", `\|`) + "`"
}

// mdText escapes what Markdown would not show as written: | ends a table cell, and < before
// a letter opens an HTML tag (<scenario-name> would vanish). A line break inside a cell
// would end the table, so lines are joined.
func mdText(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	s = strings.ReplaceAll(s, "|", `\|`)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && (s[i+1] >= 'a' && s[i+1] <= 'z' || s[i+1] >= 'A' && s[i+1] <= 'Z') {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
