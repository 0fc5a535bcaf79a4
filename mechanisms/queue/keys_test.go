package queue

import (
	"reflect"
	"slices"
	"testing"

	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
)

// TestJobClaimKeys: [[streams]] claim and skip_locked turn into sim.JobClaims, one Claim
// per resolved stream (NoClaim for a stream that does not claim), and each bad value is
// reported at its key (docs/scenario.md, "Keys of the mechanisms").
func TestJobClaimKeys(t *testing.T) {
	const claimer = "\n[[streams]]\nname = \"claim\"\nop = \"write\"\nclients = 4\nthink = \"1ms\"\ncost = \"0.1ms\"\nlock = \"1ms\"\n"
	for _, c := range []struct {
		extra string
		want  Claim
	}{{"claim = \"oldest\"\n", ClaimOldest}, {"claim = \"oldest\"\nskip_locked = true\n", ClaimSkipLocked}, {"claim = \"oldest\"\nskip_locked = false\n", ClaimOldest}} {
		s, probs := mechtest.Resolve(t, claimer+c.extra)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		if want := (JobClaims{Streams: []Claim{NoClaim, c.want}}); !reflect.DeepEqual(claimsOf(s.Mechanisms), []sim.Setting{want}) {
			t.Errorf("%q: settings %#v, want %#v after the row locks", c.extra, s.Mechanisms, want)
		}
	}
	if s, _ := mechtest.Resolve(t, claimer); len(claimsOf(s.Mechanisms)) != 0 {
		t.Errorf("without claim: settings %#v, want no claims", s.Mechanisms)
	}
	if _, probs := mechtest.Resolve(t, claimer+"claim = 1\n"); len(probs) != 1 {
		t.Errorf("claim = 1: problems %q, want the decoder's alone", probs)
	}
	for _, c := range []struct{ extra, want string }{
		{"claim = \"newest\"\n", `streams[1].claim: must be "oldest" (got "newest")`},
		{"claim = 1\n", `streams[1].claim: expected a string, got integer 1`},
		{"skip_locked = true\n", `streams[1].skip_locked: applies only to a stream with claim = "oldest" (a worker's claim of the oldest job)`},
	} {
		_, probs := mechtest.Resolve(t, claimer+c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
	_, probs := mechtest.Resolve(t, "\n[[streams]]\nname = \"c\"\nop = \"write\"\nrate = 10\ncost = \"1ms\"\nclaim = \"oldest\"\n")
	if want := `streams[1].claim: needs lock: how long a claim holds its job's row lock, e.g. "5ms"`; !slices.Contains(probs, want) {
		t.Errorf("claim without lock: problems %q, want %q", probs, want)
	}
	_, probs = mechtest.Resolve(t, "\n[[streams]]\nname = \"r\"\nop = \"read\"\nrate = 10\ncost = \"1ms\"\nclaim = \"oldest\"\n")
	if want := `streams[1].claim: applies only to op = "write": a claim locks its job's row`; !slices.Contains(probs, want) {
		t.Errorf("claim on a read: problems %q, want %q", probs, want)
	}
	_, probs = mechtest.Resolve(t, claimer+"claim = \"oldest\"\n"+"\n[[streams]]\nname = \"fast\"\nop = \"write\"\nclients = 4\nthink = \"1ms\"\ncost = \"0.1ms\"\nlock = \"1ms\"\nclaim = \"oldest\"\nskip_locked = true\n")
	if want := `streams[2].skip_locked: every claim on the table's queues must agree on skip_locked: stream "claim" claims without skip_locked, this one with skip_locked`; !slices.Contains(probs, want) {
		t.Errorf("mixed: problems %q, want %q", probs, want)
	}
}

// claimsOf is the job queues' settings among settings, which come after the row locks'
// (locks.RowLocks) their claims lock.
func claimsOf(settings []sim.Setting) []sim.Setting {
	var out []sim.Setting
	for i, x := range settings {
		if _, ok := x.(JobClaims); ok {
			if i == 0 {
				return nil // no row locks before them
			}
			out = append(out, x)
		}
	}
	return out
}
