package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

// The value types of a scenario file decode themselves (tomlx.Decoder): a duration is read
// as it is decoded, so a bad one is reported at its key with the text the user wrote, and
// the validated File holds typed values, not strings to parse again.

// Duration is a duration as written ("250us", "15m", "30d") and its value. The zero
// Duration is an absent key.
type Duration struct {
	Text  string
	Value sim.Time
}

// Set reports whether the key was given.
func (d Duration) Set() bool { return d.Text != "" }

// String is the duration as written.
func (d Duration) String() string { return d.Text }

// DecodeTOML reads a duration string.
func (d *Duration) DecodeTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a duration string such as \"1h\" (got %s)", tomlx.Describe(v))
	}
	t, err := units.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration{Text: s, Value: t}
	return nil
}

// Dur returns the Duration of a text known to be valid (defaults, tests).
func Dur(s string) Duration {
	t, err := units.ParseDuration(s)
	if err != nil {
		panic("scenario: bad duration constant " + s)
	}
	return Duration{Text: s, Value: t}
}

// Clock is a wall-clock time of day ("06:00", "08:15:30") and its offset from midnight.
type Clock struct {
	Text  string
	Value sim.Time
}

// Set reports whether the key was given.
func (c Clock) Set() bool { return c.Text != "" }

// String is the clock time as written.
func (c Clock) String() string { return c.Text }

// DecodeTOML reads a clock time string.
func (c *Clock) DecodeTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a clock time string such as \"06:00\" (got %s)", tomlx.Describe(v))
	}
	t, err := units.ParseClock(s)
	if err != nil {
		return err
	}
	*c = Clock{Text: s, Value: t}
	return nil
}

// Instant is a moment inside the run: a clock time, measured from the scenario's start, or
// a duration since t = 0. Its value depends on the start, so it is kept as written and
// read by At.
type Instant struct {
	Text string
}

// Set reports whether the key was given.
func (i Instant) Set() bool { return i.Text != "" }

// String is the instant as written.
func (i Instant) String() string { return i.Text }

// DecodeTOML reads an instant string, checking its form.
func (i *Instant) DecodeTOML(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("must be a clock time such as \"08:00\" or a duration since the start such as \"2h\" (got %s)", tomlx.Describe(v))
	}
	if _, err := units.ParseInstant(s, 0); err != nil {
		return err
	}
	*i = Instant{Text: s}
	return nil
}

// At returns the instant's time from t = 0 for a run that starts at start.
func (i Instant) At(start sim.Time) (sim.Time, error) { return units.ParseInstant(i.Text, start) }

// decodeEnum reads one of the allowed words into dst.
// DecodeEnum decodes v, a word among allowed, into dst, with the problem every
// enumeration of a scenario gives (a mechanism's own too).
func DecodeEnum[T ~string](dst *T, v any, allowed ...T) error { return decodeEnum(dst, v, allowed...) }

func decodeEnum[T ~string](dst *T, v any, allowed ...T) error {
	s, ok := v.(string)
	if !ok || !slices.Contains(allowed, T(s)) {
		words := make([]string, len(allowed))
		for i, a := range allowed {
			words[i] = fmt.Sprintf("%q", string(a))
		}
		got := tomlx.Describe(v)
		if ok {
			got = fmt.Sprintf("%q", s)
		}
		return fmt.Errorf("must be one of %s (got %s)", strings.Join(words, ", "), got)
	}
	*dst = T(s)
	return nil
}

// Op is a stream's operation.
type Op string

// The operations (docs/scenario.md, [[streams]] op).
const (
	OpWrite Op = "write"
	OpRead  Op = "read"
	OpScan  Op = "scan"
)

func (o *Op) DecodeTOML(v any) error { return decodeEnum(o, v, OpWrite, OpRead, OpScan) }

// Scheme is a shard scheme as the file names it: one of keyspace's schemes (docs/keys.md,
// "Schemes").
type Scheme string

func (s *Scheme) DecodeTOML(v any) error {
	return decodeEnum(s, v, enumOf[Scheme](keyspace.SchemeNames())...)
}

// enumOf converts names to an enum's type.
func enumOf[T ~string](names []string) []T {
	out := make([]T, len(names))
	for i, n := range names {
		out[i] = T(n)
	}
	return out
}

// SaltMode is how a write picks its salt bucket: one of keyspace.SaltModeNames.
type SaltMode string

func (m *SaltMode) DecodeTOML(v any) error {
	return decodeEnum(m, v, enumOf[SaltMode](keyspace.SaltModeNames())...)
}

// Placement is how shards are placed on nodes.
type Placement string

const (
	PlaceRoundRobin Placement = "round_robin"
	PlaceRandom     Placement = "random"
	PlaceExplicit   Placement = "explicit"
)

func (p *Placement) DecodeTOML(v any) error {
	return decodeEnum(p, v, PlaceRoundRobin, PlaceRandom, PlaceExplicit)
}

// Arrival is a stream's arrival process.
type Arrival string

const (
	ArrivalPoisson Arrival = "poisson"
	ArrivalUniform Arrival = "uniform"
)

func (a *Arrival) DecodeTOML(v any) error { return decodeEnum(a, v, ArrivalPoisson, ArrivalUniform) }

// Service is the distribution of a request's service time.
type Service string

const (
	ServiceExponential Service = "exponential"
	ServiceConstant    Service = "constant"
	ServiceLognormal   Service = "lognormal"
)

func (s *Service) DecodeTOML(v any) error {
	return decodeEnum(s, v, ServiceExponential, ServiceConstant, ServiceLognormal)
}

// Overflow is what a client rate limit does with a request over the limit.
type Overflow string

const (
	OverflowReject Overflow = "reject"
	OverflowQueue  Overflow = "queue"
)

func (o *Overflow) DecodeTOML(v any) error { return decodeEnum(o, v, OverflowReject, OverflowQueue) }

// Splits is how a range scheme's initial split points are chosen.
type Splits string

// SplitsHistory cuts them at the quantiles of the keys written during table.history.
const SplitsHistory Splits = "history"

func (s *Splits) DecodeTOML(v any) error { return decodeEnum(s, v, SplitsHistory) }

// Gen is a field generator (docs/scenario.md, [table]).
type Gen string

const (
	GenUniform     Gen = "uniform"
	GenZipf        Gen = "zipf"
	GenHotspot     Gen = "hotspot"
	GenCategorical Gen = "categorical"
	GenSnowflake   Gen = "snowflake"
	GenSequence    Gen = "sequence"
	GenTime        Gen = "time"
	GenUUID        Gen = "uuid"
	GenUUIDv4      Gen = "uuidv4"
	GenUUIDv7      Gen = "uuidv7"
	GenULID        Gen = "ulid"
	GenKSUID       Gen = "ksuid"
)

// Gens lists the generators.
var Gens = []Gen{GenUniform, GenZipf, GenHotspot, GenCategorical, GenSnowflake, GenSequence, GenTime, GenUUID, GenUUIDv4, GenUUIDv7, GenULID, GenKSUID}

func (g *Gen) DecodeTOML(v any) error {
	s, ok := v.(string)
	if !ok || !slices.Contains(Gens, Gen(s)) {
		words := make([]string, len(Gens))
		for i, a := range Gens {
			words[i] = fmt.Sprintf("%q", string(a))
		}
		got := tomlx.Describe(v)
		if ok {
			got = fmt.Sprintf("%q", s)
		}
		return fmt.Errorf("unknown generator %s: want one of %s", got, strings.Join(words, ", "))
	}
	*g = Gen(s)
	return nil
}

// Scalar is a value written in a list of values or a directory entry: a string, an
// integer or a boolean (keyspace.Scalar, which the directory scheme's entries hold).
type Scalar = keyspace.Scalar

// Age is how old the row a read or scan targets is: a constant duration, or a
// distribution { dist = "exponential", mean = D } or { dist = "uniform", max = D }.
type Age struct {
	// Dist is "" when the key is absent, "const", "exponential" or "uniform".
	Dist  string
	Value Duration // the constant, the mean or the max
}

// DecodeTOML reads a duration string or a distribution table.
func (a *Age) DecodeTOML(v any) error {
	switch v := v.(type) {
	case string:
		var d Duration
		if err := d.DecodeTOML(v); err != nil {
			return fmt.Errorf("must be a duration from 0 to 10000d such as \"1h\", or a table { dist = \"exponential\", mean = \"1h\" } (got %q)", v)
		}
		*a = Age{Dist: "const", Value: d}
		return nil
	case map[string]any:
		dist, _ := v["dist"].(string)
		param := map[string]string{"exponential": "mean", "uniform": "max"}[dist]
		if param == "" {
			return tomlx.Errors{{Key: "dist", Msg: fmt.Sprintf("must be \"exponential\" (with mean) or \"uniform\" (with max) (got %v)", tomlx.Render(v["dist"]))}}
		}
		var errs tomlx.Errors
		for _, k := range sortedKeys(v) {
			if k != "dist" && k != param {
				errs = append(errs, &tomlx.Error{Key: k, Msg: fmt.Sprintf("unknown key for dist = %q (want %s)", dist, param)})
			}
		}
		text, ok := v[param].(string)
		if !ok {
			return append(errs, &tomlx.Error{Key: param, Msg: "required: a duration such as \"1h\""})
		}
		d, err := units.ParseDuration(text)
		if err != nil || d <= 0 || d > maxAge {
			return append(errs, &tomlx.Error{Key: param, Msg: fmt.Sprintf("must be a positive duration of at most 10000d (got %q)", text)})
		}
		if len(errs) > 0 {
			return errs
		}
		*a = Age{Dist: dist, Value: Duration{Text: text, Value: d}}
		return nil
	}
	return fmt.Errorf("must be a duration string or a table { dist, mean | max } (got %s)", tomlx.Describe(v))
}

// SLOList is a stream's p99 alert thresholds: one duration or a list of them. The zero
// SLOList is an absent key (the defaults apply); an empty list turns the alerts off.
type SLOList struct {
	Given bool
	Items []Duration
}

// DecodeTOML reads a duration or a list of durations.
func (l *SLOList) DecodeTOML(v any) error {
	var texts []any
	switch v := v.(type) {
	case string:
		texts = []any{v}
	case []any:
		texts = v
	default:
		return fmt.Errorf("must be a duration or a list of durations, e.g. \"50ms\" or [\"200ms\", \"1s\"] (got %s)", tomlx.Render(v))
	}
	out := SLOList{Given: true, Items: []Duration{}}
	var errs tomlx.Errors
	for i, t := range texts {
		text, ok := t.(string)
		d, err := units.ParseDuration(text)
		if !ok || err != nil || d <= 0 {
			errs = append(errs, &tomlx.Error{Key: fmt.Sprintf("[%d]", i), Msg: fmt.Sprintf("must be a positive duration such as \"200ms\" (got %s)", tomlx.Render(t))})
			continue
		}
		if n := len(out.Items); n > 0 && d <= out.Items[n-1].Value {
			errs = append(errs, &tomlx.Error{Key: fmt.Sprintf("[%d]", i), Msg: fmt.Sprintf("thresholds must increase (%q is not above the one before)", text)})
			continue
		}
		out.Items = append(out.Items, Duration{Text: text, Value: d})
	}
	if len(errs) > 0 {
		return errs
	}
	*l = out
	return nil
}

// Set reports whether the key was given.
func (l LimitSetting) Set() bool { return l.None || l.Limit != nil }

// LimitSetting is an action's new client rate limit: a limit table, or "none" to lift the
// stream's limit.
type LimitSetting struct {
	None  bool
	Limit *Limit
}

// DecodeTOML reads "none" or a limit table.
func (l *LimitSetting) DecodeTOML(v any) error {
	switch v := v.(type) {
	case string:
		if v == "none" {
			*l = LimitSetting{None: true}
			return nil
		}
		return fmt.Errorf("must be a limit table { rate = N, burst = N, overflow = \"reject\" | \"queue\" }, or \"none\" to lift the limit (got %q)", v)
	case map[string]any:
		var lt Limit
		if err := (*tomlx.Doc)(nil).Decode(v, "", &lt); err != nil {
			return err
		}
		*l = LimitSetting{Limit: &lt}
		return nil
	}
	return fmt.Errorf("must be a limit table { rate = N, burst = N, overflow = \"reject\" | \"queue\" }, or \"none\" to lift the limit (got %s)", tomlx.Render(v))
}

// Dist is a random duration: a duration string, or a table { dist = "constant" |
// "exponential" | "lognormal", mean = D, cv = X } (cv for lognormal only, default 0.5).
// What a bare duration means is the key's to say: a constant lock, an exponential think
// time. The zero Dist is an absent key.
type Dist struct {
	Dist string // "" for a bare duration, else the table's dist
	Mean Duration
	CV   *float64
}

// Set reports whether the key was given.
func (d Dist) Set() bool { return d.Mean.Set() }

// String is the value as written, in TOML.
func (d Dist) String() string {
	if d.Dist == "" {
		return fmt.Sprintf("%q", d.Mean.Text)
	}
	if d.CV != nil {
		return fmt.Sprintf("{ dist = %q, mean = %q, cv = %v }", d.Dist, d.Mean.Text, *d.CV)
	}
	return fmt.Sprintf("{ dist = %q, mean = %q }", d.Dist, d.Mean.Text)
}

// DecodeTOML reads a duration string or a distribution table.
func (d *Dist) DecodeTOML(v any) error {
	const form = "a duration such as \"0.5ms\", or a table { dist = \"constant\" | \"exponential\" | \"lognormal\", mean = \"0.5ms\", cv = 1 }"
	switch v := v.(type) {
	case string:
		var dur Duration
		if err := dur.DecodeTOML(v); err != nil {
			return fmt.Errorf("must be %s (got %q)", form, v)
		}
		*d = Dist{Mean: dur}
		return nil
	case map[string]any:
		var errs tomlx.Errors
		dist, _ := v["dist"].(string)
		if !slices.Contains([]string{"constant", "exponential", "lognormal"}, dist) {
			errs = append(errs, &tomlx.Error{Key: "dist", Msg: fmt.Sprintf("must be \"constant\", \"exponential\" or \"lognormal\" (got %s)", tomlx.Render(v["dist"]))})
		}
		out := Dist{Dist: dist}
		for _, k := range sortedKeys(v) {
			switch k {
			case "dist":
			case "mean":
				text, ok := v[k].(string)
				var dur Duration
				if !ok || dur.DecodeTOML(text) != nil {
					errs = append(errs, &tomlx.Error{Key: k, Msg: fmt.Sprintf("must be a duration such as \"0.5ms\" (got %s)", tomlx.Render(v[k]))})
					continue
				}
				out.Mean = dur
			case "cv":
				var cv float64
				switch x := v[k].(type) {
				case float64:
					cv = x
				case int64:
					cv = float64(x)
				default:
					errs = append(errs, &tomlx.Error{Key: k, Msg: fmt.Sprintf("must be a positive number (got %s)", tomlx.Render(v[k]))})
					continue
				}
				out.CV = &cv
			default:
				errs = append(errs, &tomlx.Error{Key: k, Msg: "unknown key: a distribution takes dist, mean and cv"})
			}
		}
		if _, ok := v["mean"]; !ok {
			errs = append(errs, &tomlx.Error{Key: "mean", Msg: "required: a duration such as \"0.5ms\""})
		}
		if len(errs) > 0 {
			return errs
		}
		*d = out
		return nil
	}
	return fmt.Errorf("must be %s (got %s)", form, tomlx.Describe(v))
}

// limitTable decodes a limit table field by field (Limit's own DecodeTOML takes the
// whole value).
type limitTable Limit

// DecodeTOML reads a stream's limit: a rate limit table, or a whole number of rows.
func (l *Limit) DecodeTOML(v any) error {
	switch v := v.(type) {
	case int64:
		*l = Limit{Rows: &v}
		return nil
	case map[string]any:
		var lt limitTable
		err := (*tomlx.Doc)(nil).Decode(v, "", &lt)
		*l = Limit(lt) // what decoded, so that its own checks still run
		return err
	}
	return fmt.Errorf("must be a limit table { rate = N, burst = N, overflow = \"reject\" | \"queue\" }, or on a scan the most rows it reads, a whole number (got %s)", tomlx.Render(v))
}
