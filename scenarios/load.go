package scenarios

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/scenarios/internal/tomlx"
	"github.com/shardsim/shardsim/sim"
)

//go:embed *.toml
var builtinFS embed.FS

// Default is the built-in scenario that `shardsim run` runs when given none.
const Default = "black-friday"

// Scenario is a loaded and validated scenario with its variants resolved.
type Scenario struct {
	Source      string // the file it came from, or "built-in NAME"
	Name        string
	Description string
	Seed        uint64
	Start       sim.Time // wall-clock time of day of t=0
	Duration    sim.Time
	Warmup      sim.Time
	Window      sim.Time
	Variants    []*Variant
}

// Variant is one key design of a scenario, fully resolved.
type Variant struct {
	Name        string
	Description string
	Nodes       int
	Shards      int // at the start of the run
	// MaxShards is the most shards the variant can have: Shards, or keyspace.split's
	// max_shards when shards split during the run (per-shard results are sized for it).
	MaxShards int
	Streams   []StreamInfo
	spec      *spec
}

// StreamInfo names a stream, its operation and its p99 alert thresholds.
type StreamInfo struct {
	Name string
	Op   sim.Op
	SLO  []sim.Time
}

// Options change a scenario as it is loaded.
type Options struct {
	// Sets are KEY=VALUE overrides of the base scenario (VALUE in TOML syntax; a bare word
	// is taken as a string). Variants still override what they name.
	Sets []string
	// Variants, when not empty, keeps only the variants with these names.
	Variants []string
}

// Load reads a scenario from a file path or, when no such file exists, a built-in name.
// Every error is a problem with the scenario or its arguments (exit status 2).
func Load(ref string, opts Options) (*Scenario, error) {
	if st, err := os.Stat(ref); err == nil && st.Mode().IsRegular() {
		src, err := os.ReadFile(ref)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", ref, err)
		}
		return LoadBytes(ref, src, opts)
	}
	src, err := builtinFS.ReadFile(ref + ".toml")
	if err != nil || strings.ContainsAny(ref, "/\\") {
		return nil, fmt.Errorf("%s: no such file, and no built-in scenario of that name (built-ins: %s)", ref, strings.Join(BuiltinNames(), ", "))
	}
	return LoadBytes("scenarios/"+ref+".toml", src, opts)
}

// BuiltinNames lists the built-in scenarios, sorted.
func BuiltinNames() []string {
	ents, _ := fs.Glob(builtinFS, "*.toml")
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = strings.TrimSuffix(e, ".toml")
	}
	slices.Sort(names)
	return names
}

// LoadBytes loads a scenario from its text; file names it in messages.
func LoadBytes(file string, src []byte, opts Options) (*Scenario, error) {
	doc, err := tomlx.Parse(file, src)
	if err != nil {
		return nil, err
	}
	root := doc.Root
	var errs tomlx.Errors
	for _, kv := range opts.Sets {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			errs = append(errs, &tomlx.Error{File: "--set", Msg: fmt.Sprintf("%q: want KEY=VALUE", kv)})
			continue
		}
		if err := tomlx.Set(root, k, setValue(v)); err != nil {
			var te *tomlx.Error
			if errors.As(err, &te) {
				e := *te
				e.File = "--set"
				errs = append(errs, &e)
			} else {
				errs = append(errs, &tomlx.Error{File: "--set", Key: k, Msg: err.Error()})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}

	// Split the variants off the base and check each part's keys and types on its own, so
	// that every message points at the text the user wrote.
	base := make(map[string]any, len(root))
	for k, v := range root {
		if k != "variants" {
			base[k] = v
		}
	}
	var overrides []map[string]any
	if raw, ok := root["variants"]; ok {
		list, ok := raw.([]map[string]any)
		if !ok {
			errs = append(errs, &tomlx.Error{File: file, Line: doc.Line("variants"), Key: "variants", Msg: "must be an array of tables: [[variants]] with name = \"...\""})
			return nil, errs
		}
		overrides = list
	}
	var f File
	if err := doc.Decode(base, "", &f); err != nil {
		errs = appendErr(errs, err)
	}
	vfiles := make([]File, len(overrides))
	for i, o := range overrides {
		if err := doc.Decode(o, fmt.Sprintf("variants[%d]", i), &vfiles[i]); err != nil {
			errs = appendErr(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}

	baseSpec, probs := resolve(&f)
	seen := map[string]bool{}
	report := func(p problem, prefix, at string) {
		e := &tomlx.Error{File: file, Key: prefix + p.key, Msg: p.msg, Line: doc.Line(at)}
		if s := e.Error(); !seen[s] {
			seen[s] = true
			errs = append(errs, e)
		}
	}
	inBase := map[problem]bool{}
	for _, p := range probs {
		inBase[p] = true
		report(p, "", p.key)
	}
	sc := &Scenario{
		Source: file, Name: baseSpec.name, Description: baseSpec.description, Seed: baseSpec.seed,
		Start: baseSpec.start, Duration: baseSpec.duration, Warmup: baseSpec.warmup, Window: baseSpec.window,
	}
	if len(overrides) == 0 {
		sc.Variants = []*Variant{newVariant("base", "", baseSpec)}
	}
	names := map[string]bool{}
	for i, o := range overrides {
		vkey := fmt.Sprintf("variants[%d]", i)
		name := vfiles[i].Name
		switch {
		case name == "":
			report(problem{key: ".name", msg: "required: every variant needs a name"}, vkey, vkey)
			continue
		case names[name]:
			report(problem{key: ".name", msg: fmt.Sprintf("duplicate variant name %q", name)}, vkey, vkey+".name")
			continue
		}
		names[name] = true
		if len(opts.Variants) > 0 && !slices.Contains(opts.Variants, name) {
			// Not selected: only its name counts (a value set for every variant, such as
			// fewer nodes, may not suit a variant nobody asked for).
			sc.Variants = append(sc.Variants, &Variant{Name: name, Description: vfiles[i].Description})
			continue
		}
		over := make(map[string]any, len(o))
		for k, v := range o {
			if k != "name" && k != "description" {
				over[k] = v
			}
		}
		var vf File
		if err := doc.Decode(tomlx.Merge(replaceFields(base, over), over), "", &vf); err != nil {
			errs = appendErr(errs, err)
			continue
		}
		vs, probs := resolve(&vf)
		for _, p := range probs {
			switch {
			case hasPath(over, p.key):
				report(p, vkey+".", vkey+"."+p.key)
			case inBase[p]:
				// Already reported once for the base scenario.
			default:
				report(problem{key: p.key, msg: p.msg + fmt.Sprintf(" (in variant %q)", name)}, "", p.key)
			}
		}
		// The scenario-wide settings belong to the scenario, not to a variant.
		for _, k := range []string{"seed", "start", "duration", "warmup", "window", "load_factor"} {
			if _, ok := over[k]; ok {
				report(problem{key: "." + k, msg: "is scenario-wide and cannot differ between variants"}, vkey, vkey+"."+k)
			}
		}
		sc.Variants = append(sc.Variants, newVariant(name, vfiles[i].Description, vs))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if len(opts.Variants) > 0 {
		var keep []*Variant
		for _, want := range opts.Variants {
			i := slices.IndexFunc(sc.Variants, func(v *Variant) bool { return v.Name == want })
			if i < 0 {
				var have []string
				for _, v := range sc.Variants {
					have = append(have, fmt.Sprintf("%q", v.Name))
				}
				return nil, fmt.Errorf("%s: --variant %q: no such variant (have %s)", file, want, strings.Join(have, ", "))
			}
			keep = append(keep, sc.Variants[i])
		}
		sc.Variants = keep
	}
	return sc, nil
}

func newVariant(name, desc string, s *spec) *Variant {
	v := &Variant{Name: name, Description: desc, Nodes: len(s.nodes), Shards: s.shards, MaxShards: max(s.shards, s.maxShards), spec: s}
	for _, st := range s.streams {
		v.Streams = append(v.Streams, StreamInfo{Name: st.name, Op: st.op, SLO: st.slo})
	}
	return v
}

func appendErr(errs tomlx.Errors, err error) tomlx.Errors {
	var te tomlx.Errors
	if errors.As(err, &te) {
		return append(errs, te...)
	}
	return append(errs, &tomlx.Error{Msg: err.Error()})
}

// setValue lets --set take bare words as strings: `--set keyspace.scheme=hash`.
func setValue(v string) string {
	if v == "" {
		return `""`
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(v, "_", ""), 64); err == nil {
		return v
	}
	switch v[0] {
	case '"', '\'', '[', '{':
		return v
	}
	if v == "true" || v == "false" {
		return v
	}
	return strconv.Quote(v)
}

// hasPath reports whether the dotted path ("keyspace.shards", "streams[1].rate") exists in m.
func hasPath(m map[string]any, path string) bool {
	var cur any = m
	for _, seg := range strings.Split(path, ".") {
		name, idx := seg, -1
		if i := strings.IndexByte(seg, '['); i >= 0 && strings.HasSuffix(seg, "]") {
			name = seg[:i]
			n, err := strconv.Atoi(seg[i+1 : len(seg)-1])
			if err != nil {
				return false
			}
			idx = n
		}
		t, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = t[name]; !ok {
			return false
		}
		if idx >= 0 {
			switch a := cur.(type) {
			case []map[string]any:
				if idx >= len(a) {
					return false
				}
				cur = a[idx]
			case []any:
				if idx >= len(a) {
					return false
				}
				cur = a[idx]
			default:
				return false
			}
		}
	}
	return true
}

// replaceFields returns base without the table.fields entries that over redefines: a field
// generator is replaced whole, not merged, so a variant can turn a Zipf field (with s) into
// a uniform one. base is not modified.
func replaceFields(base, over map[string]any) map[string]any {
	ot, _ := over["table"].(map[string]any)
	of, _ := ot["fields"].(map[string]any)
	bt, _ := base["table"].(map[string]any)
	bf, _ := bt["fields"].(map[string]any)
	if len(of) == 0 || len(bf) == 0 {
		return base
	}
	fields := make(map[string]any, len(bf))
	for k, v := range bf {
		if _, redefined := of[k]; !redefined {
			fields[k] = v
		}
	}
	table := make(map[string]any, len(bt))
	for k, v := range bt {
		table[k] = v
	}
	table["fields"] = fields
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	out["table"] = table
	return out
}
