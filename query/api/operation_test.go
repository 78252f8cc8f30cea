package api

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/schema"
)

// complete is a declaration Check accepts; the cases below break it one
// field at a time.
func complete() Operation {
	return Operation{
		Method: fiber.MethodGet, Path: "/api/v1/things/:symbol", ID: "getThing", Summary: "A thing.", Price: 5_000,
		Params:    []Param{Symbol{In: InPath}, Enum{Name: "window", Values: []string{"1m", "5m"}, Default: "5m"}},
		Responses: []Response{JSON(fiber.StatusOK, "The thing.", schema.Object("", schema.Obj{{"symbol", schema.String}}))},
		Tool:      &Tool{Name: "get_thing", Description: "The thing of a symbol."},
		Handler:   func(c fiber.Ctx) error { return c.SendString("ok") },
	}
}

func TestOperationCheck(t *testing.T) {
	f := func(change func(*Operation), want string) {
		t.Helper()
		op := complete()
		change(&op)
		err := op.Check()
		if want == "" {
			if err != nil {
				t.Fatalf("complete declaration refused: %v", err)
			}
			return
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err %v, want one containing %q", err, want)
		}
	}
	f(func(*Operation) {}, "")
	f(func(op *Operation) { op.Price = 0 }, "set exactly one of Price")
	f(func(op *Operation) { op.Free = true }, "set exactly one of Price")
	f(func(op *Operation) { op.Price = -1 }, "set exactly one of Price")
	f(func(op *Operation) { op.Price, op.Free = 0, true }, "")
	f(func(op *Operation) { op.Price, op.Free, op.X402Only = 0, true, true }, "need a price")
	f(func(op *Operation) { op.FreeCalls = []string{"x"} }, "FreeCalls belong")
	f(func(op *Operation) { op.Responses = nil }, "no documented response")
	f(func(op *Operation) { op.Responses = []Response{{Status: 200, Desc: "no schema"}} }, "needs a status, a description and a schema")
	f(func(op *Operation) { op.Responses = []Response{{Status: 200, Schema: schema.String}} }, "needs a status, a description")
	f(func(op *Operation) { op.Tool = nil }, "set exactly one of Tool and NoTool")
	f(func(op *Operation) { op.NoTool = "why" }, "set exactly one of Tool and NoTool")
	f(func(op *Operation) { op.Tool, op.NoTool = nil, "a free utility route" }, "")
	f(func(op *Operation) { op.Tool.Name = "Get-Thing" }, "snake_case")
	f(func(op *Operation) { op.Tool.Omit = []string{"nope"} }, "not a parameter")
	f(func(op *Operation) { op.Params = op.Params[1:] }, "no path parameter declares it")
	f(func(op *Operation) { op.Params = append(op.Params, Text{Name: "id", In: InPath}) }, "not in the path")
	f(func(op *Operation) { op.Params = append(op.Params, op.Params[1]) }, "declared twice")
	f(func(op *Operation) { op.Handler = nil }, "no handler")
	f(func(op *Operation) { op.ID = "" }, "no operation id")
	f(func(op *Operation) { op.Summary = "" }, "no summary")
	f(func(op *Operation) { op.Method = "PUT" }, "method must be")
}

func TestCheckTable(t *testing.T) {
	a, b := complete(), complete()
	if err := CheckTable([]Operation{a, b}); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Fatalf("duplicate operation: %v", err)
	}
	b.Path, b.ID = "/api/v1/other/:symbol", "getOther"
	if err := CheckTable([]Operation{a, b}); err == nil || !strings.Contains(err.Error(), "tool get_thing is declared twice") {
		t.Fatalf("duplicate tool: %v", err)
	}
	b.Tool = &Tool{Name: "get_other", Description: "x"}
	if err := CheckTable([]Operation{a, b}); err != nil {
		t.Fatal(err)
	}
}

// TestValidated: parameters are checked in declaration order before the
// handler, which then reads valid values.
func TestValidated(t *testing.T) {
	op := complete()
	ran := 0
	op.Handler = func(c fiber.Ctx) error {
		ran++
		return c.SendString(op.Params[0].(Symbol).Get(c) + " " + op.Params[1].(Enum).Get(c))
	}
	app := fiber.New()
	Mount(app, []Operation{op}, time.Now, nil)
	f := func(target string, wantStatus int, wantBody string) {
		t.Helper()
		resp, err := app.Test(httptest.NewRequest("GET", target, nil))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		if resp.StatusCode != wantStatus || !strings.Contains(b.String(), wantBody) {
			t.Fatalf("GET %s: %d %s; want %d containing %s", target, resp.StatusCode, b.String(), wantStatus, wantBody)
		}
	}
	f("/api/v1/things/btcusd", 200, "BTCUSD 5m")
	f("/api/v1/things/btcusd?window=1m", 200, "BTCUSD 1m")
	// A path segment that is no symbol makes the path no route: 404, before
	// the window is looked at (symbol is declared first).
	f("/api/v1/things/btc$?window=1h", 404, "Not Found")
	f("/api/v1/things/opportunities", 404, "Not Found")
	f("/api/v1/things/pre-trade?window=1h", 404, "Not Found")
	f("/api/v1/things/rndr-usdt?window=1m", 200, "RENDERUSD 1m") // read as its canonical symbol
	f("/api/v1/things/btcusd?window=1h", 400, `{"error":"invalid_parameter","parameter":"window","message":"window must be one of 1m, 5m","accepted":["1m","5m"],"charged":false}`)
	if ran != 3 {
		t.Fatalf("the handler ran %d times, want 3 (never on a rejected parameter)", ran)
	}
}

// TestChecksDoNotAllocate: the up-front check of a valid value allocates
// nothing, so validation adds no garbage to the hot routes (the handler's
// Get makes the one copy it needs). A path symbol is checked without
// allocating in its canonical spelling; another spelling is resolved by
// symbols.Canonical.
func TestChecksDoNotAllocate(t *testing.T) {
	now := time.Now
	f := func(p Param, raw string) {
		t.Helper()
		check := p.Spec().Check
		if e := check(raw, now); e != nil {
			t.Fatalf("%s=%q refused: %v", p.Spec().Name, raw, e)
		}
		if n := testing.AllocsPerRun(100, func() { _ = check(raw, now) }); n != 0 {
			t.Fatalf("checking %s=%q allocates %v times", p.Spec().Name, raw, n)
		}
	}
	f(Symbol{In: InPath}, "BTCUSD")
	f(Symbol{}, "btcusd")
	f(Symbols{Required: true}, "btcusd,ETHUSD,brk.b")
	f(Enum{Name: "window", Values: []string{"1m", "5m", "15m"}, Default: "5m"}, "15m")
	f(Int{Name: "limit", Min: 1, Max: 1000, Default: 20}, "250")
	f(Number{Name: "minAnomaly", Min: 0, Max: 100, Default: 70}, "72.5")
	f(Bool{Name: "persist"}, "true")
}
