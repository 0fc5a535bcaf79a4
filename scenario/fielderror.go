package scenario

import (
	"fmt"
	"strings"
)

// NoSuchFieldError is a key part naming a field that table.fields does not declare. Resolve
// reports it as a FieldError whose Err it is, so that a caller with no table (analyze, whose
// fields are a log's key parts) can say the problem its own way.
type NoSuchFieldError struct {
	Field string   // the name as written
	Have  []string // the table's fields, in table order
}

func (e *NoSuchFieldError) Error() string {
	return fmt.Sprintf("no such field %q in table.fields (have %s)", e.Field, strings.Join(e.Have, ", "))
}

// Unwrap returns the typed problem behind e, if any.
func (e FieldError) Unwrap() error { return e.Err }

// addErr records err as the problem of key, its text as the message.
func (c *checker) addErr(key string, err error) {
	c.probs = append(c.probs, FieldError{Key: key, Msg: err.Error(), Err: err})
}
