// Package scenarios turns a scenario file (TOML) into simulation models: it decodes, applies
// defaults, validates every value with errors that name the file, key and line, resolves
// variants and --set overrides, and builds one sim.Model per variant. The built-in
// scenarios are the *.toml files of this directory, embedded in the binary.
package scenarios
