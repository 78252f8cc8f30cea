// Package api is the vocabulary of the route table: an Operation declares
// one route of the service once — method, path, parameters with their
// validation, price, response schemas, handler and MCP tool — and the
// server derives its router, the paywall's 402 quotes, /pricing,
// /transparency, the x402 resource manifest, openapi.json and the MCP tool
// list from the declarations (docs/architecture.md, "Adding a priced
// route"). The package also holds what every room shares to answer: the
// error bodies, the 400 of a rejected parameter, the JSON senders, the
// Paywall slot and the Payment a paid handler receives.
package api

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/schema"
)

// Operation is one route of the service, declared once.
type Operation struct {
	// Method is the HTTP method: fiber.MethodGet, MethodPost or
	// MethodDelete.
	Method string
	// Path is in Fiber syntax, e.g. "/api/v1/intelligence/:symbol"; every
	// :name has a path parameter in Params.
	Path string
	// ID is the operationId in openapi.json, unique in the table.
	ID string
	// Summary is one line about the route for pricing pages, the 402's
	// resource description and openapi.json.
	Summary string

	// Price is the price of one successful (2xx) call in micro-USD (USDC
	// atomic units). Exactly one of Price > 0 and Free is set: a route
	// without a price decision does not build.
	Price int64
	Free  bool
	// BilledInside marks an operation whose handler runs the paywall itself
	// per call (POST /mcp prices each tools/call by its tool's route): the
	// server does not wrap it, Price is its listed price, and FreeCalls
	// lists what it serves without charge.
	BilledInside bool
	FreeCalls    []string
	// X402Only marks a route only an x402 payment pays (the credit packs):
	// X-API-Key and SIGN-IN-WITH-X do not pay for it.
	X402Only bool
	// Assets are the asset symbols the 402 quotes; nil means USDC only.
	Assets []string

	// Params are validated in this order before the handler runs; the
	// first rejected one answers 400 (parameter, message, accepted).
	Params []Param
	// Body is the request body, nil for none.
	Body *Body
	// Responses are the answers of the route except the ones the table
	// derives: 400 (when a parameter or the body is checked), 402 and 429
	// (priced routes) and 500 (every route).
	Responses []Response
	// Related are component schemas the documentation of the route refers
	// to beyond its bodies (e.g. the webhook delivery an alert
	// subscription sends).
	Related []schema.Named

	// Handler serves the route once its parameters are valid (and, when it
	// is priced, its payment accepted).
	Handler fiber.Handler

	// Tool is the operation's MCP tool; nil requires NoTool, the reason
	// the route has none (a free utility route, an operation that is not
	// a question a model asks).
	Tool   *Tool
	NoTool string
}

// Body is a request body.
type Body struct {
	// Schema is the application/json schema (usually a schema.Named).
	Schema any
	// Fields are the parameter names a 400 about the body may carry, e.g.
	// "body", "url", "events".
	Fields []string
	// Check validates the body before the paywall (nil: the handler
	// checks it, after payment); it may keep what it parsed in the
	// request's locals for the handler.
	Check func(c fiber.Ctx) *ParamError
}

// Response is one documented answer.
type Response struct {
	Status int
	Desc   string
	// Schema is the application/json body (a schema.Obj or schema.Named).
	Schema any
	// Content are further (or other) media types.
	Content []Content
	// Headers are the response headers (name → header object).
	Headers schema.Obj
	// Ref names a shared response in components.responses instead
	// ("InvalidParameter", "Internal").
	Ref string
}

// Content is a body of one media type.
type Content struct {
	Type   string
	Schema any
}

// JSON is a response with a JSON body.
func JSON(status int, desc string, body any) Response {
	return Response{Status: status, Desc: desc, Schema: body}
}

// BadRequest is the shared 400 of a rejected parameter, for an operation
// whose handler answers it without a declared parameter.
func BadRequest() Response { return Response{Status: fiber.StatusBadRequest, Ref: "InvalidParameter"} }

// Tool is an MCP tool. Its arguments are the operation's query and path
// parameters (minus Omit), with the parameters' descriptions and schemas;
// a call runs the operation's validated handler, without the paywall, and
// the /mcp request is charged the operation's price when the call
// succeeds.
type Tool struct {
	// Name is snake_case (spec §4.8 names most of them).
	Name string
	// Description is written for a language model: what the tool answers
	// and when to use it. The price is appended.
	Description string
	// Omit are parameters not offered to models.
	Omit []string
	// Compact, when set, shrinks a successful answer for a model's
	// context unless the argument detail is "full" (the tool then offers
	// detail).
	Compact func(body []byte) []byte
}

// Key is "METHOD /fiber/path", the operation's key in the ledger and logs.
func (op Operation) Key() string { return op.Method + " " + op.Path }

// Paid reports whether a successful call costs something.
func (op Operation) Paid() bool { return op.Price > 0 }

// OpenAPIPath is the path as an OpenAPI template: /a/:symbol is
// /a/{symbol}.
func (op Operation) OpenAPIPath() string { return OpenAPIPath(op.Path) }

// OpenAPIPath turns a Fiber path into an OpenAPI path template.
func OpenAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + strings.TrimSuffix(s[1:], "?") + "}"
		}
	}
	return strings.Join(segs, "/")
}

// PriceUSD formats micro-USD as a decimal USD string without trailing
// zeros: 5000 is "0.005", 10000 "0.01", 0 "0".
func PriceUSD(micro int64) string {
	s := strconv.FormatInt(micro/1_000_000, 10)
	if frac := micro % 1_000_000; frac != 0 {
		f := strings.TrimRight(strconv.FormatInt(1_000_000+frac, 10)[1:], "0")
		s += "." + f
	}
	return s
}

var (
	toolName = regexp.MustCompile(`^[a-z][a-z0-9_]{2,63}$`)
	opID     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)
)

// Check reports what the declaration lacks: a method, path, id, summary or
// handler, a price decision, a documented answer, a tool decision, or the
// path parameters its path names.
func (op Operation) Check() error {
	k := op.Key()
	switch {
	case op.Method != fiber.MethodGet && op.Method != fiber.MethodPost && op.Method != fiber.MethodDelete:
		return fmt.Errorf("%s: method must be GET, POST or DELETE", k)
	case !strings.HasPrefix(op.Path, "/"):
		return fmt.Errorf("%s: path must start with /", k)
	case !opID.MatchString(op.ID):
		return fmt.Errorf("%s: no operation id", k)
	case op.Summary == "":
		return fmt.Errorf("%s: no summary", k)
	case op.Handler == nil:
		return fmt.Errorf("%s: no handler", k)
	case op.Price < 0 || (op.Price > 0) == op.Free:
		return fmt.Errorf("%s: set exactly one of Price (micro-USD, spec §8) and Free", k)
	case (op.X402Only || op.Assets != nil || op.BilledInside) && op.Free:
		return fmt.Errorf("%s: X402Only, Assets and BilledInside need a price", k)
	case op.FreeCalls != nil && !op.BilledInside:
		return fmt.Errorf("%s: FreeCalls belong to a BilledInside operation", k)
	case len(op.Responses) == 0:
		return fmt.Errorf("%s: no documented response", k)
	case (op.Tool == nil) == (op.NoTool == ""):
		return fmt.Errorf("%s: set exactly one of Tool and NoTool (the reason there is no MCP tool)", k)
	}
	for _, r := range op.Responses {
		if r.Status < 100 || r.Status > 599 || r.Schema == nil && r.Content == nil && r.Ref == "" || r.Ref == "" && r.Desc == "" {
			return fmt.Errorf("%s: response %d needs a status, a description and a schema (or a shared Ref)", k, r.Status)
		}
	}
	names := map[string]bool{}
	for _, p := range op.Params {
		s := p.Spec()
		if s.Name == "" || names[string(s.In)+" "+s.Name] {
			return fmt.Errorf("%s: parameter %q is unnamed or declared twice", k, s.Name)
		}
		names[string(s.In)+" "+s.Name] = true
		if s.In == InPath && !slices.Contains(strings.Split(op.Path, "/"), ":"+s.Name) {
			return fmt.Errorf("%s: path parameter %q is not in the path", k, s.Name)
		}
	}
	for _, seg := range strings.Split(op.Path, "/") {
		if strings.HasPrefix(seg, ":") && !names["path "+seg[1:]] {
			return fmt.Errorf("%s: the path names %s but no path parameter declares it", k, seg)
		}
	}
	if t := op.Tool; t != nil {
		if !toolName.MatchString(t.Name) || t.Description == "" {
			return fmt.Errorf("%s: tool %q needs a snake_case name and a description", k, t.Name)
		}
		for _, o := range t.Omit {
			if !names["query "+o] && !names["path "+o] {
				return fmt.Errorf("%s: tool %s omits %q, which is not a parameter", k, t.Name, o)
			}
		}
	}
	return nil
}

// CheckTable checks every operation and that methods and paths, ids and
// tool names are unique.
func CheckTable(ops []Operation) error {
	keys, ids, tools := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var errs []error
	for _, op := range ops {
		if err := op.Check(); err != nil {
			errs = append(errs, err)
			continue
		}
		if keys[op.Key()] || ids[op.ID] {
			errs = append(errs, fmt.Errorf("%s (%s) is declared twice", op.Key(), op.ID))
		}
		keys[op.Key()], ids[op.ID] = true, true
		if op.Tool != nil {
			if tools[op.Tool.Name] {
				errs = append(errs, fmt.Errorf("tool %s is declared twice", op.Tool.Name))
			}
			tools[op.Tool.Name] = true
		}
	}
	return errors.Join(errs...)
}

// Validated returns the operation's handler behind the up-front check of
// its parameters and body (Validate).
func (op Operation) Validated(now func() time.Time) fiber.Handler {
	return op.Validate(now, op.Handler)
}

// Validate returns next behind the up-front check of the operation's
// parameters, in declaration order, then of its body (Body.Check): the
// first rejected one answers 400 and next does not run. Mount puts it
// outside the paywall, so a rejected call is answered before anything is
// debited, reserved or verified. now is the clock the date parameters are
// checked against.
func (op Operation) Validate(now func() time.Time, next fiber.Handler) fiber.Handler {
	type check struct {
		in    In
		name  string
		check func(string, func() time.Time) *ParamError
	}
	var checks []check
	for _, p := range op.Params {
		if s := p.Spec(); s.Check != nil {
			checks = append(checks, check{s.In, s.Name, s.Check})
		}
	}
	var body func(fiber.Ctx) *ParamError
	if op.Body != nil {
		body = op.Body.Check
	}
	if len(checks) == 0 && body == nil {
		return next
	}
	return func(c fiber.Ctx) error {
		for _, ch := range checks {
			if e := ch.check(Raw(c, ch.in, ch.name), now); e != nil {
				if e.NotFound {
					return fiber.ErrNotFound // not a route: the server's 404 not_found
				}
				return SendParamError(c, e)
			}
		}
		if body != nil {
			if e := body(c); e != nil {
				return SendParamError(c, e)
			}
		}
		return next(c)
	}
}

// CheckParams checks the operation's parameters in declaration order with
// the raw values get returns (the MCP tool server checks a tool call's
// arguments this way before its paywall); nil when every one is valid.
func (op Operation) CheckParams(get func(in In, name string) string, now func() time.Time) *ParamError {
	for _, p := range op.Params {
		if s := p.Spec(); s.Check != nil {
			if e := s.Check(get(s.In, s.Name), now); e != nil {
				return e
			}
		}
	}
	return nil
}

// RegistrationOrder returns ops with every path that has parameters after
// the paths without: Fiber matches in registration order, so a fixed path
// such as /api/v1/intelligence/summary must come before
// /api/v1/intelligence/:symbol.
func RegistrationOrder(ops []Operation) []Operation {
	out := slices.Clone(ops)
	slices.SortStableFunc(out, func(a, b Operation) int {
		pa, pb := strings.ContainsAny(a.Path, ":*+"), strings.ContainsAny(b.Path, ":*+")
		switch {
		case pa == pb:
			return 0
		case pa:
			return 1
		}
		return -1
	})
	return out
}

// Mount registers ops on app in registration order: each handler wrapped
// by wrap (when not nil: the paywall), behind the validation of its
// parameters and body, so an invalid call is refused before the paywall
// debits or reserves anything. A GET operation also answers HEAD: a free
// one as GET does (the body is not sent), a paid one with 405 and Allow:
// GET (HeadRefused), never running the paywall or the handler.
func Mount(app *fiber.App, ops []Operation, now func() time.Time, wrap func(op Operation, h fiber.Handler) fiber.Handler) {
	for _, op := range RegistrationOrder(ops) {
		h := op.Handler
		if wrap != nil {
			h = wrap(op, h)
		}
		h = op.Validate(now, h)
		app.Add([]string{op.Method}, op.Path, h)
		if op.Method == fiber.MethodGet {
			head := h
			if op.Paid() {
				head = HeadRefused
			}
			app.Add([]string{fiber.MethodHead}, op.Path, head)
		}
	}
}

// HeadRefused answers HEAD on a paid route: 405 method_not_allowed with
// Allow: GET, not charged. A HEAD answer carries no body, so charging for
// one would sell nothing; answering it for free would run the paid work
// for free.
func HeadRefused(c fiber.Ctx) error {
	c.Set(fiber.HeaderAllow, fiber.MethodGet)
	return SendError(c, fiber.StatusMethodNotAllowed, "method_not_allowed",
		"HEAD is not served on a paid route: it would be charged and carry no body; use GET")
}
