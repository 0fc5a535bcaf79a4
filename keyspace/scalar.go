package keyspace

import (
	"fmt"

	"github.com/shardsim/shardsim/internal/tomlx"
)

// Scalar is a value written in a scenario's list of values or a directory entry: a string,
// an integer or a boolean.
type Scalar struct {
	Str   string
	Int   int64
	IsInt bool
}

// String is the value as written ("west", "7", "true").
func (s Scalar) String() string {
	if s.IsInt {
		return fmt.Sprint(s.Int)
	}
	return s.Str
}

// DecodeTOML reads a string, integer or boolean.
func (s *Scalar) DecodeTOML(v any) error {
	switch v := v.(type) {
	case string:
		*s = Scalar{Str: v}
	case int64:
		*s = Scalar{Int: v, IsInt: true}
	case bool:
		*s = Scalar{Str: fmt.Sprint(v)}
	default:
		return fmt.Errorf("must be a string, integer or boolean (got %s)", tomlx.Describe(v))
	}
	return nil
}
