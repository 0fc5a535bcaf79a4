package scenario

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/sim"
)

// A mechanism's scenario keys, their checks and the settings they turn into live in its
// folder under mechanisms/ (mechanisms/latch/keys.go, mechanisms/pool/keys.go), which
// scenario does not import: the file declares its keys in the tables that hold them (TableKey, StreamKey), and
// registers a resolver (RegisterMechanism) that reads them, checks them and appends the
// mechanism's sim.Setting to Resolved.Mechanisms. scenario keeps the language's core; the keys
// of each mechanism come with it. docs/architecture.md says where else a new mechanism
// goes.

// Key is a key a mechanism declares in a table of the scenario (T: its value's type, one
// of this package's types or a pointer to a number, as the File's own fields).
type Key[T any] struct{ name string }

// Checker is what a mechanism's resolver reports its problems to: each at its dotted key,
// in the order found, beside every other problem of the file.
type Checker = checker

// Add reports a problem at key.
func (c *checker) Add(key, format string, args ...any) { c.add(key, format, args...) }

// Duration checks an optional duration as every duration key is checked: def when it is
// absent ("" for a required one), at least minimum, at most 10000 days.
func (c *checker) Duration(key string, d Duration, def string, minimum sim.Time) sim.Time {
	return c.duration(key, d, def, minimum)
}

// RowRate checks a required rate of rows per second (what: what copies them, for the
// message), above 0 and at most 1e9; 0 when it is missing or bad.
func (c *checker) RowRate(key, what string, r *float64) float64 { return c.rowRate(key, what, r) }

// MaxCPU checks an optional cap on a node's CPU, a fraction of its cores above 0 and at
// most 1; 0 (no cap) when it is absent or bad.
func (c *checker) MaxCPU(key string, x *float64) float64 { return c.maxCPU(key, x) }

// OneOf checks an optional word among allowed: def when it is absent or not allowed.
func (c *checker) OneOf(key, got, def string, allowed ...string) string {
	return oneOf(c, key, got, def, allowed...)
}

// DurationOK is Duration, and whether the duration had no problem.
func (c *checker) DurationOK(key string, d Duration, def string, minimum sim.Time) (sim.Time, bool) {
	before := len(c.probs)
	v := c.duration(key, d, def, minimum)
	return v, len(c.probs) == before
}

// ClientLimit checks an action's new client limit, a limit table or "none" (nil: the
// stream's limit lifted, or a bad table).
func (c *checker) ClientLimit(key string, v LimitSetting) *sim.Limit {
	if v.None {
		return nil
	}
	return resolveLimit(c, key, v.Limit)
}

// Delay checks a delay written as a duration or a distribution ({ dist, mean, cv }) as a
// think time is checked: a bare duration is of kind bare, the mean at least minimum (1:
// positive, 0: not negative) and at most most (mostText in the message).
func (c *checker) Delay(key string, d Dist, bare sim.ServiceKind, minimum, most sim.Time, mostText string) sim.Delay {
	return resolveDelay(c, key, d, bare, minimum, most, mostText)
}

// KeyDoc is a mechanism's key as docs/scenario.md lists it: the table that holds it, its
// name, its default and what it means (Markdown). The docs' table of these keys is
// generated from the declarations (mechanism_test.go), so that a key is written down once.
type KeyDoc struct {
	Table, Name, Default, Meaning string
}

// MechanismKeys are the keys the mechanisms declared, in the order of their declarations.
var MechanismKeys []KeyDoc

// declare registers the key name, of type T, in the tables decoded into struct type table
// (tableName in the docs), with its default and meaning for docs/scenario.md.
func declare[T any](table reflect.Type, tableName, name, def, meaning string) Key[T] {
	tomlx.Extend(table, name, reflect.TypeFor[T]())
	MechanismKeys = append(MechanismKeys, KeyDoc{Table: tableName, Name: name, Default: def, Meaning: meaning})
	return Key[T]{name}
}

// TableKey declares a key of [table], ClusterKey one of [cluster], KeyspaceKey one of
// [keyspace], StreamKey one of each [[streams]] entry, FileKey one of the top level.
// Call them in a package-level variable's initializer.
func TableKey[T any](name, def, meaning string) Key[T] {
	return declare[T](reflect.TypeFor[Table](), "[table]", name, def, meaning)
}

// ClusterKey declares a key of [cluster] (see TableKey).
func ClusterKey[T any](name, def, meaning string) Key[T] {
	return declare[T](reflect.TypeFor[Cluster](), "[cluster]", name, def, meaning)
}

// FileKey declares a key of the scenario's top level, such as a table of the mechanism's
// own ([cache]: T is then a struct of its keys, decoded with the same errors as every
// table); see TableKey.
func FileKey[T any](name, def, meaning string) Key[T] {
	return declare[T](reflect.TypeFor[File](), "top level", name, def, meaning)
}

// KeyspaceKey declares a key of [keyspace], such as a table of the mechanism's own
// ([keyspace.limits]); see TableKey.
func KeyspaceKey[T any](name, def, meaning string) Key[T] {
	return declare[T](reflect.TypeFor[Keyspace](), "[keyspace]", name, def, meaning)
}

// StreamKey declares a key of each [[streams]] entry (see TableKey).
func StreamKey[T any](name, def, meaning string) Key[T] {
	return declare[T](reflect.TypeFor[Stream](), "[[streams]]", name, def, meaning)
}

// ActionKey declares a key of each [[actions]] entry (see TableKey); RegisterActionSetting
// makes one the setting an action changes.
func ActionKey[T any](name, def, meaning string) Key[T] {
	return declare[T](reflect.TypeFor[Action](), "[[actions]]", name, def, meaning)
}

// Name is the key's name, as written in its table.
func (k Key[T]) Name() string { return k.name }

// In returns the key's value in x, and whether the table gave it.
func (k Key[T]) In(x tomlx.Extensions) (T, bool) {
	if p, ok := x.Value(k.name).(*T); ok {
		return *p, true
	}
	var zero T
	return zero, false
}

// MechanismResolver reads one mechanism's keys of f, reports their problems to c and, when
// the mechanism is on, appends its settings to s.Mechanisms. It runs after every section
// of the scenario has been resolved, so it may read s's streams, fields and shards.
type MechanismResolver func(c *Checker, f *File, s *Resolved)

var mechanismResolvers []MechanismResolver

// RegisterMechanism adds a mechanism's resolver; its file calls it from init. Resolvers
// run in the order of their files' names, which fixes the order of the settings and of
// the problems they report.
func RegisterMechanism(r MechanismResolver) {
	mechanismResolvers = append(mechanismResolvers, r)
}

var clusterResolvers []MechanismResolver

// RegisterClusterMechanism adds the resolver of a mechanism's [cluster] keys that the rest
// of the scenario reads (the followers: a rebalance refuses them, reading
// Resolved.Replicas): it runs right after [cluster] is resolved (Resolved.Nodes), before
// the table, in the order of the packages' import paths, and sets what they read in
// Resolved. Its setting, if any, is a model part
// (RegisterModelPart) or appended by a resolver of RegisterMechanism.
func RegisterClusterMechanism(r MechanismResolver) {
	clusterResolvers = append(clusterResolvers, r)
}

var keyspaceResolvers []MechanismResolver

// RegisterKeyspaceMechanism adds the resolver of a mechanism's [keyspace] keys that the rest
// of the scenario reads (partition limits: automatic splits read split_for_heat, and a
// migration, a rebalance and an index refuse them; automatic splits, which a rebalance,
// an index and a migration's target read): it runs right after [keyspace] is resolved,
// before the copies, the streams and the actions, in the order of the packages' import
// paths (limits before split), and sets what they read in Resolved (Resolved.Limits,
// Split, MaxShards). Its setting, if any, is appended by a resolver of RegisterMechanism,
// in the mechanisms' order.
func RegisterKeyspaceMechanism(r MechanismResolver) {
	keyspaceResolvers = append(keyspaceResolvers, r)
}

// StreamResolver reads one mechanism's keys of the [[streams]] entry st (at key, as
// "streams[1]") into ss, the stream being resolved, and reports their problems to c. It runs
// as each stream is resolved, after its operation, cost and client, before its clients
// (a closed loop's cycle reads what it sets: a row lock's hold), and on a stream that
// replays a log (st.Trace) too, where it refuses the keys a replay does not take.
type StreamResolver func(c *Checker, key string, st *Stream, ss *StreamSpec)

var streamResolvers []StreamResolver

// RegisterStreamMechanism adds the resolver of a mechanism's [[streams]] keys that the rest
// of the stream reads (row locks: the closed loop's cycle, compile's estimates and explain
// read StreamSpec.Lock); its file calls it from init. Its setting, if any, is appended by a
// resolver of RegisterMechanism, in the mechanisms' order.
func RegisterStreamMechanism(r StreamResolver) {
	streamResolvers = append(streamResolvers, r)
}

// resolveStreamMechanisms runs every RegisterStreamMechanism resolver on one stream.
func resolveStreamMechanisms(c *checker, key string, st *Stream, ss *StreamSpec) {
	for _, r := range streamResolvers {
		r(c, key, st, ss)
	}
}

var routingResolvers, lateChecks []MechanismResolver

// RegisterRoutingMechanism adds the resolver of a mechanism's keys that route streams
// elsewhere than the table (global secondary indexes: [[indexes]] and a stream's index):
// it runs after the streams are resolved and before their queries are planned, which skip
// a stream it routes (StreamSpec.Index), and sets what it resolves in Resolved
// (Resolved.Indexes). A check of it against the whole variant is a RegisterLateCheck.
func RegisterRoutingMechanism(r MechanismResolver) {
	routingResolvers = append(routingResolvers, r)
}

// RegisterLateCheck adds a mechanism's check of the whole resolved variant, once every
// section, mechanism and claim has been read (an index refuses a migration, splits, a
// rebalance, locked and replayed writes).
func RegisterLateCheck(r MechanismResolver) {
	lateChecks = append(lateChecks, r)
}

// resolveAll runs every resolver of rs.
func resolveAll(rs []MechanismResolver, c *checker, f *File, s *Resolved) {
	for _, r := range rs {
		r(c, f, s)
	}
}

// resolveKeyspaceMechanisms runs every RegisterKeyspaceMechanism resolver.
func resolveKeyspaceMechanisms(c *checker, f *File, s *Resolved) {
	for _, r := range keyspaceResolvers {
		r(c, f, s)
	}
}

// resolveMechanisms runs every registered mechanism's resolver.
func resolveMechanisms(c *checker, f *File, s *Resolved) {
	for _, r := range mechanismResolvers {
		r(c, f, s)
	}
}

// ActionSetting is what a mechanism's actions may change: the settings of an [[actions]]
// entry that its ActionKeys name (the operator's cores, queue_limit and limit; the
// rebalance's add_nodes). An action changes one setting, of one mechanism.
type ActionSetting struct {
	// Keys are the action's keys that each change one of the mechanism's settings, in
	// the order an action that gives several names them.
	Keys []string
	// Hints say how to give them, for the problem of an action that says nothing to do
	// ("add_nodes = N with rebalance = { ... }"; one may stand for several keys).
	Hints []string
	// Rank orders the mechanisms' settings, in that problem and in every check of an
	// action: lowest first, ties in the order registered (docs/scenario.md lists the
	// settings in this order).
	Rank int
	// Target, if set, checks action a (at key) for the keys that say what the mechanism's
	// settings apply to (the operator's node and stream), given what, the setting the
	// action changes (any mechanism's): it requires them with its own settings and refuses
	// them with the others. It runs before any setting's own checks.
	Target func(c *Checker, s *Resolved, key, what string, a *Action)
	// Resolve checks action a (at key, "actions[2]"), which changes act.Setting, one of
	// Keys, at act.At, and sets what it resolves to in s and act (Value, Client).
	Resolve func(c *Checker, s *Resolved, key string, a *Action, act *ActionSpec)
	// Others, if set, checks action a (at key) that changes another mechanism's setting:
	// the keys that apply only with this one's. It runs after the setting's own checks.
	Others func(c *Checker, key string, a *Action)
	// Text says what act changes, for the timeline: nodes are the nodes' settings before
	// it, which it updates where it changes them.
	Text func(s *Resolved, nodes []sim.Node, act *ActionSpec) string
	// Drop, if set, is told that an action Resolve checked without a problem falls at or
	// after the run's end, so never happens (docs/mitigations.md): it takes out of s what
	// Resolve set there (a migration, a rebalance), which is then no part of the run.
	Drop func(s *Resolved)
	// After, if set, checks what the actions resolved in s together, once every action
	// has been checked (a rebalance refuses a migration), in the settings' order.
	After func(c *Checker, s *Resolved)
}

// ActionSpec is a valid action, resolved: when, which setting it changes and what
// its mechanism made of it, for the mechanisms that apply it and for the operator's
// setting (mechanisms/operator), which notes it in the alert timeline.
type ActionSpec struct {
	At sim.Time
	// Setting is the key of the setting it changes, one of an ActionSetting's Keys.
	Setting string
	// Value is what the setting's mechanism resolved it to, of the mechanism's own type;
	// nil where the mechanism keeps it in Resolved (a migration, a rebalance).
	Value any
	// Client says the setting is a client's: it takes effect a network delay after At,
	// when the requests its client sends from then on reach the nodes, and is noted then.
	Client bool
	// Text says what was done, from what, for the alert timeline (note included).
	Text string
}

var actionSettings []ActionSetting

// RegisterActionSetting adds what a mechanism's actions may change; its file calls it from
// init. The settings come in the order of their Rank.
func RegisterActionSetting(x ActionSetting) {
	actionSettings = append(actionSettings, x)
	slices.SortStableFunc(actionSettings, func(a, b ActionSetting) int { return cmp.Compare(a.Rank, b.Rank) })
}

var windowsHeld []func(s *Resolved) bool

// RegisterWindowsHeld adds a mechanism's say in Streamed: held reports whether the
// mechanism, as variant s sets it, needs the run's shard windows held rather than streamed
// (automatic splits, and partition limits' split_for_heat: the shards change during the
// run). Its file calls it from init.
func RegisterWindowsHeld(held func(s *Resolved) bool) {
	windowsHeld = append(windowsHeld, held)
}

// holdsWindows reports whether a mechanism of s needs its shard windows held.
func (s *Resolved) holdsWindows() bool {
	return slices.ContainsFunc(windowsHeld, func(held func(*Resolved) bool) bool { return held(s) })
}

var effectives []func(e *Resolved)

// RegisterEffective adds a mechanism's part of Effective: clear clears in e, a copy of a
// variant, the mechanism's settings that change nothing in its model (the followers'
// options without followers). Its file calls it from init.
func RegisterEffective(clear func(e *Resolved)) {
	effectives = append(effectives, clear)
}

var loadChanges []func(s *Resolved) bool

// RegisterLoadChange adds a mechanism's say in LoadsChange: changes reports whether the
// mechanism, as variant s sets it, makes the loads its run meets differ from the offered
// loads computed without running (it moves shards or changes the cluster during the run,
// or answers requests without the nodes). Its file calls it from init.
func RegisterLoadChange(changes func(s *Resolved) bool) {
	loadChanges = append(loadChanges, changes)
}

// LoadsChange reports whether a mechanism of s makes the loads its run meets differ from
// the offered loads computed without running (RegisterLoadChange), so that the utilization
// law does not bound them.
func (s *Resolved) LoadsChange() bool {
	return slices.ContainsFunc(loadChanges, func(changes func(*Resolved) bool) bool { return changes(s) })
}

var servicesAdded []func(s *Resolved) sim.Time

// RegisterServiceAdded adds a mechanism's say in LongestAdded: longest is the longest
// service the mechanism, as variant s sets it, gives a node besides the streams' own
// requests' (a follower's apply of a write), 0 for none. Its file calls it from init.
func RegisterServiceAdded(longest func(s *Resolved) sim.Time) {
	servicesAdded = append(servicesAdded, longest)
}

// LongestAdded is the longest service s's mechanisms give a node besides the streams' own
// requests' (RegisterServiceAdded), 0 for none.
func (s *Resolved) LongestAdded() sim.Time {
	var most sim.Time
	for _, longest := range servicesAdded {
		most = max(most, longest(s))
	}
	return most
}

var shardCounts []func(s *Resolved) int

// RegisterShards adds a mechanism's count of the shards it gives variant s besides the
// table's (an index's layouts), which the engine numbers after the table's and shards.csv
// holds (OtherShards). Its file calls it from init.
func RegisterShards(count func(s *Resolved) int) {
	shardCounts = append(shardCounts, count)
}

// OtherShards is the shards s's mechanisms give it besides the table's (RegisterShards:
// every index's), numbered after the table's.
func (s *Resolved) OtherShards() int {
	n := 0
	for _, count := range shardCounts {
		n += count(s)
	}
	return n
}

// VariantLink is how a mechanism ties a variant to other variants of its file that it
// names (a migration names the variant whose layout it moves to): the loader resolves
// those too, even when not selected, and once every variant is resolved asks the
// mechanism to link them, without naming it (docs/architecture.md, "Where a new thing
// goes").
type VariantLink struct {
	// Rank orders the links, and a variant's problems: lowest first, ties in the order
	// registered.
	Rank int
	// Needs, if set, returns the names of the variants that a selected variant names,
	// read from the file as written: own is the variant's table in [[variants]], base the
	// file's base scenario, whose top-level values own's replace.
	Needs func(base, own map[string]any) []string
	// Link links variant s, named self, resolved, to the variants it names: byName holds
	// every resolved variant of the file, have the file's variants' names (quoted, or what
	// to say when there are none) for a problem. linked says s names another (or a part
	// of its own) and may have raised s.MaxShards; p, if not nil, is the problem, at a
	// dotted key of s's file, and nothing was linked.
	Link func(s *Resolved, self string, byName map[string]*Resolved, have []string) (linked bool, p *FieldError)
}

var variantLinks []VariantLink

// RegisterVariantLink adds a mechanism's link between variants; its file calls it from
// init. The links come in the order of their Rank.
func RegisterVariantLink(x VariantLink) {
	variantLinks = append(variantLinks, x)
	slices.SortStableFunc(variantLinks, func(a, b VariantLink) int { return cmp.Compare(a.Rank, b.Rank) })
}

// NeededVariants returns the names of the variants a selected variant names (each
// registered VariantLink's Needs), own its table in [[variants]] and base the file's base
// scenario, as written; the loader resolves them too.
func NeededVariants(base, own map[string]any) []string {
	var out []string
	for _, x := range variantLinks {
		if x.Needs != nil {
			out = append(out, x.Needs(base, own)...)
		}
	}
	return out
}

// LinkVariant links resolved variant s, named self, to the variants it names, through
// every registered VariantLink in turn (byName and have as VariantLink.Link takes them). It
// returns whether one linked s, and the problems, each at a dotted key of s's file.
func LinkVariant(s *Resolved, self string, byName map[string]*Resolved, have []string) (linked bool, problems []FieldError) {
	for _, x := range variantLinks {
		l, p := x.Link(s, self, byName, have)
		if p != nil {
			problems = append(problems, *p)
			continue
		}
		linked = linked || l
	}
	return linked, problems
}
