package archtest

import (
	"bytes"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirection runs go list over the module and fails on every
// import against docs/architecture.md.
func TestImportDirection(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", Module+"/...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
			Deps       []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		r, _ := rel(p.ImportPath)
		pkgs = append(pkgs, Package{Path: r, Imports: p.Imports, Deps: p.Deps})
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages; the module has more", len(pkgs))
	}
	for _, v := range Check(pkgs) {
		t.Error(v)
	}
	// The API tier's whole dependency tree is broker-free.
	for _, p := range pkgs {
		if p.Path == "query" && !strings.Contains(strings.Join(p.Deps, " "), Module+"/query/market") {
			t.Fatalf("go list -json gave no dependencies of query")
		}
	}
}

// TestCheck: each rule catches its violation.
func TestCheck(t *testing.T) {
	m := func(p string) string { return Module + "/" + p }
	f := func(pk Package, want string) {
		t.Helper()
		got := strings.Join(Check([]Package{pk}), "\n")
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Fatalf("%+v: got %q, want %q", pk, got, want)
		}
	}
	f(Package{Path: "query/market", Imports: []string{m("query/api"), m("schemas"), m("sinks/views"), m("internal/jsonw"), "strings"}}, "")
	f(Package{Path: "query", Imports: []string{m("pipeline")}, Deps: []string{m("pipeline")}}, "the broker code")
	f(Package{Path: "query/market", Deps: []string{"github.com/twmb/franz-go/pkg/kfake"}}, "the broker's client")
	f(Package{Path: "pipeline/sources/cex", Imports: []string{m("pipeline")}, Deps: []string{m("pipeline")}}, "the broker code")
	f(Package{Path: "operators", Imports: []string{m("sinks/views")}}, "against the direction")
	f(Package{Path: "sinks/views", Imports: []string{m("query/api")}}, "against the direction")
	f(Package{Path: "schemas", Imports: []string{m("operators")}}, "against the direction")
	f(Package{Path: "query", Imports: []string{m("cmd/mi")}}, "nothing imports the commands")
	f(Package{Path: "query/mcp", Imports: []string{m("query/market")}}, "imports no other room")
	f(Package{Path: "query/paywall/x402", Imports: []string{m("query/paywall/ledger")}}, "")
	f(Package{Path: "query/api", Imports: []string{m("query/history")}}, "imports no room")
	f(Package{Path: "internal/jsonw", Imports: []string{m("schemas")}}, "must import nothing")
	f(Package{Path: "cmd/mi", Imports: []string{m("pipeline"), m("query")}, Deps: []string{"github.com/twmb/franz-go/pkg/kgo"}}, "")
}
