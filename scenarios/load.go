package scenarios

import (
	"cmp"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/internal/tomlx"
	// The mechanisms that bring their own keys, each a folder (docs/architecture.md, "Where a
	// new thing goes"): importing one declares its keys and registers its resolver. Their
	// resolvers of a phase run, and their settings come, in the order Go initializes the
	// packages (by import path, as listed below), the order of explain's notes; the settings
	// an action changes come in their ranks' order (scenario.ActionSetting), the operator's
	// first. compile builds the operator's setting, last among a model's.
	_ "github.com/shardsim/shardsim/mechanisms/cache"
	_ "github.com/shardsim/shardsim/mechanisms/eventloop"
	_ "github.com/shardsim/shardsim/mechanisms/flush"
	_ "github.com/shardsim/shardsim/mechanisms/index"
	_ "github.com/shardsim/shardsim/mechanisms/latch"
	_ "github.com/shardsim/shardsim/mechanisms/limits"
	_ "github.com/shardsim/shardsim/mechanisms/locks"
	_ "github.com/shardsim/shardsim/mechanisms/migrate"
	_ "github.com/shardsim/shardsim/mechanisms/operator"
	_ "github.com/shardsim/shardsim/mechanisms/pool"
	_ "github.com/shardsim/shardsim/mechanisms/queue"
	_ "github.com/shardsim/shardsim/mechanisms/rebalance"
	_ "github.com/shardsim/shardsim/mechanisms/replicas"
	_ "github.com/shardsim/shardsim/mechanisms/split"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

//go:embed *.toml
var builtinFS embed.FS

// builtinTraces holds the logs the built-in scenarios replay (traces/), at the paths
// they give relative to their own directory.
//
//go:embed traces
var builtinTraces embed.FS

// Default is the built-in scenario that `shardsim run` runs when given none.
const Default = "black-friday"

// Scenario is a loaded and validated scenario with its variants resolved. Its embedded
// scenario.Scenario is the description the readers of results take.
type Scenario struct {
	scenario.Scenario
	Source string // the file it came from, or "built-in NAME"
	// SHA256 is the hash (hex) of the file's text and of the access logs its variants
	// replay, which names the scenario in a cluster sweep's manifest.
	SHA256   string
	Variants []*Variant
	// Notes are what the user should know about how the command line changed the
	// variants (docs/scenario.md, "Overrides from the command line"), one line each, for stderr.
	Notes []string
	// Memory estimates the bytes a run of the selected variants takes (compile.RunMemory).
	Memory float64
}

// workError is the problem of a variant whose work passes compile.MaxWork, at the flag that
// made it large when one did (the stream's rate or op, the shards, the duration, the load
// factor), else at the stream in the file.
func workError(file string, doc *tomlx.Doc, global []*override, key, msg string) *tomlx.Error {
	for _, k := range []string{key + ".rate", key + ".schedule", key + ".op", key + ".where", "keyspace.shards", "cluster.replicas", "duration", "load_factor", key} {
		if e := flagError(global, k, msg); e != nil {
			return e
		}
	}
	return &tomlx.Error{File: file, Key: key, Line: doc.Line(key), Msg: msg}
}

// MaxVariants bounds a scenario's [[variants]].
const MaxVariants = 1000

// Variant is one key design of a scenario, fully resolved. Its embedded scenario.Variant (name,
// streams, resolved spec) is what the readers of results take.
type Variant struct {
	scenario.Variant
	Nodes  int
	Shards int // at the start of the run
	// MaxShards is the most shards the variant can have: Shards, or keyspace.split's
	// max_shards when shards split during the run (per-shard results are sized for it).
	MaxShards int
	index     int // in the file's [[variants]]
	// Work is the variant's predicted work, time and subrequests held (compile.EstimateWork).
	Work *compile.Work
	// routing is what Work was estimated through, which every model of the variant routes
	// by (compile.Routing); set by the load once every value of the command line is in Spec.
	routing *compile.Routing
	// Replaced are the dotted keys of the variant's own values that a value for every
	// variant on the command line replaced (a --set, a sweep's --vary); Notes says each.
	Replaced []string
}

// StreamInfo names a stream, its operation and its p99 alert thresholds.
type StreamInfo = scenario.StreamInfo

// Options change a scenario as it is loaded.
type Options struct {
	// Sets are --set KEY=VALUE overrides (VALUE in TOML syntax; a bare word is taken as a
	// string). They apply to the base scenario and then to every selected variant after the
	// variant's own overrides: the command line wins (docs/scenario.md, "Overrides from the
	// command line"). A key of the form variants[NAME].KEY or variants[INDEX].KEY changes that
	// variant only.
	Sets []string
	// Overrides are values given by other flags (--seed, --duration, a sweep's --vary),
	// applied like Sets and named by their flag in messages.
	Overrides []Override
	// Variants, when not empty, keeps only these variants: each is a variant's name, its
	// index in the file, or a prefix of exactly one name.
	Variants []string
	// Parallel is how many variants will run at once (0: one), and EngineCores how many
	// cores one run may use (--engine-cores; 0: one), for the memory estimate: a run split
	// among workers holds its series once a worker while it runs.
	Parallel, EngineCores int
}

// Override is one value the command line sets: Flag is how the user wrote it, for
// messages ("--duration 30s"); Key is the dotted key and Value its TOML text.
type Override struct {
	Flag, Key, Value string
	// ScaleWarmup (with Key "duration", from --duration) shortens the file's warmup in
	// proportion when it would not fit in the new duration.
	ScaleWarmup bool
}

// override is a parsed command-line value, with the variant it addresses (-1: all).
type override struct {
	Override
	variant string // the NAME or INDEX of variants[NAME].KEY; "" for every variant
	// canon holds the key as validation names it (array elements by index) in each
	// table it was set in.
	canon []string
	// made is the table the flag makes up when the file has none there ("cache" for
	// --set cache.ttl=30s on a file without [cache]), or "": that table's other
	// required keys are the flag's problem, not the file's.
	made string
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
		if st, serr := os.Stat(ref); serr == nil {
			what := "is a directory"
			if !st.IsDir() {
				what = "is not a regular file"
			}
			return nil, fmt.Errorf("%s: %s, not a scenario file: give a scenario's .toml file or a built-in name (built-ins: %s)",
				ref, what, strings.Join(BuiltinNames(), ", "))
		}
		msg := fmt.Sprintf("%s: no such file, and no built-in scenario of that name", ref)
		if near := nearestName(ref, BuiltinNames()); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		}
		return nil, fmt.Errorf("%s (built-ins: %s)", msg, strings.Join(BuiltinNames(), ", "))
	}
	return loadBytes("scenarios/"+ref+".toml", src, opts, builtinTraces)
}

// nearestName returns the built-in name closest to ref when it is close enough to be a
// slip (a dash left out, a letter swapped), or "".
func nearestName(ref string, names []string) string {
	best, bestD := "", 4
	squash := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(s), "-", ""), "_", "")
	}
	for _, n := range names {
		if squash(n) == squash(ref) {
			return n
		}
		if d := tomlx.EditDistance(ref, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
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

// parseOverrides reads the --set texts and the other flags' values.
func parseOverrides(opts Options) ([]override, tomlx.Errors) {
	var out []override
	var errs tomlx.Errors
	for _, kv := range opts.Sets {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			errs = append(errs, &tomlx.Error{File: "--set", Msg: fmt.Sprintf("%q: want KEY=VALUE", kv)})
			continue
		}
		out = append(out, override{Override: Override{Flag: "--set " + k + "=" + v, Key: k, Value: setValue(v)}})
	}
	for _, o := range opts.Overrides {
		out = append(out, override{Override: o})
	}
	for i := range out {
		o := &out[i]
		who, key, msg := variantKey(o.Key)
		switch {
		case msg != "":
			errs = append(errs, &tomlx.Error{File: o.Flag, Msg: msg})
		case who != "":
			o.variant, o.Key = who, key
		}
	}
	return out, errs
}

// variantKey splits a --set key aimed at one variant, variants[NAME].KEY, variants[INDEX].KEY
// or variants.NAME.KEY, into the variant and its key. A key of the scenario itself gives
// who == ""; a variants key of no other form gives msg, what was wanted.
func variantKey(k string) (who, key, msg string) {
	rest, ok := strings.CutPrefix(k, "variants")
	if !ok || (rest != "" && rest[0] != '[' && rest[0] != '.') {
		return "", k, ""
	}
	const want = "want variants[NAME].KEY or variants[INDEX].KEY"
	if rest == "" {
		return "", k, "variants are set one key at a time: " + want
	}
	if strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return "", k, want
		}
		who, rest = strings.Trim(rest[1:j], `"' `), rest[j+1:]
	} else if who, rest, ok = strings.Cut(rest[1:], "."); ok {
		rest = "." + rest
	}
	if who == "" || !strings.HasPrefix(rest, ".") || len(rest) < 2 {
		return "", k, want
	}
	return who, rest[1:], ""
}

// flagError names the flag a problem's value came from, when it came from one.
func flagError(sets []*override, key, msg string) *tomlx.Error {
	for i := len(sets) - 1; i >= 0; i-- {
		o := sets[i]
		for _, k := range append([]string{o.Key}, o.canon...) {
			if key == k || strings.HasPrefix(key, k+".") || strings.HasPrefix(key, k+"[") {
				e := &tomlx.Error{File: o.Flag, Msg: msg}
				if key != k {
					e.Key = key
				}
				return e
			}
		}
	}
	return nil
}

// parentFlagError names the flag behind an unknown key that a --set created as the parent
// of the key it sets: --set nosection.x=1 makes a table "nosection", which the decoder
// reports as an unknown key of its own, not at x.
func parentFlagError(sets []*override, key, msg string) *tomlx.Error {
	if !strings.HasPrefix(msg, "unknown key") {
		return nil
	}
	for i := len(sets) - 1; i >= 0; i-- {
		o := sets[i]
		for _, k := range append([]string{o.Key}, o.canon...) {
			if strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[") {
				return &tomlx.Error{File: o.Flag, Key: key, Msg: msg}
			}
		}
	}
	return nil
}

// madeTableError names the flag behind a problem of a table the flag made up: --set
// cache.ttl=30s on a file without [cache] makes a [cache] that lacks cache.capacity,
// which the file never claimed to have.
func madeTableError(sets []*override, key, msg string) *tomlx.Error {
	for i := len(sets) - 1; i >= 0; i-- {
		o := sets[i]
		if t := o.made; t != "" && (strings.HasPrefix(key, t+".") || strings.HasPrefix(key, t+"[")) {
			return &tomlx.Error{File: o.Flag, Key: key, Msg: fmt.Sprintf(
				"%s; the scenario has no [%s]: the flag makes one, which needs %s as well (add --set %s=...)",
				msg, t, key, key)}
		}
	}
	return nil
}

// LoadBytes loads a scenario from its text; file names it in messages, and the logs its
// streams replay are found beside it (trace.path is relative to file's directory).
func LoadBytes(file string, src []byte, opts Options) (*Scenario, error) {
	return loadBytes(file, src, opts, dirFS(filepath.Dir(file)))
}

// dirFS opens paths relative to a directory, "../" included (os.DirFS refuses those, but
// a scenario may name a log beside its own directory).
type dirFS string

func (d dirFS) Open(name string) (fs.File, error) {
	return os.Open(filepath.Join(string(d), filepath.FromSlash(name)))
}

// Stat stats the path (following links) without opening it, so that trace.Open can refuse
// a FIFO before an open that would block.
func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	return os.Stat(filepath.Join(string(d), filepath.FromSlash(name)))
}

// loadBytes is LoadBytes with the file system the scenario's trace paths are read from.
func loadBytes(file string, src []byte, opts Options, traceFS fs.FS) (*Scenario, error) {
	doc, err := tomlx.Parse(file, src)
	if err != nil {
		return nil, err
	}
	l := &loader{file: file, doc: doc, traceFS: traceFS, failed: map[string]bool{}, seen: map[string]bool{}}
	l.sets, l.errs = parseOverrides(opts)
	for i := range l.sets {
		if l.sets[i].variant == "" {
			l.global = append(l.global, &l.sets[i])
		}
	}
	base, overrides, warmupNote, ok := l.split()
	if !ok {
		return nil, l.errs
	}
	f, vfiles := l.decode(base, overrides)
	baseSpec, probs := resolve(&f)
	inBase := l.reportBase(probs)
	sc := &Scenario{
		Notes:    notes(warmupNote),
		Source:   file,
		Scenario: baseSpec.Scenario, // its claims named in full by link
	}
	if len(overrides) == 0 {
		for _, o := range l.sets {
			if o.variant != "" {
				l.errs = append(l.errs, &tomlx.Error{File: o.Flag, Msg: "the scenario has no [[variants]]; set the key without the variants[...] prefix"})
			}
		}
		sc.Variants = []*Variant{newVariant("base", "", baseSpec)}
	}
	names := make([]string, len(overrides))
	for i := range overrides {
		names[i] = vfiles[i].Name
	}
	selected, selErr := selectVariants(file, names, opts.Variants)
	if selErr != nil && !l.decodeFailed {
		l.errs = append(l.errs, &tomlx.Error{Msg: selErr.Error()})
	}
	l.checkAddressed(names, len(overrides))
	l.variants(sc, base, overrides, vfiles, names, selected, inBase)
	l.link(sc, overrides, names, baseSpec)
	if len(l.errs) > 0 {
		return nil, l.errs
	}
	if e := l.fit(sc, selected, len(overrides) == 0, opts.Parallel, opts.EngineCores); e != nil {
		return nil, tomlx.Errors{e}
	}
	if selected != nil {
		sc.Variants = keepSelected(sc.Variants, names, opts.Variants)
	}
	sc.SHA256 = hashWithTraces(src, sc.Variants)
	return sc, nil
}

// loader is one load of a scenario file: the parsed text, the command line's values, and
// the problems found so far, each reported once at the text the user wrote or the flag
// that set it.
type loader struct {
	file    string
	doc     *tomlx.Doc
	traceFS fs.FS
	sets    []override
	global  []*override // the values for every variant
	errs    tomlx.Errors
	failed  map[string]bool // overrides that could not be set on the base
	seen    map[string]bool // the problems reported, as text
	// undecoded are the keys whose value could not be decoded; decodeFailed says some
	// could not.
	undecoded    map[string]bool
	decodeFailed bool
	// cutDetail: --duration cuts a detail range rather than refusing it; moved: --set
	// start reads the clock times it has passed as before the run.
	cutDetail, moved bool
}

// apply sets a command-line value in m; where names the variant it was set in.
func (l *loader) apply(m map[string]any, o *override, where string) {
	if c, ok := tomlx.Canonical(m, o.Key); ok && !slices.Contains(o.canon, c) {
		o.canon = append(o.canon, c)
	}
	missing := -1 // the dots before the first table of the key the file lacks
	if where == "" {
		missing = missingTable(m, o.Key)
	}
	err := tomlx.Set(m, o.Key, o.Value)
	if t := ""; err == nil && missing >= 0 {
		if t = madeTable(m, o.Key, missing); t != "" {
			o.made = t
		}
	}
	if err == nil || l.failed[o.Flag] {
		return
	}
	if where == "" {
		l.failed[o.Flag] = true
	}
	var te *tomlx.Error
	msg := err.Error()
	if errors.As(err, &te) {
		msg = te.Msg
	}
	e := &tomlx.Error{File: o.Flag, Msg: msg + where}
	if te != nil && te.Key != o.Key {
		e.Key = te.Key
	}
	l.errs = append(l.errs, e)
}

// missingTable is the number of dots in key before the first table m lacks, or -1 when m
// has every table the key names.
func missingTable(m map[string]any, key string) int {
	for i, n := 0, 0; i < len(key); i++ {
		if key[i] != '.' {
			continue
		}
		if _, ok := tomlx.Get(m, key[:i]); !ok {
			return n
		}
		n++
	}
	return -1
}

// madeTable is the table that setting key made in m, where the file lacked the table
// after missing dots ("" when the key itself was the missing part).
func madeTable(m map[string]any, key string, missing int) string {
	c, ok := tomlx.Canonical(m, key)
	if !ok {
		c = key
	}
	if segs := strings.Split(c, "."); missing < len(segs)-1 {
		return strings.Join(segs[:missing+1], ".")
	}
	return ""
}

// add reports a problem once.
func (l *loader) add(e *tomlx.Error) {
	if s := e.Error(); !l.seen[s] {
		l.seen[s] = true
		l.errs = append(l.errs, e)
	}
}

// report reports a problem of the file at the line of key at.
func (l *loader) report(p scenario.FieldError, prefix, at string) {
	l.add(&tomlx.Error{File: l.file, Key: prefix + p.Key, Msg: p.Msg, Line: l.doc.Line(at)})
}

// split splits the variants off the base and applies the command line's values for every
// variant to the base (scaling the warm-up with a shorter --duration, which note says);
// false when [[variants]] is not a list of tables or holds too many.
func (l *loader) split() (base map[string]any, overrides []map[string]any, note string, ok bool) {
	root := l.doc.Root
	base = make(map[string]any, len(root))
	for k, v := range root {
		if k != "variants" {
			base[k] = v
		}
	}
	if o := scaledWarmup(base, l.global); o != nil {
		l.global = append(l.global, o)
		w, _ := base["warmup"].(string)
		v, _ := strconv.Unquote(o.Value)
		note = fmt.Sprintf("note: %s is not longer than the scenario's warmup %s; the warmup is shortened in proportion, to %s", o.Flag, w, v)
	}
	for _, o := range l.global {
		l.apply(base, o, "")
	}
	if raw, ok := root["variants"]; ok {
		list, ok := raw.([]map[string]any)
		if !ok {
			l.errs = append(l.errs, &tomlx.Error{File: l.file, Line: l.doc.Line("variants"), Key: "variants", Msg: "must be an array of tables: [[variants]] with name = \"...\""})
			return nil, nil, "", false
		}
		if len(list) > MaxVariants {
			// Each variant keeps its results to the end: about 400 KB a stream, and a
			// report section; ten thousand trivial variants took 4 GB.
			l.errs = append(l.errs, &tomlx.Error{File: l.file, Line: l.doc.Line("variants"), Key: "variants",
				Msg: fmt.Sprintf("%d [[variants]]; at most %d are allowed: split the scenario, or vary a key with a sweep (shardsim sweep --vary)", len(list), MaxVariants)})
			return nil, nil, "", false
		}
		overrides = list
	}
	for _, o := range l.global {
		l.cutDetail = l.cutDetail || o.Key == "duration" && o.ScaleWarmup
		l.moved = l.moved || o.Key == "start"
	}
	return base, overrides, note, true
}

// decode decodes the base into a File over the defaults, and each variant's own table on
// its own, only to check its keys and types and to read its name and description. Split
// the variants off the base and check each part's keys and types on its own, so that
// every message points at the text the user wrote.
func (l *loader) decode(base map[string]any, overrides []map[string]any) (scenario.File, []scenario.File) {
	f := l.newFile()
	var undecodedErrs tomlx.Errors // as the decoder named them, before relabelling
	if err := l.doc.Decode(base, "", &f); err != nil {
		undecodedErrs = appendErr(undecodedErrs, err)
		l.errs = appendErr(l.errs, relabel(err, l.global))
	}
	vfiles := make([]scenario.File, len(overrides))
	for i, o := range overrides {
		if err := l.doc.Decode(o, fmt.Sprintf("variants[%d]", i), &vfiles[i]); err != nil {
			l.errs = appendErr(l.errs, err)
			undecodedErrs = appendErr(undecodedErrs, err)
		}
	}
	// Decoding problems (an unknown key, a string where a number belongs) do not hide the
	// value problems of the same file: what decoded is validated too, and every problem is
	// reported at once.
	l.decodeFailed = len(l.errs) > 0
	l.undecoded = undecodedKeys(undecodedErrs)
	return f, vfiles
}

// newFile is a File of the defaults, reading logs from the scenario's directory.
func (l *loader) newFile() scenario.File {
	f := scenario.Defaults()
	f.TraceFS, f.Shortened, f.Moved = l.traceFS, l.cutDetail, l.moved
	return f
}

// undecodedKeys are the keys of decoding problems. A misspelt key stands for the one it
// suggests: "evry" does not also make "every: required" a problem of its own.
func undecodedKeys(errs tomlx.Errors) map[string]bool {
	undecoded := map[string]bool{}
	for _, e := range errs {
		undecoded[e.Key] = true
		if _, sug, ok := strings.Cut(e.Msg, "did you mean "); ok {
			if name, err := strconv.Unquote(strings.TrimSuffix(sug, "?")); err == nil {
				parent := e.Key[:max(strings.LastIndexAny(e.Key, "."), 0)]
				if parent != "" {
					name = parent + "." + name
				}
				undecoded[name] = true
			}
		}
	}
	return undecoded
}

// restates reports whether a value problem at key (or inside it) restates a decoding
// problem ("cores: must be at least 1" after "cores: expected an integer").
func (l *loader) restates(key string) bool {
	for k := range l.undecoded {
		if k != "" && (key == k || strings.HasPrefix(key, k+".") || strings.HasPrefix(key, k+"[") || strings.HasPrefix(k, key+".")) {
			return true
		}
	}
	return false
}

// reportBase reports the base's problems, at the flag that set a key or at its line, and
// returns them, so that a variant does not report them again.
func (l *loader) reportBase(probs []scenario.FieldError) map[scenario.FieldError]bool {
	inBase := map[scenario.FieldError]bool{}
	for _, p := range probs {
		inBase[p] = true
		if l.restates(p.Key) {
			continue
		}
		if e := cmp.Or(flagError(l.global, p.Key, p.Msg), madeTableError(l.global, p.Key, p.Msg)); e != nil {
			l.add(e)
			continue
		}
		l.report(p, "", p.Key)
	}
	return inBase
}

// checkAddressed reports a value addressed to a variant that does not exist.
func (l *loader) checkAddressed(names []string, variants int) {
	for _, o := range l.sets {
		if o.variant == "" || variants == 0 {
			continue
		}
		if _, err := pickVariant(names, o.variant); err != nil {
			l.errs = append(l.errs, &tomlx.Error{File: o.Flag, Msg: err.Error()})
		}
	}
}

// variants loads every variant: a selected one (or one a selected one names,
// scenario.NeededVariants) in full, another by its name alone.
func (l *loader) variants(sc *Scenario, base map[string]any, overrides []map[string]any, vfiles []scenario.File, names []string, selected map[int]bool, inBase map[scenario.FieldError]bool) {
	targets := linkedTargets(base, overrides, names, selected)
	seenName := map[string]bool{}
	for i, o := range overrides {
		vkey := fmt.Sprintf("variants[%d]", i)
		name := vfiles[i].Name
		if !l.checkVariantName(vkey, name, seenName) {
			continue
		}
		if selected != nil && !selected[i] && !targets[i] {
			// Not selected: only its name counts (a value set for every variant, such as
			// fewer nodes, may not suit a variant nobody asked for).
			sc.Variants = append(sc.Variants, &Variant{Variant: scenario.Variant{Name: name, Description: vfiles[i].Description}, index: i})
			continue
		}
		if v := l.variant(sc, base, o, i, names, vfiles[i].Description, inBase); v != nil {
			sc.Variants = append(sc.Variants, v)
		}
	}
}

// link links each variant to the variants it names (scenario.LinkVariant), and the
// claims to the variants they name.
func (l *loader) link(sc *Scenario, overrides []map[string]any, names []string, baseSpec *scenario.Resolved) {
	for _, e := range linkVariants(l.file, l.doc, sc.Variants, overrides, names) {
		l.add(e)
	}
	if baseSpec != nil {
		claims, cerrs := linkClaims(l.file, l.doc, baseSpec.Claims, names)
		for _, e := range cerrs {
			l.add(e)
		}
		sc.Scenario.Claims = claims
	}
}

// checkVariantName reports a variant's missing, bad or repeated name; false then.
func (l *loader) checkVariantName(vkey, name string, seen map[string]bool) bool {
	switch msg := scenario.CheckVariantName(name); {
	case msg != "":
		at := vkey + ".name"
		if name == "" {
			at = vkey
		}
		l.report(scenario.FieldError{Key: ".name", Msg: msg}, vkey, at)
		return false
	case seen[name]:
		l.report(scenario.FieldError{Key: ".name", Msg: fmt.Sprintf("duplicate variant name %q", name)}, vkey, vkey+".name")
		return false
	}
	seen[name] = true
	return true
}

// variant loads variant i: the base merged with its own table o, then the command line's
// values (those for every variant, then those addressed to it), resolved; nil when it
// does not decode.
func (l *loader) variant(sc *Scenario, base, o map[string]any, i int, names []string, description string, inBase map[scenario.FieldError]bool) *Variant {
	vkey := fmt.Sprintf("variants[%d]", i)
	name := names[i]
	over := make(map[string]any, len(o))
	for k, v := range o {
		if k != "name" && k != "description" {
			over[k] = v
		}
	}
	merged := tomlx.Merge(replaceFields(base, over), over)
	mine, replaced := l.applyVariant(sc, merged, over, i, names)
	vf := l.newFile()
	if err := l.doc.Decode(merged, "", &vf); err != nil {
		if !l.decodeFailed {
			l.errs = appendErr(l.errs, relabelVariant(l.doc, err, mine, over, vkey, name))
		}
		return nil
	}
	vs, probs := resolve(&vf)
	for _, p := range probs {
		l.reportVariant(p, vkey, name, mine, over, inBase)
	}
	// The scenario-wide settings belong to the scenario, not to a variant.
	for _, k := range []string{"seed", "start", "duration", "warmup", "window", "load_factor", "detail", "claims"} {
		if _, ok := over[k]; ok {
			l.report(scenario.FieldError{Key: "." + k, Msg: "is scenario-wide and cannot differ between variants"}, vkey, vkey+"."+k)
		}
	}
	v := newVariant(name, description, vs)
	v.index, v.Replaced = i, replaced
	return v
}

// applyVariant applies the command line's values to variant i's merged table: the
// command line wins, its values apply after the variant's own, those for every variant
// first, then those addressed to this one. It returns the values applied, and the keys of
// the variant's own table they replaced (each said in a note).
func (l *loader) applyVariant(sc *Scenario, merged, over map[string]any, i int, names []string) (mine []*override, replaced []string) {
	name := names[i]
	ordered := slices.Clone(l.global)
	for k := range l.sets {
		if l.sets[k].variant != "" {
			ordered = append(ordered, &l.sets[k])
		}
	}
	for _, s := range ordered {
		if s.variant == "" {
			if old, ok := tomlx.Get(over, s.Key); ok && fromOverride(over, s.Key) {
				sc.Notes = append(sc.Notes, fmt.Sprintf("note: %s replaces variant %q's %s = %s", s.Flag, name, s.Key, tomlx.Render(old)))
				replaced = append(replaced, s.Key)
			}
		} else if j, err := pickVariant(names, s.variant); err != nil || j != i {
			continue
		}
		mine = append(mine, s)
		l.apply(merged, s, fmt.Sprintf(" (in variant %q)", name))
	}
	return mine, replaced
}

// reportVariant reports a problem of variant name once: at the flag that set its key, at
// the variant's own key, or at the base's key when the base set it.
func (l *loader) reportVariant(p scenario.FieldError, vkey, name string, mine []*override, over map[string]any, inBase map[scenario.FieldError]bool) {
	if l.restates(p.Key) || l.restates(vkey+"."+p.Key) {
		return
	}
	switch e := flagError(mine, p.Key, p.Msg); {
	case e != nil && inBase[p]:
		// Already reported once, at the flag.
	case e != nil:
		e.Msg += fmt.Sprintf(" (in variant %q)", name)
		l.add(e)
	case fromOverride(over, p.Key):
		l.report(p, vkey+".", vkey+"."+p.Key)
	case inBase[p]:
		// Already reported once for the base scenario.
	default:
		l.report(scenario.FieldError{Key: p.Key, Msg: p.Msg + fmt.Sprintf(" (in variant %q)", name)}, "", p.Key)
	}
}

// fit checks that the whole run fits: every selected variant's work (subrequests, not
// only requests, are bounded: compile.MaxWork) and its series and outputs at once
// (compile.RunMemory, with each run on up to cores workers); it sets each variant's Work and
// the scenario's Memory.
func (l *loader) fit(sc *Scenario, selected map[int]bool, noVariants bool, parallel, cores int) *tomlx.Error {
	var chosen []*scenario.Resolved
	var chosenVariants []*Variant
	for i, v := range sc.Variants {
		if v.Spec != nil && (selected == nil || selected[v.index] || noVariants) {
			chosen = append(chosen, sc.Variants[i].Spec)
			chosenVariants = append(chosenVariants, v)
		}
	}
	var held []float64
	routings := compile.Routings(chosen)
	for i, v := range chosen {
		r := routings[i]
		if r == nil {
			r = compile.NewRouting(v) // too large to keep (compile.Routings): the estimate's own
		}
		chosenVariants[i].routing = routings[i]
		w := r.EstimateWork()
		if key, problem := w.WorkProblem(v); problem != "" {
			if len(sc.Variants) > 1 {
				problem += fmt.Sprintf(" (in variant %q)", chosenVariants[i].Name)
			}
			return workError(l.file, l.doc, l.global, key, problem)
		}
		chosenVariants[i].Work = w
		held = append(held, w.Held())
	}
	mem, problem := compile.RunMemory(chosen, parallel, cores, held)
	if strings.HasPrefix(problem, "--engine-cores ") {
		// The flag, not the scenario, is what to change.
		return &tomlx.Error{File: l.file, Msg: problem}
	}
	if problem != "" {
		if fe := flagError(l.global, "window", problem); fe != nil {
			return fe
		}
		return &tomlx.Error{File: l.file, Key: "window", Line: l.doc.Line("window"), Msg: problem}
	}
	sc.Memory = mem
	return nil
}

// keepSelected keeps the variants asked for, in the order asked.
func keepSelected(variants []*Variant, names, want []string) []*Variant {
	var keep []*Variant
	for _, w := range want {
		j, _ := pickVariant(names, w)
		for _, v := range variants {
			if v.index == j && v.Spec != nil && !slices.Contains(keep, v) {
				keep = append(keep, v)
			}
		}
	}
	return keep
}

// hashWithTraces is the hash that names a scenario in a cluster sweep's manifest: of its
// text, and of every access log its variants replay (each once, in the order first met),
// so that workers and a merge that read a different log are told apart. A log that cannot
// be read leaves the hash of the text alone; replaying it fails with its own error.
func hashWithTraces(src []byte, variants []*Variant) string {
	h := sha256.New()
	h.Write(src)
	seen := map[string]bool{}
	for _, v := range variants {
		if v.Spec == nil {
			continue
		}
		for _, st := range v.Spec.Streams {
			t := st.Trace
			if t == nil || t.FS == nil || seen[t.Path] {
				continue
			}
			seen[t.Path] = true
			f, err := t.FS.Open(t.Path)
			if err != nil {
				continue
			}
			fmt.Fprintf(h, "\x00%s\x00", t.Path)
			_, _ = io.Copy(h, f)
			f.Close()
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func notes(n string) []string {
	if n == "" {
		return nil
	}
	return []string{n}
}

// scaledWarmup returns the warmup override that --duration implies when the file's warmup
// would not fit in the new duration (nil when it fits, when the command line sets the
// warmup itself, or when a value cannot be read: validation then says what is wrong).
func scaledWarmup(base map[string]any, global []*override) *override {
	var dur *override
	for _, o := range global {
		switch {
		case o.Key == "warmup":
			return nil
		case o.Key == "duration" && o.ScaleWarmup:
			dur = o
		}
	}
	if dur == nil {
		return nil
	}
	wText, _ := base["warmup"].(string)
	dText, _ := base["duration"].(string)
	newText, err := strconv.Unquote(dur.Value)
	if err != nil {
		return nil
	}
	w, err1 := units.ParseDuration(wText)
	d, err2 := units.ParseDuration(dText)
	nd, err3 := units.ParseDuration(newText)
	if err1 != nil || err2 != nil || err3 != nil || d <= 0 || nd <= 0 || w < nd || w >= d {
		return nil
	}
	scaled := time.Duration(float64(w) * float64(nd) / float64(d)).Round(time.Millisecond)
	return &override{Override: Override{Flag: dur.Flag, Key: "warmup", Value: strconv.Quote(scaled.String())}}
}

// selectVariants resolves --variant values to variant indices (nil: all of them).
func selectVariants(file string, names, want []string) (map[int]bool, error) {
	if len(want) == 0 {
		return nil, nil
	}
	if len(names) == 0 {
		// The one design answers to what a variant would: "base", its index 0 or a prefix.
		for _, w := range want {
			if _, err := pickVariant([]string{"base"}, w); err != nil {
				return nil, fmt.Errorf("%s: --variant %q: the scenario has no [[variants]] (its one design is 0 \"base\")", file, w)
			}
		}
		return nil, nil
	}
	sel := map[int]bool{}
	for _, w := range want {
		i, err := pickVariant(names, w)
		if err != nil {
			return nil, fmt.Errorf("%s: --variant %v", file, err)
		}
		sel[i] = true
	}
	return sel, nil
}

// pickVariant finds a variant by exact name, by index (from 0, as in variants[INDEX].KEY),
// or by a prefix of one name only, in that order: "1" is the second variant even when a
// name begins with 1. --variant in every command and variants[...] in --set use it.
func pickVariant(names []string, want string) (int, error) {
	if i := slices.Index(names, want); i >= 0 {
		return i, nil
	}
	if n, err := strconv.Atoi(want); err == nil && n >= 0 && n < len(names) {
		return n, nil
	}
	var hits []int
	for i, n := range names {
		if want != "" && strings.HasPrefix(n, want) { // "" would be a prefix of every name
			hits = append(hits, i)
		}
	}
	if len(hits) == 1 {
		return hits[0], nil
	}
	have := make([]string, len(names))
	for i, n := range names {
		have[i] = fmt.Sprintf("%d %q", i, n)
	}
	if len(hits) > 1 {
		return 0, fmt.Errorf("%q: matches %d variants; give more of the name or an index (have %s)", want, len(hits), strings.Join(have, ", "))
	}
	return 0, fmt.Errorf("%q: no such variant (have %s)", want, strings.Join(have, ", "))
}

// fromOverride reports whether the value at the dotted path comes from the variant's
// override table: the path exists in it, or one of its ancestors there is a value that
// replaces the base's whole (an array or a scalar rather than a table to merge).
func fromOverride(over map[string]any, path string) bool {
	if hasPath(over, path) {
		return true
	}
	segs := strings.Split(path, ".")
	for i := 1; i < len(segs); i++ {
		prefix := strings.Join(segs[:i], ".")
		if j := strings.IndexByte(prefix, '['); j >= 0 {
			// streams[1].x: the variant's own streams array replaces the base's.
			if v, ok := tomlx.Get(over, prefix[:j]); ok {
				if _, table := v.(map[string]any); !table {
					return true
				}
			}
		}
		v, ok := tomlx.Get(over, prefix)
		if !ok {
			return false
		}
		if _, table := v.(map[string]any); !table {
			return true
		}
	}
	if j := strings.IndexByte(path, '['); j >= 0 {
		if v, ok := tomlx.Get(over, path[:j]); ok {
			_, table := v.(map[string]any)
			return !table
		}
	}
	return false
}

// relabel moves decoding problems of command-line values from the file to the flag.
func relabel(err error, sets []*override) error {
	var te tomlx.Errors
	if !errors.As(err, &te) {
		return err
	}
	out := make(tomlx.Errors, 0, len(te))
	for _, e := range te {
		if fe := cmp.Or(flagError(sets, e.Key, e.Msg), parentFlagError(sets, e.Key, e.Msg)); fe != nil {
			out = append(out, fe)
			continue
		}
		out = append(out, e)
	}
	return out
}

// relabelVariant places the decoding problems of a variant's merged table: at the flag
// that set the value, at the variant's own line (variants[i].KEY), or at the base's.
func relabelVariant(doc *tomlx.Doc, err error, sets []*override, over map[string]any, vkey, name string) error {
	var te tomlx.Errors
	if !errors.As(err, &te) {
		return err
	}
	out := make(tomlx.Errors, 0, len(te))
	for _, e := range te {
		switch fe := cmp.Or(flagError(sets, e.Key, e.Msg), parentFlagError(sets, e.Key, e.Msg)); {
		case fe != nil:
			fe.Msg += fmt.Sprintf(" (in variant %q)", name)
			out = append(out, fe)
		case fromOverride(over, e.Key):
			c := *e
			c.Key = vkey + "." + e.Key
			c.Line = doc.Line(c.Key)
			out = append(out, &c)
		default:
			c := *e
			c.Msg += fmt.Sprintf(" (in variant %q)", name)
			out = append(out, &c)
		}
	}
	return out
}

func newVariant(name, desc string, s *scenario.Resolved) *Variant {
	return &Variant{Variant: scenario.NewVariant(name, desc, s), Nodes: len(s.Nodes), Shards: s.Shards, MaxShards: max(s.Shards, s.MaxShards)}
}

// resolve validates a scenario's file (scenario.Resolve) and the run's limits
// (compile.CheckLimits), their problems in that order.
func resolve(f *scenario.File) (*scenario.Resolved, []scenario.FieldError) {
	s, probs := scenario.Resolve(f)
	return s, compile.CheckLimits(s, probs)
}

// Model builds a fresh sim.Model of the variant (compile.Model of its Spec): every run needs
// its own. Each is built through the variant's routing, which the load built once for its
// work estimate (compile.Routing).
func (v *Variant) Model() *sim.Model { return v.route().Model() }

// Explain predicts the variant's load before any simulation (compile.Explain).
func (v *Variant) Explain() *compile.Explanation { return v.route().Explain(v.Name) }

// route is the variant's routing: the one the load built for its Spec, or a new one for a
// variant the load did not estimate.
func (v *Variant) route() *compile.Routing {
	if v.routing.Of(v.Spec) {
		return v.routing
	}
	return compile.NewRouting(v.Spec)
}

// Aliases kept for the readers that name them through the loader.
type (
	Explanation = compile.Explanation
	StreamPlan  = compile.StreamPlan
	OfferedLoad = compile.OfferedLoad
)

func appendErr(errs tomlx.Errors, err error) tomlx.Errors {
	var te tomlx.Errors
	if errors.As(err, &te) {
		return append(errs, te...)
	}
	return append(errs, &tomlx.Error{Msg: err.Error()})
}

// SetValue is the TOML text of a value given on the command line: a bare word is a
// string, `--set keyspace.scheme=hash` as `keyspace.scheme = "hash"`, and numbers, booleans,
// quoted strings, arrays and tables are themselves. --set and a sweep's --vary read their
// values through it, so the two accept the same words.
func SetValue(v string) string { return setValue(v) }

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

// linkedTargets returns the variants that selected variants name and need resolved
// (scenario.NeededVariants), which are resolved even when not selected. Nil when every
// variant is selected.
func linkedTargets(base map[string]any, overrides []map[string]any, names []string, selected map[int]bool) map[int]bool {
	if selected == nil {
		return nil
	}
	targets := map[int]bool{}
	for i, o := range overrides {
		if !selected[i] {
			continue
		}
		for _, to := range scenario.NeededVariants(base, o) {
			if j := slices.Index(names, to); j >= 0 {
				targets[j] = true
			}
		}
	}
	return targets
}

// linkVariants links every resolved variant to the resolved variants it names
// (scenario.LinkVariant), and returns the
// problems, each at the key the user wrote: in the variant's own table or in the base
// scenario.
func linkVariants(file string, doc *tomlx.Doc, variants []*Variant, overrides []map[string]any, names []string) []*tomlx.Error {
	byName := map[string]*scenario.Resolved{}
	for _, v := range variants {
		if v.Spec != nil {
			byName[v.Name] = v.Spec
		}
	}
	have := make([]string, len(names))
	for i, n := range names {
		have[i] = fmt.Sprintf("%q", n)
	}
	if len(have) == 0 {
		have = []string{"none: the scenario has no [[variants]]"}
	}
	var errs []*tomlx.Error
	for _, v := range variants {
		if v.Spec == nil {
			continue
		}
		linked, problems := scenario.LinkVariant(v.Spec, v.Name, byName, have)
		for _, p := range problems {
			key := p.Key
			if v.index < len(overrides) && len(names) > 0 && fromOverride(overrides[v.index], p.Key) {
				key = fmt.Sprintf("variants[%d].%s", v.index, p.Key)
			} else if len(names) > 0 {
				p.Msg += fmt.Sprintf(" (in variant %q)", v.Name)
			}
			errs = append(errs, &tomlx.Error{File: file, Key: key, Msg: p.Msg, Line: doc.Line(key)})
		}
		if linked {
			v.MaxShards = v.Spec.MaxShards // a link may raise it
		}
	}
	return errs
}

// linkClaims names each claim's variant and base in full: the first variant when a claim
// names none, else the variant its text picks (as --variant picks one).
func linkClaims(file string, doc *tomlx.Doc, claims []scenario.ClaimSpec, names []string) ([]scenario.ClaimSpec, []*tomlx.Error) {
	var errs []*tomlx.Error
	out := make([]scenario.ClaimSpec, 0, len(claims))
	all := names
	if len(all) == 0 {
		all = []string{"base"}
	}
	for i, c := range claims {
		ok := true
		for _, k := range []struct {
			key, want string
			dst       *string
		}{{"variant", c.Variant, &c.VariantName}, {"base", c.Base, &c.BaseName}} {
			if k.want == "" {
				if k.key == "variant" {
					*k.dst = all[0]
				}
				continue
			}
			j, err := pickVariant(all, k.want)
			if err != nil {
				key := fmt.Sprintf("claims[%d].%s", i, k.key)
				errs = append(errs, &tomlx.Error{File: file, Key: key, Msg: err.Error(), Line: doc.Line(key)})
				ok = false
				continue
			}
			*k.dst = all[j]
		}
		if ok {
			out = append(out, c)
		}
	}
	return out, errs
}

// Inputs are the files the scenario was read from: its own file (none for a built-in) and
// every access log its variants replay, each once. The commands refuse an output path that
// is one of them (docs/cli.md).
func (sc *Scenario) Inputs() []string {
	var out []string
	if sc.Source != "" && !strings.HasPrefix(sc.Source, "built-in ") {
		out = append(out, sc.Source)
	}
	for _, v := range sc.Variants {
		if v.Spec == nil {
			continue
		}
		for _, st := range v.Spec.Streams {
			if t := st.Trace; t != nil {
				if d, ok := t.FS.(dirFS); ok {
					if p := filepath.Join(string(d), filepath.FromSlash(t.Path)); !slices.Contains(out, p) {
						out = append(out, p)
					}
				}
			}
		}
	}
	return out
}
