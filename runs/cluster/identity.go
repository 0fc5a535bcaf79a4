package cluster

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// Build identifies the shardsim that computed a work item (docs/cluster.md, "Builds"):
// its version, the module version or VCS revision it was built from, the Go and platform
// it runs on, a fingerprint of what its engine computes, and, when no revision or module
// version names its source, the hash of its executable. Items of one sweep must come from
// one build: two builds of the same revision differ when a tree had changes (the
// executable's hash tells them apart), and one build's figures may differ in the last
// digit on another architecture (the fingerprint does).
type Build struct {
	Version  string `json:"version"`            // shardsim's own (main.version)
	Module   string `json:"module,omitempty"`   // the module version (go install ...@v1.2.3)
	Revision string `json:"revision,omitempty"` // the VCS revision, "+dirty" when the tree had changes
	Go       string `json:"go"`
	Platform string `json:"platform"` // GOOS/GOARCH
	// Fingerprint hashes the figures of a fixed tiny scenario run by this engine.
	Fingerprint string `json:"fingerprint"`
	// Executable is the SHA-256 (16 hex digits) of the executable's own bytes when nothing
	// else names its source (no VCS revision, or one with changes, and no module version):
	// two such builds that differ in one constant are told apart by it, where the
	// fingerprint's tiny scenario may never reach the constant.
	Executable string `json:"executable,omitempty"`
}

func (b Build) String() string {
	s := b.Version
	if b.Revision != "" {
		s += " revision " + b.Revision
	} else if b.Module != "" && b.Module != "(devel)" {
		s += " module " + b.Module
	}
	s = fmt.Sprintf("%s, %s, %s, fingerprint %s", s, b.Go, b.Platform, b.Fingerprint)
	if b.Executable != "" {
		s += ", executable " + b.Executable
	}
	return s
}

// ThisBuild returns the running shardsim's identity; version is its release string.
func ThisBuild(version string) Build {
	info, _ := debug.ReadBuildInfo()
	return buildOf(version, info, Fingerprint(), executableHash)
}

// buildOf is the identity of a build with version, build information info (nil: none),
// engine fingerprint fp, and exe, which hashes its executable when the identity needs it.
func buildOf(version string, info *debug.BuildInfo, fp string, exe func() string) Build {
	b := Build{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH, Fingerprint: fp}
	if info != nil {
		b.Module = info.Main.Version
		dirty := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Revision = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && b.Revision != "" {
			b.Revision += "+dirty"
		}
	}
	if !b.sourceKnown() {
		b.Executable = exe()
	}
	return b
}

// sourceKnown reports whether the build names the source it was built from: a VCS
// revision of a clean tree, or (without VCS stamps) a module version, which the module
// proxy never changes. A tree with changes, or a build with VCS stamps off
// (-buildvcs=false, as in most container builds) from a local tree ("(devel)"), does not.
func (b Build) sourceKnown() bool {
	if b.Revision != "" {
		return !strings.HasSuffix(b.Revision, "+dirty")
	}
	return b.Module != "" && b.Module != "(devel)" && !strings.Contains(b.Module, "+dirty")
}

// executableHash is the SHA-256 (16 hex digits) of the running executable's bytes,
// computed once, or "unreadable" when the executable cannot be read: a build that cannot
// be named is then still not taken for another that can.
var executableHash = sync.OnceValue(func() string {
	path, err := os.Executable()
	if err != nil {
		return "unreadable"
	}
	return fileHash(path)
})

// fileHash is the SHA-256 (16 hex digits) of the file at path, or "unreadable".
func fileHash(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// fingerprintScenario is small on purpose (a few milliseconds of the engine), yet draws
// from every kind of arithmetic a sweep's figures go through: Zipf and lognormal
// draws, hashing onto a ring, queues, timeouts and percentiles.
const fingerprintScenario = `
name     = "fingerprint"
seed     = 11
start    = "12:00"
duration = "4s"
warmup   = "1s"
window   = "1s"

[cluster]
nodes       = 3
cores       = 1
queue_limit = 50
network     = "0.3ms"

[table.fields]
user_id = { gen = "zipf", n = 5000, s = 1.1 }
id      = { gen = "uuid" }

[keyspace]
shards = 6
key    = ["user_id"]
hash   = "ring"
vnodes = 8

[[streams]]
name    = "read"
op      = "read"
rate    = 900
cost    = "0.7ms"
service = "lognormal"
cv      = 1.3
timeout = "40ms"

[[streams]]
name = "write"
op   = "write"
rate = 300
cost = "1.1ms"

[[streams]]
name = "scan"
op   = "scan"
rate = 3
cost = "4ms"
`

var fingerprint = sync.OnceValue(func() string {
	sc, err := scenarios.LoadBytes("fingerprint.toml", []byte(fingerprintScenario), scenarios.Options{})
	if err != nil {
		panic("cluster: the fingerprint scenario does not load: " + err.Error())
	}
	h := sha256.New()
	for _, v := range sc.Variants {
		b, err := json.Marshal(metrics.Of(sim.Run(v.Model())))
		if err != nil {
			panic("cluster: the fingerprint's figures do not encode: " + err.Error())
		}
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
})

// Fingerprint hashes the figures this engine computes for a fixed tiny scenario; two
// builds that compute anything differently are very likely to differ in it.
func Fingerprint() string { return fingerprint() }
