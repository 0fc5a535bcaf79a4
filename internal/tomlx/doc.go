// Package tomlx decodes TOML scenario files into Go structs, reporting every
// problem with the file, line, dotted key and offending value.
//
// BurntSushi/toml is used only as the parser; decoding into structs, driven by
// `toml:"name"` struct tags, as well as merging and overriding of parsed
// documents, are implemented here.
package tomlx
