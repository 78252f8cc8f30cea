// Package archtest checks the direction of the imports between the
// service's packages (docs/architecture.md): schemas ← operators ←
// pipeline, sinks, datasets ← query ← cmd, the API tier free of broker
// code, the sources free of the broker, and the rooms of the query tier
// independent of each other. Its test runs `go list` over the module.
package archtest

import (
	"fmt"
	"slices"
	"strings"
)

// Module is the module path.
const Module = "github.com/marketintel/mi"

// Package is what the rules read of one package: its path relative to the
// module ("query/market"), its direct imports and its transitive
// dependencies (full import paths).
type Package struct {
	Path    string
	Imports []string
	Deps    []string
}

// rel returns p relative to the module and whether it is in the module.
func rel(p string) (string, bool) {
	if p == Module {
		return "", true
	}
	r, ok := strings.CutPrefix(p, Module+"/")
	return r, ok
}

// under reports whether path is dir or inside it.
func under(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

// layer is the layer of a package of the module: 0 schemas; 1 operators;
// 2 pipeline, sinks, datasets; 3 query; 4 cmd. The packages under
// internal/ (test helpers, the demo's replay server, the leaves) are -1:
// outside the layers.
func layer(p string) int {
	switch {
	case under(p, "schemas"):
		return 0
	case under(p, "operators"):
		return 1
	case under(p, "pipeline"), under(p, "sinks"), under(p, "datasets"):
		return 2
	case under(p, "query"):
		return 3
	case under(p, "cmd"):
		return 4
	}
	return -1
}

// leaves are the packages of the module that import nothing of it, so that
// every layer may use them.
var leaves = []string{"internal/jsonw"}

// rooms are the packages of the query tier that each serve one part of the
// API; they import query/api and query/schema, never each other.
var rooms = []string{"query/market", "query/history", "query/subscriptions", "query/paywall", "query/news", "query/sec", "query/mcp", "query/openapi", "query/token"}

// brokerFree are the directories whose packages must not depend on the
// broker code, directly or not: the pipeline root package (embedded Kafka,
// transactions) and franz-go.
var brokerFree = []string{"query", "pipeline/sources", "pipeline/stats", "pipeline/symbols"}

// Check returns the violations of the rules in pkgs.
func Check(pkgs []Package) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	for _, pk := range pkgs {
		p := pk.Path
		for _, imp := range pk.Imports {
			i, ours := rel(imp)
			if !ours {
				continue
			}
			switch {
			case slices.Contains(leaves, p):
				bad("%s is a leaf every layer imports: it must import nothing of the module, imports %s", p, i)
			case slices.Contains(leaves, i):
			case under(i, "cmd"):
				bad("%s imports %s: nothing imports the commands", p, i)
			case layer(p) >= 0 && layer(i) > layer(p):
				bad("%s imports %s, against the direction schemas ← operators ← pipeline/sinks/datasets ← query ← cmd", p, i)
			}
			if (under(p, "query/api") || under(p, "query/schema")) && under(i, "query") && !under(i, "query/api") && !under(i, "query/schema") {
				bad("%s imports %s: the route table's vocabulary imports no room", p, i)
			}
			for _, r := range rooms {
				if under(p, r) && under(i, "query") && !under(i, r) && !under(i, "query/api") && !under(i, "query/schema") &&
					!under(i, "query/querytest") {
					bad("%s imports %s: a room of the query tier imports no other room (only query/api and query/schema)", p, i)
				}
			}
		}
		for _, d := range slices.Concat(pk.Imports, pk.Deps) {
			for _, dir := range brokerFree {
				if !under(p, dir) {
					continue
				}
				if d == Module+"/pipeline" {
					bad("%s depends on %s, the broker code (embedded Kafka, transactions)", p, "pipeline")
				}
				if strings.HasPrefix(d, "github.com/twmb/franz-go") {
					bad("%s depends on %s: the broker's client", p, d)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
