package api

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/query/schema"
)

// In is where a parameter is sent.
type In string

// Locations of a parameter.
const (
	InQuery  In = "query"
	InPath   In = "path"
	InHeader In = "header"
)

// Param is a declared parameter. The kinds below (Enum, Int, Number,
// Symbol, Symbols, Instant, Day, Subset, Bool, Text, Header) each validate
// their raw value with one function: the server runs it up front, before
// the handler, and answers 400 naming the parameter and what it accepts;
// the handler reads the value with the kind's Get, which runs the same
// function on a value known to be valid.
type Param interface {
	Spec() ParamSpec
}

// ParamSpec is what openapi.json, the MCP tool schema and the validation
// read from a parameter.
type ParamSpec struct {
	Name     string
	In       In
	Desc     string
	Required bool
	// Schema is the value's JSON schema in openapi.json.
	Schema schema.Obj
	// Check validates the raw value ("" when absent) before the handler
	// runs; now is the server clock, called only by the kinds that need
	// it. Nil: the handler checks the value itself (headers it answers
	// 401 or 404 for, opaque ids).
	Check func(raw string, now func() time.Time) *ParamError
	// ToolSchema is the schema of the MCP tool argument that carries the
	// parameter ("array" arguments are sent comma-separated); nil when no
	// tool can pass it (headers).
	ToolSchema schema.Obj
}

// Raw returns the raw value of the parameter p in the request.
func Raw(c fiber.Ctx, in In, name string) string {
	switch in {
	case InPath:
		return c.Params(name)
	case InHeader:
		return c.Get(name)
	}
	return c.Query(name)
}

func inOr(in In) In {
	if in == "" {
		return InQuery
	}
	return in
}

// must returns v of a value validated up front; an error here means the
// handler reads a parameter its operation does not declare.
func must[T any](v T, e *ParamError) T {
	if e != nil {
		panic("BUG: parameter " + e.Param + " read without being declared: " + e.Message)
	}
	return v
}

// Enum is a string with one of Values.
type Enum struct {
	Name     string
	In       In // InQuery when empty
	Desc     string
	Values   []string
	Default  string // value when absent; "" means none
	Required bool
}

// Spec implements Param.
func (p Enum) Spec() ParamSpec {
	s := schema.Obj{{"type", "string"}, {"enum", p.Values}}
	if p.Default != "" {
		s = append(s, schema.KV{"default", p.Default})
	}
	return ParamSpec{Name: p.Name, In: inOr(p.In), Desc: p.Desc, Required: p.Required, Schema: s, ToolSchema: s,
		Check: func(raw string, _ func() time.Time) *ParamError { _, e := p.parse(raw); return e }}
}

// Get returns the value (one of Values, never aliasing the request).
func (p Enum) Get(c fiber.Ctx) string { return must(p.parse(Raw(c, inOr(p.In), p.Name))) }

func (p Enum) parse(raw string) (string, *ParamError) {
	if raw == "" && !p.Required {
		return p.Default, nil
	}
	if i := slices.Index(p.Values, raw); i >= 0 {
		return p.Values[i], nil
	}
	msg := p.Name + " must be one of " + strings.Join(p.Values, ", ")
	if len(p.Values) == 1 {
		msg = p.Name + " must be " + p.Values[0]
	}
	return "", &ParamError{Param: p.Name, Message: msg, Accepted: p.Values}
}

// Bool is "true" or "false", Default false.
type Bool struct {
	Name string
	Desc string
}

func (p Bool) enum() Enum {
	return Enum{Name: p.Name, Desc: p.Desc, Values: []string{"true", "false"}, Default: "false"}
}

// Spec implements Param.
func (p Bool) Spec() ParamSpec {
	s := p.enum().Spec()
	s.ToolSchema = schema.Obj{{"type", "boolean"}, {"default", false}}
	return s
}

// Get returns the value.
func (p Bool) Get(c fiber.Ctx) bool { return p.enum().Get(c) == "true" }

// Int is a decimal integer from Min to Max without sign. At most one more
// digit than Max has is accepted (a leading zero), so a huge value is
// rejected without overflow.
type Int struct {
	Name     string
	Desc     string
	Min, Max int64
	Default  int64 // value when absent
}

// Spec implements Param.
func (p Int) Spec() ParamSpec {
	s := schema.Obj{{"type", "integer"}, {"minimum", p.Min}, {"maximum", p.Max}, {"default", p.Default}}
	return ParamSpec{Name: p.Name, In: InQuery, Desc: p.Desc, Schema: s, ToolSchema: s,
		Check: func(raw string, _ func() time.Time) *ParamError { _, e := p.parse(raw); return e }}
}

// Get returns the value.
func (p Int) Get(c fiber.Ctx) int64 { return must(p.parse(c.Query(p.Name))) }

func (p Int) parse(raw string) (int64, *ParamError) {
	if raw == "" {
		return p.Default, nil
	}
	var n int64
	ok := len(raw) <= digits(p.Max)+1
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		if c < '0' || c > '9' {
			ok = false
			break
		}
		n = n*10 + int64(c-'0')
	}
	if !ok || n < p.Min || n > p.Max {
		r := "integer " + strconv.FormatInt(p.Min, 10) + " to " + strconv.FormatInt(p.Max, 10)
		return 0, &ParamError{Param: p.Name, Message: p.Name + " must be an " + r, Range: r}
	}
	return n, nil
}

// digits is the number of decimal digits of n ≥ 0.
func digits(n int64) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

// maxNumberLen bounds the text of a Number.
const maxNumberLen = 32

// Number is a decimal number from Min to Max (both included). NaN,
// infinities, hexadecimal and underscores are rejected; -0 reads as 0.
type Number struct {
	Name     string
	Desc     string
	Min, Max float64
	Default  float64 // value when absent
}

// Spec implements Param.
func (p Number) Spec() ParamSpec {
	s := schema.Obj{{"type", "number"}, {"minimum", p.Min}, {"maximum", p.Max}, {"default", p.Default}}
	return ParamSpec{Name: p.Name, In: InQuery, Desc: p.Desc, Schema: s, ToolSchema: s,
		Check: func(raw string, _ func() time.Time) *ParamError { _, e := p.parse(raw); return e }}
}

// Get returns the value.
func (p Number) Get(c fiber.Ctx) float64 { return must(p.parse(c.Query(p.Name))) }

func (p Number) parse(raw string) (float64, *ParamError) {
	if raw == "" {
		return p.Default, nil
	}
	ok := len(raw) <= maxNumberLen
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'
	}
	var v float64
	if ok {
		var err error
		v, err = strconv.ParseFloat(raw, 64)
		ok = err == nil && v >= p.Min && v <= p.Max
	}
	if !ok {
		r := "number " + strconv.FormatFloat(p.Min, 'f', -1, 64) + " to " + strconv.FormatFloat(p.Max, 'f', -1, 64)
		return 0, &ParamError{Param: p.Name, Message: p.Name + " must be a " + r, Range: r}
	}
	return v + 0, nil // -0 becomes 0
}

// Symbol limits.
const (
	MaxSymbolLen  = 32
	MaxSymbols    = 20
	symbolRange   = "1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
	symbolsRange  = "1 to 20 comma-separated symbols, each 1 to 32 characters: letters, digits, '.', '-', '_' (case-insensitive)"
	symbolPattern = "^[A-Za-z0-9._-]+$"
)

// Symbol is one symbol, case-insensitive, upper-cased when read: 1 to 32
// letters, digits, '.', '-' and '_'.
//
// A path symbol is a segment of the path, so a value that cannot name a
// symbol (symbols.Canonical: not a covered symbol, an alias, a venue
// spelling or a USD pair) makes the path no route at all: its check
// answers 404 not_found (ParamError.NotFound), before any paywall, and
// never the symbol route's 402 or 400. So /api/v1/intelligence/opportunities
// is not taken for a symbol, and a route added later at such a path needs
// no special case. A path symbol is read as its canonical symbol
// ("rndrusd" and "RNDR-USDT" read RENDERUSD, "tslausd" reads TSLA).
type Symbol struct {
	Name     string // "symbol" when empty
	In       In     // InQuery when empty
	Desc     string
	Required bool // a path symbol is always required
}

func (p Symbol) name() string {
	if p.Name == "" {
		return "symbol"
	}
	return p.Name
}

// Spec implements Param.
func (p Symbol) Spec() ParamSpec {
	s := schema.Obj{{"type", "string"}, {"minLength", 1}, {"maxLength", MaxSymbolLen}, {"pattern", symbolPattern}}
	in := inOr(p.In)
	return ParamSpec{Name: p.name(), In: in, Desc: p.Desc, Required: p.Required || in == InPath, Schema: s, ToolSchema: s,
		Check: func(raw string, _ func() time.Time) *ParamError {
			if in == InPath {
				if _, covered := symbols.LookupAsset(raw); covered {
					return nil // a canonical covered symbol: no allocation
				}
				_, e := p.parse(raw)
				return e
			}
			if validSymbol(raw) || raw == "" && !p.Required {
				return nil // valid: checked without the copy Get makes
			}
			_, e := p.parse(raw)
			return e
		}}
}

// Get returns the symbol in upper case, a path symbol canonical ("" when
// an optional symbol is absent); it never aliases the request, so it may
// be retained.
func (p Symbol) Get(c fiber.Ctx) string { return must(p.parse(Raw(c, inOr(p.In), p.name()))) }

func (p Symbol) parse(raw string) (string, *ParamError) {
	in := inOr(p.In)
	if raw == "" && !p.Required && in != InPath {
		return "", nil
	}
	s, e := ParseSymbol(raw)
	if e != nil {
		e.Param = p.name()
		e.Message = p.name() + " must be " + symbolRange
	}
	if in == InPath {
		if e != nil {
			e.NotFound = true
			return "", e
		}
		c, _, ok := symbols.Canonical(s)
		if !ok {
			return "", &ParamError{Param: p.name(), NotFound: true, Range: symbolRange,
				Message: strconv.Quote(raw) + " is not a symbol: no route"}
		}
		return c, nil
	}
	return s, e
}

// ParseSymbol normalizes a symbol to upper case and checks it is 1 to 32
// characters of letters, digits, '.', '-' and '_'. The result never
// aliases raw. The error names the parameter "symbol".
func ParseSymbol(raw string) (string, *ParamError) {
	if !validSymbol(raw) {
		return "", &ParamError{Param: "symbol", Message: "symbol must be " + symbolRange, Range: symbolRange}
	}
	return strings.Clone(strings.ToUpper(raw)), nil
}

// validSymbol reports whether raw is 1 to 32 letters, digits, '.', '-'
// and '_'.
func validSymbol(raw string) bool {
	ok := len(raw) >= 1 && len(raw) <= MaxSymbolLen
	for i := 0; ok && i < len(raw); i++ {
		c := raw[i]
		ok = c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_'
	}
	return ok
}

// Symbols is 1 to 20 comma-separated symbols, each as Symbol accepts it;
// they are upper-cased, and a repeated symbol counts toward the limit but
// is answered once, at its first place.
type Symbols struct {
	Name     string // "symbols" when empty
	Desc     string
	Required bool
}

func (p Symbols) name() string {
	if p.Name == "" {
		return "symbols"
	}
	return p.Name
}

// Spec implements Param.
func (p Symbols) Spec() ParamSpec {
	s := schema.Obj{{"type", "string"}, {"minLength", 1},
		{"pattern", `^[A-Za-z0-9._-]{1,32}(,[A-Za-z0-9._-]{1,32}){0,19}$`}}
	tool := schema.Obj{{"type", "array"}, {"items", schema.Obj{{"type", "string"}, {"minLength", 1}, {"maxLength", MaxSymbolLen},
		{"pattern", symbolPattern}}}, {"minItems", 1}, {"maxItems", MaxSymbols}}
	return ParamSpec{Name: p.name(), In: InQuery, Desc: p.Desc, Required: p.Required, Schema: s, ToolSchema: tool,
		Check: func(raw string, _ func() time.Time) *ParamError {
			if raw == "" && !p.Required || raw != "" && strings.Count(raw, ",") < MaxSymbols && allSymbols(raw) {
				return nil // valid: checked without building the list Get returns
			}
			_, e := p.parse(raw)
			return e
		}}
}

// allSymbols reports whether every comma-separated part of raw is a valid
// symbol.
func allSymbols(raw string) bool {
	for part := range strings.SplitSeq(raw, ",") {
		if !validSymbol(part) {
			return false
		}
	}
	return true
}

// Get returns the symbols, upper case, in request order; nil when an
// optional parameter is absent.
func (p Symbols) Get(c fiber.Ctx) []string { return must(p.parse(c.Query(p.name()))) }

func (p Symbols) parse(raw string) ([]string, *ParamError) {
	if raw == "" && !p.Required {
		return nil, nil
	}
	bad := &ParamError{Param: p.name(), Message: p.name() + " must be " + symbolsRange, Range: symbolsRange}
	if raw == "" || strings.Count(raw, ",") >= MaxSymbols {
		return nil, bad
	}
	var out []string
	for part := range strings.SplitSeq(raw, ",") {
		s, perr := ParseSymbol(part)
		if perr != nil {
			return nil, bad
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out, nil
}

// Subset is a comma-separated subset of Values; absent means all of them.
// The result is in Values order.
type Subset struct {
	Name   string
	Desc   string
	Values []string
}

// Spec implements Param.
func (p Subset) Spec() ParamSpec {
	return ParamSpec{Name: p.Name, In: InQuery, Desc: p.Desc, Schema: schema.String,
		ToolSchema: schema.Obj{{"type", "array"}, {"items", schema.Enum(p.Values...)}},
		Check:      func(raw string, _ func() time.Time) *ParamError { _, e := p.parse(raw); return e }}
}

// Get returns the chosen values in Values order.
func (p Subset) Get(c fiber.Ctx) []string { return must(p.parse(c.Query(p.Name))) }

func (p Subset) parse(raw string) ([]string, *ParamError) {
	if raw == "" {
		return p.Values, nil
	}
	var out []string
	for v := range strings.SplitSeq(raw, ",") {
		if !slices.Contains(p.Values, v) {
			return nil, &ParamError{Param: p.Name, Message: p.Name + " must be a comma-separated subset of " +
				strings.Join(p.Values, ", "), Accepted: p.Values}
		}
		out = append(out, v)
	}
	var ordered []string
	for _, v := range p.Values {
		if slices.Contains(out, v) {
			ordered = append(ordered, v)
		}
	}
	return ordered, nil
}

// EarliestHistory is the earliest day an Instant or a Day accepts.
const EarliestHistory = "2020-01-01"

// dateFormat is a UTC day.
const dateFormat = "2006-01-02"

// Instant is an ISO-8601 date-time (RFC 3339, e.g. 2026-01-05T00:00:00Z;
// an offset is converted to UTC) or a UTC day (midnight), from
// EarliestHistory to one day after now.
type Instant struct {
	Name     string
	Desc     string
	Required bool
}

// Spec implements Param.
func (p Instant) Spec() ParamSpec {
	return ParamSpec{Name: p.Name, In: InQuery, Desc: p.Desc, Required: p.Required, Schema: schema.String, ToolSchema: schema.String,
		Check: func(raw string, now func() time.Time) *ParamError {
			if raw == "" && !p.Required {
				return nil
			}
			_, e := p.parse(raw, now(), time.Time{})
			return e
		}}
}

// Get returns the value in UTC, or def when the parameter is absent.
func (p Instant) Get(c fiber.Ctx, now, def time.Time) time.Time {
	return must(p.parse(c.Query(p.Name), now, def))
}

func (p Instant) parse(raw string, now, def time.Time) (time.Time, *ParamError) {
	name := p.Name
	r := "ISO-8601 UTC date-time (e.g. 2026-01-05T00:00:00Z) or day YYYY-MM-DD, from " + EarliestHistory + " to " +
		now.Add(24*time.Hour).UTC().Format(time.RFC3339)
	bad := &ParamError{Param: name, Message: name + " must be an " + r, Range: r}
	if raw == "" {
		if def.IsZero() {
			bad.Message = name + " is required: an " + r
			return time.Time{}, bad
		}
		return def, nil
	}
	if len(raw) > 40 {
		return time.Time{}, bad
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		t, err = time.Parse(dateFormat, raw)
	}
	lo, _ := time.Parse(dateFormat, EarliestHistory)
	if err != nil || t.Before(lo) || t.After(now.Add(24*time.Hour)) {
		return time.Time{}, bad
	}
	return t.UTC(), nil
}

// Day is a UTC day YYYY-MM-DD from EarliestHistory to today; absent means
// yesterday.
type Day struct {
	Name string
	Desc string
}

// Spec implements Param.
func (p Day) Spec() ParamSpec {
	return ParamSpec{Name: p.Name, In: InQuery, Desc: p.Desc, Schema: schema.Date, ToolSchema: schema.Date,
		Check: func(raw string, now func() time.Time) *ParamError {
			if raw == "" {
				return nil
			}
			_, e := p.parse(raw, now())
			return e
		}}
}

// Get returns the day.
func (p Day) Get(c fiber.Ctx, now time.Time) string { return must(p.parse(c.Query(p.Name), now)) }

func (p Day) parse(raw string, now time.Time) (string, *ParamError) {
	today := now.UTC().Format(dateFormat)
	if raw == "" {
		return now.UTC().AddDate(0, 0, -1).Format(dateFormat), nil
	}
	r := "UTC day YYYY-MM-DD from " + EarliestHistory + " to " + today
	t, err := time.Parse(dateFormat, raw)
	if err != nil || len(raw) != 10 || raw < EarliestHistory || raw > today {
		return "", &ParamError{Param: p.Name, Message: p.Name + " must be a " + r, Range: r}
	}
	return t.UTC().Format(dateFormat), nil
}

// Text is a string the table does not check unless Check is set (an
// opaque id, a time the handler parses). A path Text is required.
type Text struct {
	Name     string
	In       In // InQuery when empty
	Desc     string
	Required bool
	Schema   schema.Obj // schema.String when nil
	// Check validates a non-empty raw value; nil accepts any.
	Check func(raw string) *ParamError
}

// Spec implements Param.
func (p Text) Spec() ParamSpec {
	s := p.Schema
	if s == nil {
		s = schema.String
	}
	in := inOr(p.In)
	sp := ParamSpec{Name: p.Name, In: in, Desc: p.Desc, Required: p.Required || in == InPath, Schema: s, ToolSchema: s}
	if p.Check != nil {
		sp.Check = func(raw string, _ func() time.Time) *ParamError {
			if raw == "" {
				return nil
			}
			return p.Check(raw)
		}
	}
	return sp
}

// Get returns the raw value; it aliases the request, so copy it to retain
// it.
func (p Text) Get(c fiber.Ctx) string { return Raw(c, inOr(p.In), p.Name) }

// Header is a request header the handler reads and answers for itself
// (e.g. 401 without an API key); tools cannot pass it.
type Header struct {
	Name     string
	Desc     string
	Required bool
}

// Spec implements Param.
func (p Header) Spec() ParamSpec {
	return ParamSpec{Name: p.Name, In: InHeader, Desc: p.Desc, Required: p.Required, Schema: schema.String}
}

// Get returns the header's value.
func (p Header) Get(c fiber.Ctx) string { return c.Get(p.Name) }
