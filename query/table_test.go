package query

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/mcp"
)

// TestEveryServedRouteIsDeclared: every route the Fiber app serves is an
// operation of the table, and every operation is complete (a price
// decision, a documented answer with its schema, an MCP tool decision).
func TestEveryServedRouteIsDeclared(t *testing.T) {
	s := newTestServer(nil, nil)
	declared := map[string]api.Operation{}
	for _, op := range s.Operations() {
		if err := op.Check(); err != nil {
			t.Errorf("incomplete declaration: %v", err)
		}
		declared[op.Key()] = op
	}
	served := 0
	for _, r := range s.App().GetRoutes(true) {
		if r.Method == fiber.MethodHead { // Fiber serves HEAD with the GET handler
			continue
		}
		served++
		if _, ok := declared[r.Method+" "+r.Path]; !ok {
			t.Errorf("%s %s is served but not declared in the route table (no price, schema or tool decision)", r.Method, r.Path)
		}
	}
	if served != len(declared) {
		t.Errorf("%d routes served, %d declared", served, len(declared))
	}
}

// TestEveryDeclaredRouteIsServed: a request to every declared operation
// reaches a handler, not the server's "no route" answer.
func TestEveryDeclaredRouteIsServed(t *testing.T) {
	s := newTestServer(nil, nil, fullDoc())
	for _, op := range s.Operations() {
		target := op.Path
		for _, p := range op.Params {
			if sp := p.Spec(); sp.In == api.InPath {
				target = strings.Replace(target, ":"+sp.Name, "BTCUSD", 1)
			}
		}
		req := httptest.NewRequest(op.Method, target, nil)
		if op.Method == fiber.MethodPost {
			req = httptest.NewRequest(op.Method, target, strings.NewReader(`{}`))
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := s.App().Test(req, fiberTestConfig())
		if err != nil {
			t.Fatalf("%s: %v", op.Key(), err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		// A handler may answer 404 itself (no data, alerts not configured):
		// it must not be the router's answer.
		if resp.StatusCode == http.StatusMethodNotAllowed || strings.Contains(string(b), `"message":"no route `) {
			t.Errorf("%s is declared but the router does not serve it: %d %s", op.Key(), resp.StatusCode, b)
		}
		found := slices.ContainsFunc(s.App().GetRoutes(true), func(r fiber.Route) bool { return r.Method == op.Method && r.Path == op.Path })
		if !found {
			t.Errorf("%s is declared but not registered", op.Key())
		}
	}
}

// TestMCPToolsDeclaredOnce: the tools of spec §4.8 are all listed, each
// once: a route that declares its tool replaces its pending entry in
// query/mcp.
func TestMCPToolsDeclaredOnce(t *testing.T) {
	s := newTestServer(nil, nil)
	var names []string
	for _, tl := range s.mcp.Tools() {
		if slices.Contains(names, tl.Name) {
			t.Errorf("tool %s is listed twice: delete its pendingTools entry once its route declares it", tl.Name)
		}
		names = append(names, tl.Name)
		served := slices.ContainsFunc(s.Operations(), func(op api.Operation) bool { return op.Key() == tl.Route })
		if served != tl.Available {
			t.Errorf("tool %s: available %v, but its route %s served %v", tl.Name, tl.Available, tl.Route, served)
		}
	}
	for _, want := range mcp.SpecTools {
		if !slices.Contains(names, want) {
			t.Errorf("tool %s of spec §4.8 is not listed", want)
		}
	}
}
