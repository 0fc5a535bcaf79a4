package scenario

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/sim"
)

// minimal is the smallest valid scenario, built in code: every required key and nothing else.
func minimal() File {
	nodes, shards := 2, 4
	rate := 10.0
	n := int64(100)
	return File{
		Name:     "min",
		Duration: Dur("10s"),
		Cluster:  Cluster{Nodes: &nodes},
		Table:    Table{Fields: map[string]Field{"id": {Gen: GenUniform, N: &n}}},
		Keyspace: Keyspace{Shards: &shards, Key: []string{"id"}},
		Streams:  []Stream{{Name: "w", Op: OpWrite, Rate: &rate, Cost: Dur("1ms")}},
	}
}

// TestFileHoldsNoUntypedValue walks the File type: no field may be an interface (`any`),
// so that every value of a scenario has a type that says what it is.
func TestFileHoldsNoUntypedValue(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(path string, ty reflect.Type)
	walk = func(path string, ty reflect.Type) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		switch ty.Kind() {
		case reflect.Interface:
			t.Errorf("%s is an interface (%s)", path, ty)
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(path, ty.Elem())
		case reflect.Struct:
			for i := 0; i < ty.NumField(); i++ {
				f := ty.Field(i)
				if f.Tag.Get("toml") == "-" {
					continue // not a value of the scenario (File.TraceFS)
				}
				walk(path+"."+f.Name, f.Type)
			}
		}
	}
	walk("File", reflect.TypeFor[File]())
}

// TestDefaultsAreWhatResolveApplies checks that Defaults states the defaults Resolve applies:
// a File with them filled in resolves exactly as one that leaves them out.
func TestDefaultsAreWhatResolveApplies(t *testing.T) {
	bare := minimal()
	full := Defaults()
	m := minimal()
	full.Name, full.Duration, full.Table, full.Streams = m.Name, m.Duration, m.Table, m.Streams
	full.Cluster.Nodes, full.Keyspace.Shards, full.Keyspace.Key = m.Cluster.Nodes, m.Keyspace.Shards, m.Keyspace.Key
	a, pa := Resolve(&bare)
	b, pb := Resolve(&full)
	if len(pa)+len(pb) > 0 {
		t.Fatalf("problems: %v / %v", pa, pb)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("resolved forms differ:\nwithout defaults %+v\nwith defaults    %+v", a, b)
	}
}

// TestValidateGathersEveryProblem checks that Validate reports every problem at once, each
// with its dotted key, in the same order every time (map iteration must not leak).
func TestValidateGathersEveryProblem(t *testing.T) {
	f := minimal()
	zero, neg := 0, -1.0
	f.Cluster.Nodes = &zero
	f.Streams[0].Rate = &neg
	f.Table.Fields["b"] = Field{Gen: GenZipf}
	f.Table.Fields["a"] = Field{Gen: GenHotspot}
	f.Warmup = Dur("1m")
	err := f.Validate()
	if err == nil {
		t.Fatal("no error")
	}
	var fes []FieldError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var fe FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("%v is not a FieldError", e)
		}
		fes = append(fes, fe)
	}
	want := []string{"warmup", "cluster.nodes", "table.fields.a.n", "table.fields.b.n", "streams[0].rate"}
	var got []string
	for _, fe := range fes {
		got = append(got, fe.Key)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems at %q, want %q\n%v", got, want, err)
	}
	for i := 0; i < 20; i++ {
		if again := f.Validate(); again.Error() != err.Error() {
			t.Fatalf("Validate is not deterministic:\n%v\n---\n%v", err, again)
		}
	}
	ok := minimal()
	if err := ok.Validate(); err != nil {
		t.Errorf("minimal scenario: %v", err)
	}
}

// TestTypedValuesDecodeThemselves checks the self-decoding types on good and bad input.
func TestTypedValuesDecodeThemselves(t *testing.T) {
	var d Duration
	if err := d.DecodeTOML("1.5ms"); err != nil || d.Value != 1500*sim.Microsecond || d.Text != "1.5ms" {
		t.Errorf("Duration 1.5ms: %v %+v", err, d)
	}
	if err := d.DecodeTOML(int64(5)); err == nil || !strings.Contains(err.Error(), "integer 5") {
		t.Errorf("Duration from an integer: %v", err)
	}
	var c Clock
	if err := c.DecodeTOML("08:15:30"); err != nil || c.Value != 8*sim.Hour+15*sim.Minute+30*sim.Second {
		t.Errorf("Clock: %v %+v", err, c)
	}
	var s Scheme
	if err := s.DecodeTOML("rnage"); err == nil || !strings.Contains(err.Error(), `"hash", "range", "directory"`) {
		t.Errorf("Scheme rnage: %v", err)
	}
	var in Instant
	if err := in.DecodeTOML("07:00"); err != nil {
		t.Fatal(err)
	}
	if at, _ := in.At(6 * sim.Hour); at != sim.Hour {
		t.Errorf("07:00 from a 06:00 start is %v, want 1h", at)
	}
	var l SLOList
	if err := l.DecodeTOML([]any{"200ms", "100ms"}); err == nil || !strings.Contains(err.Error(), "increase") {
		t.Errorf("decreasing SLO list: %v", err)
	}
	var sc Scalar
	if err := sc.DecodeTOML(1.5); err == nil {
		t.Error("a float scalar was accepted")
	}
}
