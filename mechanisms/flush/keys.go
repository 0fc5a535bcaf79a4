package flush

import (
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// The commit flush's key ([cluster] commit_flush: docs/mitigations.md, "Commit flush"),
// its checks, and the setting it turns into (CommitFlush, flush.go).

var commitFlushKey = scenario.ClusterKey[scenario.Duration]("commit_flush", "none",
	"how long a node's flush of its write-ahead log takes (a duration up to 1s, e.g. `\"2ms\"`): every write, when its service ends, waits for its node's next flush before it completes, and one flush serves every write waiting when it starts (group commit); the flush holds no core, and reads do not wait (docs/mitigations.md, \"Commit flush\")")

// maxCommitFlush: a flush to a disk takes micro- to milliseconds; a second is already absurd.
const maxCommitFlush = sim.Second

func init() { scenario.RegisterMechanism(resolveCommitFlush) }

// resolveCommitFlush turns the commit flush on when [cluster] commit_flush is given.
func resolveCommitFlush(c *scenario.Checker, f *scenario.File, s *scenario.Resolved) {
	d, on := commitFlushKey.In(f.Cluster.Ext)
	if !on {
		return
	}
	set := CommitFlush{Flush: c.Duration("cluster.commit_flush", d, "", 1)}
	if set.Flush > maxCommitFlush {
		c.Add("cluster.commit_flush", "must be at most 1s (got %q): a log flush takes micro- to milliseconds", d.Text)
		return
	}
	if set.Flush > 0 {
		s.Mechanisms = append(s.Mechanisms, set)
	}
}
