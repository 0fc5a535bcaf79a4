package tomlx

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type keyspace struct {
	Scheme string   `toml:"scheme"`
	Keys   uint64   `toml:"keys"`
	Skew   *float64 `toml:"skew"`
}

type stream struct {
	Name     string    `toml:"name"`
	Rate     float64   `toml:"rate"`
	Burst    *int      `toml:"burst"`
	Keyspace *keyspace `toml:"keyspace"`
	Phases   []phase   `toml:"phase"`
}

type phase struct {
	At   int     `toml:"at"`
	Mult float32 `toml:"mult"`
}

type cluster struct {
	Nodes int      `toml:"nodes"`
	Cores uint8    `toml:"cores"`
	Zones []string `toml:"zones"`
	Fast  bool     `toml:"fast"`
	Small int8     `toml:"small"`
}

type field struct {
	S     string `toml:"s"`
	Width int    `toml:"width"`
}

type table struct {
	Fields map[string]field `toml:"fields"`
}

// dist decodes itself from "uniform" or { kind = "zipf", s = 1.1 }.
type dist struct {
	Kind string
	S    float64
}

func (d *dist) DecodeTOML(v any) error {
	switch x := v.(type) {
	case string:
		if x != "uniform" {
			return fmt.Errorf("unknown distribution %q", x)
		}
		d.Kind = x
		return nil
	case map[string]any:
		d.Kind, _ = x["kind"].(string)
		d.S, _ = x["s"].(float64)
		return nil
	}
	return fmt.Errorf("expected a distribution, got %s", describe(v))
}

type scenario struct {
	Name    string           `toml:"name"`
	Seed    *int64           `toml:"seed"`
	Cluster cluster          `toml:"cluster"`
	Streams []stream         `toml:"streams"`
	Table   map[string]table `toml:"table"`
	Extra   any              `toml:"extra"`
	Dist    dist             `toml:"dist"`
	Pair    [2]int           `toml:"pair"`
	Ignored int              // no tag: not settable
	Hidden  int              `toml:"-"`
	private int              `toml:"private"` //nolint:unused // unexported: not settable
}

func mustParse(t *testing.T, src string) *Doc {
	t.Helper()
	d, err := Parse("s.toml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// decodeErrs decodes src into a scenario and returns the problems.
func decodeErrs(t *testing.T, src string) (*scenario, Errors) {
	t.Helper()
	d := mustParse(t, src)
	var sc scenario
	err := d.Decode(d.Root, "", &sc)
	if err == nil {
		return &sc, nil
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("Decode returned %T, want Errors: %v", err, err)
	}
	return &sc, es
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "s.toml", Line: 3, Key: "cluster.nodes", Msg: "bad"}, "s.toml:3: cluster.nodes: bad"},
		{Error{File: "s.toml", Key: "cluster.nodes", Msg: "bad"}, "s.toml: cluster.nodes: bad"},
		{Error{File: "s.toml", Line: 3, Msg: "bad"}, "s.toml:3: bad"},
		{Error{Line: 3, Key: "k", Msg: "bad"}, "line 3: k: bad"},
		{Error{Key: "k", Msg: "bad"}, "k: bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	es := Errors{{File: "a", Line: 1, Msg: "x"}, {File: "a", Line: 2, Msg: "y"}}
	if got, want := es.Error(), "a:1: x\na:2: y"; got != want {
		t.Errorf("Errors.Error() = %q, want %q", got, want)
	}
	var e *Error
	if !errors.As(error(es), &e) || e != es[0] {
		t.Errorf("errors.As(Errors, *Error) did not find the first error")
	}
}

func TestParseSyntaxError(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantLine int
		wantMsg  string // substring of Msg
	}{
		{"missing value", "name = \"x\"\n\n[cluster]\nnodes = \n", 4, ""},
		{"double comma", "a = 1\nb = [1,\n2,,]\n", 3, "unexpected comma"},
		{"duplicate key", "a = 1\nb = 2\na = 3\n", 3, "already been defined"},
		{"unterminated string", "[cluster]\nname = \"abc\n", 2, ""},
		{"bad header", "a = 1\n[cluster\nnodes = 2\n", 2, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse("s.toml", []byte(tt.src))
			if err == nil {
				t.Fatalf("Parse succeeded: %v", d.Root)
			}
			var es Errors
			if !errors.As(err, &es) || len(es) != 1 {
				t.Fatalf("err = %#v, want Errors with one element", err)
			}
			e := es[0]
			if e.File != "s.toml" || e.Line != tt.wantLine {
				t.Errorf("at %s:%d, want s.toml:%d (%v)", e.File, e.Line, tt.wantLine, e)
			}
			if strings.HasPrefix(e.Msg, "toml:") || e.Msg == "" {
				t.Errorf("Msg = %q, want a cleaned, non-empty message", e.Msg)
			}
			if !strings.Contains(e.Msg, tt.wantMsg) {
				t.Errorf("Msg = %q, want it to contain %q", e.Msg, tt.wantMsg)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("s.toml:%d: ", tt.wantLine)) {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestDecodeUnknownKey(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the complete error text
	}{
		{"suggest sibling", "[cluster]\nnodes = 3\ncore = 4\n",
			`s.toml:3: cluster.core: unknown key; did you mean "cores"?`},
		{"suggest ignoring case", "Name = \"x\"\n",
			`s.toml:1: Name: unknown key; did you mean "name"?`},
		{"swapped neighbours are one slip", "[cluster]\nndoes = 3\n",
			`s.toml:2: cluster.ndoes: unknown key; did you mean "nodes"?`},
		{"nothing close", "[cluster]\nbanana = 1\n",
			`s.toml:2: cluster.banana: unknown key`},
		{"in array of tables", "[[streams]]\nname = \"a\"\n[[streams]]\nname = \"b\"\nrat = 5\n",
			`s.toml:5: streams[1].rat: unknown key; did you mean "rate"?`},
		{"untagged field is not settable", "Ignored = 1\n",
			`s.toml:1: Ignored: unknown key`},
		{"dash-tagged field is not settable", "Hidden = 1\n",
			`s.toml:1: Hidden: unknown key`},
		{"unexported field is not settable", "private = 1\n",
			`s.toml:1: private: unknown key`},
		{"quoted key", "[cluster]\n\"no des\" = 1\n",
			`s.toml:2: cluster."no des": unknown key; did you mean "nodes"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, es := decodeErrs(t, tt.src)
			if len(es) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(es), es)
			}
			if got := es[0].Error(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDecodeGathersAllErrors(t *testing.T) {
	src := `name = 42
seed = 7

[cluster]
nodes = "many"
cores = -3
zones = ["a", 2, "c"]

[[streams]]
name = "a"
rate = 10

[[streams]]
name = "b"
rate = "fast"
keyspace = { scheme = "hash", keys = -1 }

[table.users.fields.user_id]
s = 5
`
	sc, es := decodeErrs(t, src)
	type want struct {
		line int
		key  string
		msg  string
	}
	wants := []want{
		{1, "name", `expected a string, got integer 42`},
		{5, "cluster.nodes", `expected an integer, got string "many"`},
		{6, "cluster.cores", `must not be negative (got -3)`},
		{7, "cluster.zones[1]", `expected a string, got integer 2`},
		{15, "streams[1].rate", `expected a number, got string "fast"`},
		{16, "streams[1].keyspace.keys", `must not be negative (got -1)`},
		{19, "table.users.fields.user_id.s", `expected a string, got integer 5`},
	}
	if len(es) != len(wants) {
		t.Fatalf("got %d errors, want %d:\n%v", len(es), len(wants), es)
	}
	for i, w := range wants {
		e := es[i]
		if e.File != "s.toml" || e.Line != w.line || e.Key != w.key || e.Msg != w.msg {
			t.Errorf("error %d = %s:%d: %s: %s\n           want s.toml:%d: %s: %s", i, e.File, e.Line, e.Key, e.Msg, w.line, w.key, w.msg)
		}
	}
	// Decoding went on past the errors.
	if sc.Seed == nil || *sc.Seed != 7 || len(sc.Streams) != 2 || sc.Streams[0].Rate != 10 || sc.Streams[1].Name != "b" {
		t.Errorf("good values not decoded: %+v", sc)
	}
}

func TestDecodeTypeMismatch(t *testing.T) {
	tests := []struct {
		src  string
		want string // Key: Msg
	}{
		{`cluster.nodes = "fast"`, `cluster.nodes: expected an integer, got string "fast"`},
		{`cluster.nodes = 1.5`, `cluster.nodes: expected an integer, got float 1.5`},
		{`cluster.nodes = 2.0`, `cluster.nodes: expected an integer, got float 2.0`},
		{`cluster.fast = "yes"`, `cluster.fast: expected a boolean, got string "yes"`},
		{`cluster.zones = "a"`, `cluster.zones: expected an array, got string "a"`},
		{`cluster.zones = { a = 1 }`, `cluster.zones: expected an array, got table { a = 1 }`},
		{`cluster = 3`, `cluster: expected a table, got integer 3`},
		{`cluster = [1, 2]`, `cluster: expected a table, got array [1, 2]`},
		{`name = 1979-05-27`, `name: expected a string, got datetime 1979-05-27 (quote it to make it a string)`},
		{`name = 1979-05-27T07:32:00Z`, `name: expected a string, got datetime 1979-05-27T07:32:00Z (quote it to make it a string)`},
		{`name = true`, `name: expected a string, got boolean true`},
		{`name = ["a", "b"]`, `name: expected a string, got array ["a", "b"]`},
		{`streams = { name = "a" }`, `streams: expected an array, got table { name = "a" }`},
		{`streams = [1]`, `streams[0]: expected a table, got integer 1`},
		{`cluster.small = 200`, `cluster.small: must be between -128 and 127 (got 200)`},
		{`cluster.cores = 256`, `cluster.cores: must be at most 255 (got 256)`},
		{`streams = [{ phase = [{ mult = 1e300 }] }]`, `streams[0].phase[0].mult: must be between -3.4e+38 and 3.4e+38 (got 1e+300)`},
		{`pair = [1, 2, 3]`, `pair: expected an array of 2 elements, got 3: [1, 2, 3]`},
		{`dist = "normal"`, `dist: unknown distribution "normal"`},
		{`dist = 3`, `dist: expected a distribution, got integer 3`},
		{`cluster.nodes = "` + strings.Repeat("x", 100) + `"`, `cluster.nodes: expected an integer, got string "` + strings.Repeat("x", 40) + `..."`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			src := tt.src
			if !strings.HasPrefix(src, "name") {
				src = "name = \"n\"\n" + src
			}
			// Everything above is wrong in one way except the name.
			_, es := decodeErrs(t, src)
			if len(es) != 1 {
				t.Fatalf("got %d errors, want 1: %v", len(es), es)
			}
			if got := es[0].Key + ": " + es[0].Msg; got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDecodeValues(t *testing.T) {
	src := `name = "n"
pair = [4, 5]
extra = { anything = [1, "two"] }
dist = { kind = "zipf", s = 1.1 }

[cluster]
nodes = 3
cores = 255
zones = ["a", "b"]
fast = true

[[streams]]
name = "s"
rate = 2          # integer into a float
keyspace.scheme = "range"
keyspace.skew = 0.5

[[streams.phase]]
at = 10
mult = 1.5

[table.users.fields]
id = { s = "uuid", width = 16 }
`
	sc, es := decodeErrs(t, src)
	if es != nil {
		t.Fatal(es)
	}
	skew := 0.5
	want := scenario{
		Name:    "n",
		Cluster: cluster{Nodes: 3, Cores: 255, Zones: []string{"a", "b"}, Fast: true},
		Streams: []stream{{Name: "s", Rate: 2, Keyspace: &keyspace{Scheme: "range", Skew: &skew}, Phases: []phase{{At: 10, Mult: 1.5}}}},
		Table:   map[string]table{"users": {Fields: map[string]field{"id": {S: "uuid", Width: 16}}}},
		Extra:   map[string]any{"anything": []any{int64(1), "two"}},
		Dist:    dist{Kind: "zipf", S: 1.1},
		Pair:    [2]int{4, 5},
	}
	if !reflect.DeepEqual(*sc, want) {
		t.Errorf("got  %+v\nwant %+v", *sc, want)
	}
}

func TestDecodePointers(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantSeed  *int64
		wantBurst *int // of streams[0]
		wantKS    bool // streams[0].keyspace present
	}{
		{"absent", "[[streams]]\nname = \"a\"\n", nil, nil, false},
		{"zero", "seed = 0\n[[streams]]\nburst = 0\nkeyspace = {}\n", ptr[int64](0), ptr(0), true},
		{"set", "seed = 9\n[[streams]]\nburst = 4\n[streams.keyspace]\nscheme = \"hash\"\n", ptr[int64](9), ptr(4), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, es := decodeErrs(t, tt.src)
			if es != nil {
				t.Fatal(es)
			}
			if !reflect.DeepEqual(sc.Seed, tt.wantSeed) {
				t.Errorf("seed = %v, want %v", deref(sc.Seed), deref(tt.wantSeed))
			}
			if !reflect.DeepEqual(sc.Streams[0].Burst, tt.wantBurst) {
				t.Errorf("burst = %v, want %v", deref(sc.Streams[0].Burst), deref(tt.wantBurst))
			}
			if got := sc.Streams[0].Keyspace != nil; got != tt.wantKS {
				t.Errorf("keyspace present = %v, want %v", got, tt.wantKS)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func deref[T any](p *T) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestDecodeKeepsDefaultsAndPrefix(t *testing.T) {
	src := `[[variants]]
name = "base"

[[variants]]
name = "big"
cluster.nodes = 12
cluster.cors = 4
`
	d := mustParse(t, src)
	variants := d.Root["variants"].([]map[string]any)
	sc := scenario{Cluster: cluster{Nodes: 1, Cores: 8}}
	err := d.Decode(variants[1], "variants[1]", &sc)
	want := `s.toml:7: variants[1].cluster.cors: unknown key; did you mean "cores"?`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if sc.Cluster.Nodes != 12 || sc.Cluster.Cores != 8 || sc.Name != "big" {
		t.Errorf("got %+v, want nodes 12 from the file and cores 8 kept", sc.Cluster)
	}

	// A nil Doc decodes too, without file and line.
	var nd *Doc
	err = nd.Decode(map[string]any{"name": int64(1)}, "", &sc)
	if err == nil || err.Error() != "name: expected a string, got integer 1" {
		t.Errorf("nil Doc: err = %v", err)
	}
	if err := d.Decode(d.Root, "", sc); err == nil {
		t.Errorf("Decode into a non-pointer succeeded")
	}
}

const lineSrc = `# scenario
name = "lines"          # line 2

[cluster]
nodes = 3               # line 5
zones = [
  "a",
  "b",                  # line 8
]
description = """
multi-line string with = signs
and [brackets] and "quotes"
"""
"quoted key" = 1        # line 14
site.rack.slot = 2      # line 15

[[streams]]             # line 17
name = "first"
rate = 1

[[streams]]             # line 21
name = "second"
rate = 2                # line 23
keyspace = { scheme = "hash", keys = 10 }   # line 24

[[streams.phase]]       # line 26
at = 5

[[streams.phase]]       # line 29
at = 6                  # line 30

[streams.keyspace2]     # line 32
scheme = 'x'

[table.users.fields]
user_id = { s = "u", width = 8 }  # line 36
other = {
  s = "o",              # line 38
  width = 4,
}
points = [
  { at = 1 },           # line 42
  { at = 2 },           # line 43
]
`

func TestLine(t *testing.T) {
	d := mustParse(t, lineSrc)
	tests := []struct {
		path string
		want int
	}{
		{"name", 2},
		{"cluster", 4},
		{"cluster.nodes", 5},
		{"cluster.zones", 6},
		{"cluster.zones[1]", 8},
		{"cluster.description", 10},
		{`cluster."quoted key"`, 14},
		{"cluster.site", 15},
		{"cluster.site.rack.slot", 15},
		{"streams", 17},
		{"streams[0]", 17},
		{"streams[0].rate", 19},
		{"streams[1]", 21},
		{"streams[1].rate", 23},
		{"streams[1].keyspace", 24},
		{"streams[1].keyspace.scheme", 24},
		{"streams[1].keyspace.keys", 24},
		{"streams[1].phase[0]", 26},
		{"streams[1].phase[1].at", 30},
		{"streams[1].keyspace2", 32},
		{"table.users.fields.user_id.s", 36},
		{"table.users.fields.other.s", 38},
		{"table.users.fields.points[1].at", 43},
		// Undefined paths fall back to the nearest defined ancestor.
		{"streams[1].phase[1].mult", 29},
		{"streams[1].keyspace.unknown", 24},
		{"cluster.nodes.deeper[3]", 5},
		{"nothing.here", 0},
		{"", 0},
	}
	for _, tt := range tests {
		if got := d.Line(tt.path); got != tt.want {
			t.Errorf("Line(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
	if got := (*Doc)(nil).Line("name"); got != 0 {
		t.Errorf("nil Doc: Line = %d", got)
	}
}

func TestDecodeLinesInNestedArraysAndInlineTables(t *testing.T) {
	src := `[[streams]]
name = "a"
rate = 1

[[streams]]
name = "b"
rate = "fast"

[[streams.phase]]
at = 1

[[streams.phase]]
at = "late"

[[streams]]
keyspace = { scheme = "hash", keys = -5 }
phase = [
  { at = 1 },
  { mult = "x" },
]
`
	_, es := decodeErrs(t, src)
	want := []string{
		`s.toml:7: streams[1].rate: expected a number, got string "fast"`,
		`s.toml:13: streams[1].phase[1].at: expected an integer, got string "late"`,
		`s.toml:16: streams[2].keyspace.keys: must not be negative (got -5)`,
		`s.toml:19: streams[2].phase[1].mult: expected a number, got string "x"`,
	}
	if got := strings.Split(es.Error(), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMerge(t *testing.T) {
	baseSrc := `name = "base"
seeds = [1, 2]
[cluster]
nodes = 3
zones = ["a", "b"]
[cluster.net]
latency = 1.5
jitter = 0.1
[[streams]]
name = "s1"
rate = 1
`
	overSrc := `seeds = [9]
[cluster]
nodes = 5
[cluster.net]
jitter = 0.2
[[streams]]
name = "s2"
[extra]
x = { y = 1 }
`
	base, over := mustParse(t, baseSrc).Root, mustParse(t, overSrc).Root
	got := Merge(base, over)
	want := mustParse(t, `name = "base"
seeds = [9]
[cluster]
nodes = 5
zones = ["a", "b"]
[cluster.net]
latency = 1.5
jitter = 0.2
[[streams]]
name = "s2"
[extra]
x = { y = 1 }
`).Root
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge =\n%v\nwant\n%v", got, want)
	}

	tests := []struct {
		name string
		base map[string]any
		over map[string]any
		want map[string]any
	}{
		{"nil inputs", nil, nil, map[string]any{}},
		{"table replaces scalar", map[string]any{"a": int64(1)}, map[string]any{"a": map[string]any{"b": int64(2)}}, map[string]any{"a": map[string]any{"b": int64(2)}}},
		{"scalar replaces table", map[string]any{"a": map[string]any{"b": int64(2)}}, map[string]any{"a": "x"}, map[string]any{"a": "x"}},
		{"array of tables replaced, not merged",
			map[string]any{"s": []map[string]any{{"n": "a", "r": int64(1)}, {"n": "b"}}},
			map[string]any{"s": []map[string]any{{"n": "a"}}},
			map[string]any{"s": []map[string]any{{"n": "a"}}}},
	}
	for _, tt := range tests {
		if got := Merge(tt.base, tt.over); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Merge = %v, want %v", tt.name, got, tt.want)
		}
	}

	// Neither input was modified, and the result shares nothing with them:
	// changing it deeply leaves the inputs as parsed.
	if !reflect.DeepEqual(base, mustParse(t, baseSrc).Root) {
		t.Errorf("Merge modified base: %v", base)
	}
	if !reflect.DeepEqual(over, mustParse(t, overSrc).Root) {
		t.Errorf("Merge modified over: %v", over)
	}
	got["cluster"].(map[string]any)["net"].(map[string]any)["latency"] = 99.0
	got["cluster"].(map[string]any)["zones"].([]any)[0] = "z"
	got["streams"].([]map[string]any)[0]["name"] = "changed"
	got["extra"].(map[string]any)["x"].(map[string]any)["y"] = int64(7)
	got["seeds"].([]any)[0] = int64(0)
	if !reflect.DeepEqual(base, mustParse(t, baseSrc).Root) {
		t.Errorf("changing the merge result changed base: %v", base)
	}
	if !reflect.DeepEqual(over, mustParse(t, overSrc).Root) {
		t.Errorf("changing the merge result changed over: %v", over)
	}
}

func TestSet(t *testing.T) {
	src := `name = "n"
seeds = [1, 2, 3]
[cluster]
nodes = 3
[[streams]]
name = "create_order"
rate = 1.0
[[streams]]
name = "read_user"
rate = 2.0
[[anon]]
x = 1
`
	tests := []struct {
		key, value string
		check      string // path in dotted/indexed form to read back
		want       any
		wantErr    string // complete error text
	}{
		{key: "cluster.nodes", value: "24", check: "cluster.nodes", want: int64(24)},
		{key: "name", value: `"hash"`, check: "name", want: "hash"},
		{key: "cluster.zones", value: `["a","b"]`, check: "cluster.zones", want: []any{"a", "b"}},
		{key: "keyspace", value: `{ scheme = "hash" }`, check: "keyspace", want: map[string]any{"scheme": "hash"}},
		{key: "streams.0.rate", value: "1.5", check: "streams[0].rate", want: 1.5},
		{key: "streams[1].rate", value: "7", check: "streams[1].rate", want: int64(7)},
		{key: "streams.read_user.rate", value: "3.5", check: "streams[1].rate", want: 3.5},
		{key: "streams[read_user].rate", value: "4.5", check: "streams[1].rate", want: 4.5}, // by name in brackets, as variants[NAME]
		{key: "streams.create_order.keyspace.scheme", value: `"range"`, check: "streams[0].keyspace.scheme", want: "range"},
		{key: "new.deep.table.key", value: "true", check: "new.deep.table.key", want: true},
		{key: "seeds.1", value: "20", check: "seeds[1]", want: int64(20)},
		{key: `cluster."a.b"`, value: "1", check: `cluster."a.b"`, want: int64(1)},
		{key: "streams.1", value: `{ name = "replaced" }`, check: "streams[1]", want: map[string]any{"name": "replaced"}},

		{key: "cluster.nodes", value: "2x", wantErr: "cluster.nodes: invalid value `2x`: "},
		{key: "cluster.scheme", value: "hash", wantErr: "cluster.scheme: invalid value `hash`: "},
		{key: "cluster.nodes", value: "1\nextra = 2", wantErr: "cluster.nodes: invalid value `1\nextra = 2`: not a single TOML value"},
		{key: "streams.write_user.rate", value: "1", wantErr: `streams.write_user.rate: streams: no element is named "write_user" (known names: "create_order", "read_user")`},
		{key: "streams[write_user].rate", value: "1", wantErr: `streams[write_user].rate: streams: no element is named "write_user" (known names: "create_order", "read_user")`},
		{key: "anon.foo.x", value: "1", wantErr: `anon.foo.x: anon: no element is named "foo" (elements have no names; use an index from 0 to 0)`},
		{key: "streams.5.rate", value: "1", wantErr: `streams.5.rate: streams: index 5 out of range (the array has 2 elements)`},
		{key: "cluster.nodes.x", value: "1", wantErr: `cluster.nodes.x: cluster.nodes is an integer 3, not a table`},
		{key: "streams.0", value: "1", wantErr: `streams.0: streams is an array of tables; its elements can only be set to a table, not integer 1`},
		{key: "cluster[0]", value: "1", wantErr: `cluster[0]: cluster is a table, not an array; it has no element 0`},
		{key: "a..b", value: "1", wantErr: `a..b: empty key segment`},
		{key: "actions[0].cores", value: "8", wantErr: `actions[0].cores: there is no actions to take element 0 of: give the whole array instead (actions = [...])`},
		{key: "new.deep[0].x", value: "1", wantErr: `new.deep[0].x: there is no new.deep to take element 0 of: give the whole array instead (new.deep = [...])`},
		{key: "new.deep.x.y", value: "1 2", wantErr: "new.deep.x.y: invalid value `1 2`"},
		{key: "new.deep.nodes.x[1]", value: "1", wantErr: `new.deep.nodes.x[1]: there is no new.deep.nodes.x to take element 1 of`},
	}
	for _, tt := range tests {
		t.Run(tt.key+"="+tt.value, func(t *testing.T) {
			root := mustParse(t, src).Root
			err := Set(root, tt.key, tt.value)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v\nwant %s", err, tt.wantErr)
				}
				if !reflect.DeepEqual(root, mustParse(t, src).Root) {
					t.Errorf("failed Set modified the document")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := lookup(root, tt.check); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.check, got, tt.want)
			}
		})
	}

	err := Set(map[string]any{}, "x", "hash")
	if err == nil || !strings.Contains(err.Error(), `(strings must be quoted: "hash")`) {
		t.Errorf("unquoted string: err = %v, want a hint to quote it", err)
	}
	if err := Set(nil, "x", "1"); err == nil {
		t.Errorf("Set on a nil root succeeded")
	}
}

// lookup follows a path of the form produced by Decode through a document.
func lookup(root map[string]any, path string) any {
	var cur any = root
	for _, s := range splitPath(path) {
		if s.index {
			elems, ok := asArray(cur)
			var n int
			if _, err := fmt.Sscan(s.name, &n); err != nil || !ok || n >= len(elems) {
				return nil
			}
			cur = elems[n]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[s.name]
	}
	return cur
}

func TestSplitPath(t *testing.T) {
	tests := []struct {
		path string
		want string // joinSegments(splitPath(path)) with segments separated by |
	}{
		{"a.b", "a|b"},
		{"streams[1].rate", "streams|[1]|rate"},
		{`table."a.b".s`, `table|"a.b"|s`},
		{`t.'lit'.x`, `t|lit|x`},
		{"[", "[]"},
		{`"unterminated`, `unterminated`},
		{"a..b", `a|""|b`},
		{".a", `""|a`},
		{"a.", `a|""`},
	}
	for _, tt := range tests {
		var parts []string
		for _, s := range splitPath(tt.path) {
			parts = append(parts, joinSegments([]segment{s}))
		}
		if got := strings.Join(parts, "|"); got != tt.want {
			t.Errorf("splitPath(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// TestLineIndexCoversAllKeys checks that the scanner finds every key and
// array element of tricky documents at exactly its path.
func TestLineIndexCoversAllKeys(t *testing.T) {
	docs := []string{
		lineSrc,
		`"\u0041" = 1` + "\n" + `'lit.key' = 2` + "\n" + `"esc\"q" = 3` + "\n",
		`"\U0001F600" = 1` + "\n" + `"a\eb\x41\t" = 2` + "\n" + `"\\" = { "\n" = 3 }` + "\n",
		"s = \"\"\"a\"\"\"\"\"\nt = '''x''''\nu = \"\"\"\\\n  cont\"\"\"\nv = 1\n",
		"a = [ # comment ]\n  [1, 2], # more\n  [ { x = 1 } ],\n]\nb = 2\n",
		"[x]\ny.z = { w = [ { v = 1 }, { u = 2 } ] }\n[x.y.q]\nr = 3\n",
		"[[a]]\n[[a.b]]\n[[a.b]]\nc = 1\n[[a]]\n[a.d]\ne = 2\n[[a.b]]\nf = 3\n",
		"dt = 1979-05-27 07:32:00Z\nn = -inf\nh = 0xff\nnext = 'ok'\n",
		"[ a . \"b c\" . 'd' ]\ne = 1\n",
		"a = {\n  b = 1, # TOML 1.1\n  c = { d = 2 },\n}\n",
		"# only a comment",
		"",
	}
	for _, src := range docs {
		d := mustParse(t, src)
		walkPaths(d.Root, "", 0, func(path string) {
			if d.Line(path) == 0 {
				t.Errorf("no line for %q in\n%s\nindex: %v", path, src, d.lines)
			}
		})
	}
	d := mustParse(t, "[[a]]\n[[a.b]]\n[[a.b]]\nc = 1\n[[a]]\n[a.d]\ne = 2\n[[a.b]]\nf = 3\n")
	for path, want := range map[string]int{"a[0].b[1].c": 4, "a[1].d.e": 7, "a[1].b[0].f": 9, "a[1]": 5} {
		if got := d.Line(path); got != want {
			t.Errorf("Line(%q) = %d, want %d", path, got, want)
		}
	}
}

// TestElementLines: scalar array elements keep their own lines (an error about values[3]
// points at the line that holds it) without a map entry per element.
func TestElementLines(t *testing.T) {
	d := mustParse(t, "a = [1, 2,\n  3, 4,\n\n  5]\nb = [[7, 8], [\n9]]\nc = 1\n")
	for path, want := range map[string]int{
		"a[0]": 1, "a[1]": 1, "a[2]": 2, "a[3]": 2, "a[4]": 4,
		"a[5]":    1, // no such element: the array's line
		"b[0][1]": 5, "b[1][0]": 6, "c": 7,
	} {
		if got := d.Line(path); got != want {
			t.Errorf("Line(%q) = %d, want %d", path, got, want)
		}
	}
	if n := len(d.lines); n > 6 {
		t.Errorf("%d map entries for 3 keys and 2 nested arrays: %v", n, d.lines)
	}
}

// TestSuggestTies: among keys at the same edit distance, the one that holds the typed
// letters in order (a letter left out) wins, then the one with the same ending, whatever
// the candidates' order.
func TestSuggestTies(t *testing.T) {
	for _, tc := range []struct {
		k    string
		cand []string
		want string
	}{
		{"nods", []string{"node", "nodes"}, "nodes"},
		{"nods", []string{"nodes", "node"}, "nodes"},
		{"rat", []string{"rate", "ram"}, "rate"},
		{"cors", []string{"core", "cores"}, "cores"},
	} {
		if got := suggest(tc.k, tc.cand); got != tc.want {
			t.Errorf("suggest(%q, %q) = %q, want %q", tc.k, tc.cand, got, tc.want)
		}
	}
}
