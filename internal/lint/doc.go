// Package lint holds the checks that keep docs/architecture.md true of the code: its table
// of packages against their imports, and its list of the functions whose cyclomatic
// complexity passes 15. It has no code of its own; the checks are its tests, which read the
// sources with go/parser and build nothing.
package lint
