// Package scenarios loads scenario files: it parses the TOML, merges each [[variants]] entry
// over the base, applies the command line's values last (docs/scenario.md, "Overrides from the
// command line"), and maps every problem that scenario.Validate finds to a file and line, or to
// the flag that set the value. The built-in scenarios are the *.toml files of this directory,
// embedded in the binary.
package scenarios
