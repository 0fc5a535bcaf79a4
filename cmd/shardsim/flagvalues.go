package main

import (
	"strings"

	"github.com/spf13/pflag"
)

// The flag values below exist for the help: pflag names a flag's argument after its
// value's Type and quotes the default of a "string" flag, so a plain string flag whose
// default is a description ("the scenario's") would show as --duration string (default
// "the scenario's"). These name the argument (--duration duration, --out dir) and show the
// default as words.

// textValue is a string flag whose argument is called arg in the help.
type textValue struct {
	p   *string
	arg string
}

func (v textValue) String() string     { return *v.p }
func (v textValue) Set(s string) error { *v.p = s; return nil }
func (v textValue) Type() string       { return v.arg }

// listValue is a repeatable flag: each use appends its value whole, never split at commas
// (KEY=V1,V2,... and TOML arrays hold them). Its argument is called arg in the help.
type listValue struct {
	p   *[]string
	arg string
}

func (v listValue) String() string     { return strings.Join(*v.p, " ") }
func (v listValue) Set(s string) error { *v.p = append(*v.p, s); return nil }
func (v listValue) Type() string       { return v.arg }

// textVar registers a textValue flag.
func textVar(fs *pflag.FlagSet, p *string, name, short, arg, usage string) *pflag.Flag {
	return fs.VarPF(textValue{p, arg}, name, short, usage)
}

// listVar registers a listValue flag.
func listVar(fs *pflag.FlagSet, p *[]string, name, arg, usage string) {
	fs.Var(listValue{p, arg}, name, usage)
}

// showDefault sets the default the help shows for a flag whose real default is not its
// zero value's text: a directory made from the scenario's name, or a -1 that stands for
// "the scenario's".
func showDefault(fs *pflag.FlagSet, name, words string) {
	fs.Lookup(name).DefValue = words
}
