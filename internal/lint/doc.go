// Package lint holds the checks that keep docs/architecture.md true of the code: its table
// of packages against their imports, its list of the functions whose cyclomatic
// complexity passes 15, its claim that a shard scheme is one file of keyspace, and its claim
// that a mechanism's waits and diagnoses are named only in its folder. It has no code of its
// own; the checks are its tests, which read the sources with go/parser and build nothing.
package lint
