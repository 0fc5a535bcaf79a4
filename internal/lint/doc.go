// Package lint holds the checks that keep docs/architecture.md true of the code: its table
// of packages against their imports, its list of the functions whose cyclomatic
// complexity passes 15, and its claim that a shard scheme is one file of keyspace. It has no code of its own; the checks are its tests, which read the
// sources with go/parser and build nothing.
package lint
