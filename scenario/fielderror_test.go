package scenario

import (
	"errors"
	"slices"
	"testing"
)

// TestNoSuchFieldIsTyped: a key part naming an undeclared field is reported at its key with
// the message users read, and carries a *NoSuchFieldError (the field and the table's
// fields) that errors.As reaches through the FieldError, so that analyze can reword it
// without reading the text.
func TestNoSuchFieldIsTyped(t *testing.T) {
	f := minimal()
	f.Keyspace.Key = []string{"user_id"}
	_, probs := Resolve(&f)
	if len(probs) != 1 {
		t.Fatalf("problems %v, want one", probs)
	}
	p := probs[0]
	if want := `no such field "user_id" in table.fields (have id)`; p.Key != "keyspace.key[0]" || p.Msg != want {
		t.Errorf("problem %q at %s, want %q at keyspace.key[0]", p.Msg, p.Key, want)
	}
	var nf *NoSuchFieldError
	if !errors.As(p, &nf) {
		t.Fatalf("problem %v carries no *NoSuchFieldError", p)
	}
	if nf.Field != "user_id" || !slices.Equal(nf.Have, []string{"id"}) {
		t.Errorf("NoSuchFieldError = %+v, want field user_id, have [id]", nf)
	}
	// A problem of another kind carries none.
	f = minimal()
	f.Keyspace.Key = []string{"bogus(id)"}
	_, probs = Resolve(&f)
	if len(probs) == 0 || errors.As(probs[0], &nf) {
		t.Errorf("problems %v: want one that is not a NoSuchFieldError", probs)
	}
}
