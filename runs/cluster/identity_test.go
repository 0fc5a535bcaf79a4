package cluster

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestBuildIdentityWithoutVCS: two builds whose source no stamp names (VCS stamps off, as
// in most container builds, or a tree with changes) and whose executables differ in one
// byte (a row-lock hold of 20 us more) are different builds, though their versions and
// fingerprints (whose tiny scenario takes no locks) agree; a build from a clean revision
// or a module version is named by that, so two nodes that each go install it agree.
func TestBuildIdentityWithoutVCS(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	exe := []byte("\x7fELF... const rowLockHold = 100 ...")
	os.WriteFile(a, exe, 0o755)
	exe[len(exe)-5] = '2' // 120
	os.WriteFile(b, exe, 0o755)
	hashOf := func(p string) func() string { return func() string { return fileHash(p) } }

	noVCS := &debug.BuildInfo{Main: debug.Module{Path: "github.com/shardsim/shardsim", Version: "(devel)"}}
	dirty := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20251201-abcdef+dirty"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef"}, {Key: "vcs.modified", Value: "true"}}}
	for name, info := range map[string]*debug.BuildInfo{"no VCS stamps": noVCS, "dirty tree": dirty, "no build info": nil} {
		ba, bb := buildOf("0.1.0-dev", info, "fp", hashOf(a)), buildOf("0.1.0-dev", info, "fp", hashOf(b))
		if ba == bb || ba.Executable == "" || ba.Executable == "unreadable" {
			t.Errorf("%s: builds of executables that differ in one byte have one identity: %v", name, ba)
		}
	}

	clean := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20251201-abcdef"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abcdef"}, {Key: "vcs.modified", Value: "false"}}}
	module := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}
	for name, info := range map[string]*debug.BuildInfo{"clean revision": clean, "module version": module} {
		ba, bb := buildOf("0.1.0-dev", info, "fp", hashOf(a)), buildOf("0.1.0-dev", info, "fp", hashOf(b))
		if ba != bb || ba.Executable != "" {
			t.Errorf("%s: the source is named, yet the executable's hash is part of the identity: %v, %v", name, ba, bb)
		}
	}

	// This test binary, built without a clean revision's stamp, names itself by its bytes.
	if tb := ThisBuild("x"); !tb.sourceKnown() && (tb.Executable == "" || tb.Executable == "unreadable") {
		t.Errorf("ThisBuild() = %v: no executable hash", tb)
	}
}
