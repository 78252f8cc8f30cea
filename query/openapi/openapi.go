// Package openapi renders openapi.json (spec §4.7, §9): OpenAPI 3.1,
// interface version 1.3.0, derived from the route table — the operations'
// parameters, bodies and answers, the answers the table adds (400 of a
// checked parameter, 402 and 429 of a priced route, 500), the price
// extensions, and the component schemas the declarations reach.
package openapi

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// The document served at GET /openapi.json, generated from the route table
// once, on the first request, and answered with the same bytes afterwards.
const (
	Path             = "/openapi.json"
	openAPIVersion   = "3.1.0"
	InterfaceVersion = "1.3.0"
)

// Operation declares GET /openapi.json; its handler renders the table that
// table returns (itself included) with the paid answers paid.
func Operation(table func() []api.Operation, paid []api.Response) api.Operation {
	var once sync.Once
	var body []byte
	return api.Operation{
		Method: fiber.MethodGet, Path: Path, ID: "getOpenAPI", Free: true,
		Summary: "This OpenAPI 3.1 description of the interface.",
		NoTool:  "a free utility route: the interface description, not a question about markets",
		Responses: []api.Response{api.JSON(fiber.StatusOK, "This document.", schema.Obj{
			{"type", "object"},
			{"properties", schema.Obj{
				{"openapi", schema.Const(openAPIVersion)},
				{"info", schema.Obj{{"type", "object"},
					{"properties", schema.Obj{{"title", schema.String}, {"version", schema.Const(InterfaceVersion)}}},
					{"required", []string{"title", "version"}}}},
				{"paths", schema.Obj{{"type", "object"}}},
				{"components", schema.Obj{{"type", "object"}}},
			}},
			{"required", []string{"openapi", "info", "paths", "components"}},
		})},
		Handler: func(c fiber.Ctx) error {
			once.Do(func() { body = Build(table(), paid) })
			return api.SendJSON(c, fiber.StatusOK, body)
		},
	}
}

// Build renders the OpenAPI document of ops; paid are the responses every
// priced operation adds (the paywall's 402 and 429). It panics if the
// document cannot be encoded or two component schemas share a name, which
// are bugs.
func Build(ops []api.Operation, paid []api.Response) []byte {
	paths := schema.Obj{}
	index := map[string]int{}
	var names []string
	for _, op := range ops {
		p := op.OpenAPIPath()
		i, ok := index[p]
		if !ok {
			i = len(paths)
			index[p] = i
			paths = append(paths, schema.KV{K: p, V: schema.Obj{}})
		}
		paths[i].V = append(paths[i].V.(schema.Obj), schema.KV{K: strings.ToLower(op.Method), V: operationObject(op, paid)})
		for _, prm := range op.Params {
			if s := prm.Spec(); s.In != api.InHeader && !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
		if op.Body != nil {
			for _, f := range op.Body.Fields {
				if !slices.Contains(names, f) {
					names = append(names, f)
				}
			}
		}
	}
	var related []schema.Named
	for _, op := range ops {
		related = append(related, op.Related...)
	}
	responses := schema.Obj{
		{"InvalidParameter", responseObject(api.JSON(fiber.StatusBadRequest, "A parameter failed validation; nothing was charged.",
			api.InvalidParameterSchema(names)))},
		{"Internal", responseObject(api.JSON(fiber.StatusInternalServerError, "Server error; the cause is logged, never shown. Not charged.",
			api.ErrorSchema))},
	}
	doc := schema.Obj{
		{"openapi", openAPIVersion},
		{"info", schema.Obj{
			{"title", "Market Intelligence Service"},
			{"version", InterfaceVersion},
			{"description", "Real-time trade-flow intelligence per symbol. Prices are USD per successful (2xx) call, " +
				"paid in USDC: x-price-usd (decimal string) and x-price-micro-usd (USDC atomic units) on every " +
				"operation; 0 means free. Errors are never charged. Unknown routes answer 404 with the Error " +
				"schema (error not_found), a known path with another method 405 (error method_not_allowed)."},
		}},
		{"paths", paths},
		{"components", schema.Obj{
			{"schemas", componentSchemas(paths, responses, related)},
			{"responses", responses},
		}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic("BUG: cannot encode the OpenAPI document: " + err.Error())
	}
	return b
}

// operationObject renders the operation object of op.
func operationObject(op api.Operation, paid []api.Response) schema.Obj {
	o := schema.Obj{{"operationId", op.ID}, {"summary", op.Summary}}
	var params []schema.Obj
	checked := op.Body != nil
	for _, p := range op.Params {
		s := p.Spec()
		params = append(params, schema.Obj{{"name", s.Name}, {"in", string(s.In)}, {"description", s.Desc},
			{"required", s.Required}, {"schema", s.Schema}})
		checked = checked || s.Check != nil
	}
	if len(params) > 0 {
		o = append(o, schema.KV{K: "parameters", V: params})
	}
	if op.Body != nil {
		o = append(o, schema.KV{K: "requestBody", V: schema.Obj{{"required", true},
			{"content", schema.Obj{{"application/json", schema.Obj{{"schema", op.Body.Schema}}}}}}})
	}
	rs := slices.Clone(op.Responses)
	has := func(st int) bool { return slices.ContainsFunc(rs, func(r api.Response) bool { return r.Status == st }) }
	if checked && !has(fiber.StatusBadRequest) {
		rs = append(rs, api.BadRequest())
	}
	if op.Paid() && !op.BilledInside {
		rs = append(rs, paid...)
	}
	if !has(fiber.StatusInternalServerError) {
		rs = append(rs, api.Response{Status: fiber.StatusInternalServerError, Ref: "Internal"})
	}
	slices.SortStableFunc(rs, func(a, b api.Response) int { return cmp.Compare(a.Status, b.Status) })
	responses := schema.Obj{}
	for _, r := range rs {
		responses = append(responses, schema.KV{K: strconv.Itoa(r.Status), V: responseObject(r)})
	}
	o = append(o, schema.KV{K: "responses", V: responses},
		schema.KV{K: "x-price-usd", V: api.PriceUSD(op.Price)}, schema.KV{K: "x-price-micro-usd", V: op.Price})
	if op.BilledInside {
		o = append(o, schema.KV{K: "x-free-calls", V: op.FreeCalls})
	}
	return o
}

// responseObject renders one response object.
func responseObject(r api.Response) schema.Obj {
	if r.Ref != "" {
		return schema.Obj{{"$ref", "#/components/responses/" + r.Ref}}
	}
	o := schema.Obj{{"description", r.Desc}}
	if r.Headers != nil {
		o = append(o, schema.KV{K: "headers", V: r.Headers})
	}
	content := schema.Obj{}
	if r.Schema != nil {
		content = append(content, schema.KV{K: fiber.MIMEApplicationJSON, V: schema.Obj{{"schema", r.Schema}}})
	}
	for _, c := range r.Content {
		content = append(content, schema.KV{K: c.Type, V: schema.Obj{{"schema", c.Schema}}})
	}
	return append(o, schema.KV{K: "content", V: content})
}

// componentSchemas collects the definitions of every schema.Named the
// document reaches (and of related), in the order they are first met.
func componentSchemas(roots ...any) schema.Obj {
	var out schema.Obj
	seen := map[string][]byte{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case schema.Named:
			def, err := json.Marshal(x.Schema)
			if err != nil {
				panic("BUG: cannot encode the component schema " + x.Name + ": " + err.Error())
			}
			if prev, ok := seen[x.Name]; ok {
				if string(prev) != string(def) {
					panic("BUG: two different component schemas are named " + x.Name)
				}
				return
			}
			seen[x.Name] = def
			out = append(out, schema.KV{K: x.Name, V: x.Schema})
			walk(x.Schema)
		case schema.Obj:
			for _, e := range x {
				walk(e.V)
			}
		case []schema.Obj:
			for _, e := range x {
				walk(e)
			}
		case []schema.Named:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, r := range roots {
		walk(r)
	}
	return out
}
