package query

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// OpenAPI document served at GET /openapi.json (spec §4.7, §9): OpenAPI 3.1,
// interface version 1.3.0, generated from the route table once when the
// server is built.
const (
	openAPIPath      = "/openapi.json"
	openAPIVersion   = "3.1.0"
	interfaceVersion = "1.3.0"
)

// openAPIHandler returns the handler of GET /openapi.json: it renders the
// document for routes once and answers every request with the same bytes.
func openAPIHandler(routes []Route) fiber.Handler {
	body := buildOpenAPI(routes)
	return func(c fiber.Ctx) error { return sendJSON(c, fiber.StatusOK, body) }
}

// openAPIRoute is the entry of GET /openapi.json in the document. The route
// is registered by New outside the route table.
var openAPIRoute = Route{
	Method:  fiber.MethodGet,
	Path:    openAPIPath,
	Summary: "This OpenAPI 3.1 description of the interface.",
}

// obj is a JSON object that keeps its keys in insertion order, so the
// document renders deterministically and in a readable order.
type obj []kv

type kv struct {
	k string
	v any
}

// MarshalJSON implements json.Marshaler.
func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(e.k)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// apiOperation is what the document says about one route beyond the route
// table: its parameters and its responses other than 402.
type apiOperation struct {
	id        string
	params    []obj
	responses obj
	// body, when set, is the requestBody object of the operation.
	body obj
}

// apiOperations describes every route of the table, keyed by method and
// Fiber path. A route added to the table needs an entry here; without one
// it is described with a free-form 200 (TestOpenAPICoversRouteTable fails).
var apiOperations = map[string]apiOperation{
	"GET /api/v1/intelligence": {
		id:     "listIntelligence",
		params: []obj{windowParam(), limitParam(defaultListLimit, maxListLimit)},
		responses: obj{
			{"200", jsonResponse("Documents of every covered symbol for the window, most active first; [] without data.",
				obj{{"type", "array"}, {"items", ref("IntelligenceDocument")}})},
			{"400", refResponse("InvalidParameter")},
			{"500", refResponse("Internal")},
		},
	},
	"GET /api/v1/intelligence/:symbol": {
		id:     "getIntelligence",
		params: []obj{symbolParam(), windowParam()},
		responses: obj{
			{"200", jsonResponse("The latest document of the symbol for the window, with the symbol detail extension (spec §2.3).", ref("SymbolDetail"))},
			{"400", refResponse("InvalidParameter")},
			{"404", jsonResponse("No document for the symbol and window (spec §7); not charged.", ref("NoDataError"))},
			{"500", refResponse("Internal")},
		},
	},
	"GET /status": {
		id: "getStatus",
		responses: obj{
			{"200", jsonResponse("Ingestion state per source, dead letters, views and operator counters.", ref("Status"))},
			{"500", refResponse("Internal")},
		},
	},
	"GET /healthz": {
		id: "getHealthz",
		responses: obj{
			{"200", jsonResponse("The process is alive.", ref("Healthz"))},
			{"500", refResponse("Internal")},
		},
	},
	"GET " + openAPIPath: {
		id: "getOpenAPI",
		responses: obj{
			{"200", jsonResponse("This document.", obj{
				{"type", "object"},
				{"properties", obj{
					{"openapi", tConst(openAPIVersion)},
					{"info", obj{{"type", "object"},
						{"properties", obj{{"title", tString}, {"version", tConst(interfaceVersion)}}},
						{"required", []string{"title", "version"}}}},
					{"paths", obj{{"type", "object"}}},
					{"components", obj{{"type", "object"}}},
				}},
				{"required", []string{"openapi", "info", "paths", "components"}},
			})},
			{"500", refResponse("Internal")},
		},
	},
}

// buildOpenAPI renders the OpenAPI document of routes plus GET /openapi.json.
// It panics if the document cannot be encoded, which is a bug.
func buildOpenAPI(routes []Route) []byte {
	paths := obj{}
	index := map[string]int{}
	for _, r := range append(routesWithoutHandlers(routes), openAPIRoute) {
		p := openAPIPathOf(r.Path)
		i, ok := index[p]
		if !ok {
			i = len(paths)
			index[p] = i
			paths = append(paths, kv{p, obj{}})
		}
		item := paths[i].v.(obj)
		paths[i].v = append(item, kv{strings.ToLower(r.Method), operation(r)})
	}
	doc := obj{
		{"openapi", openAPIVersion},
		{"info", obj{
			{"title", "Market Intelligence Service"},
			{"version", interfaceVersion},
			{"description", "Real-time trade-flow intelligence per symbol. Prices are USD per successful (2xx) call, " +
				"paid in USDC: x-price-usd (decimal string) and x-price-micro-usd (USDC atomic units) on every " +
				"operation; 0 means free. Errors are never charged. Unknown routes answer 404 with the Error " +
				"schema (error not_found), a known path with another method 405 (error method_not_allowed)."},
		}},
		{"paths", paths},
		{"components", obj{
			{"schemas", componentSchemas()},
			{"responses", obj{
				{"InvalidParameter", jsonResponse("A parameter failed validation; nothing was charged.", ref("InvalidParameterError"))},
				{"Internal", jsonResponse("Server error; the cause is logged, never shown. Not charged.", ref("Error"))},
			}},
		}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic("BUG: cannot encode the OpenAPI document: " + err.Error())
	}
	return b
}

// routesWithoutHandlers copies routes; the document needs no handlers.
func routesWithoutHandlers(routes []Route) []Route {
	out := make([]Route, len(routes))
	for i, r := range routes {
		r.Handler = nil
		out[i] = r
	}
	return out
}

// operation renders the operation object of r.
func operation(r Route) obj {
	op, ok := apiOperations[r.Method+" "+r.Path]
	if !ok {
		op = apiOperation{responses: obj{{"200", jsonResponse("Success.", obj{})}}}
	}
	o := obj{}
	if op.id != "" {
		o = append(o, kv{"operationId", op.id})
	}
	o = append(o, kv{"summary", r.Summary})
	if len(op.params) > 0 {
		o = append(o, kv{"parameters", op.params})
	}
	if op.body != nil {
		o = append(o, kv{"requestBody", op.body})
	}
	responses := op.responses
	if r.PriceMicroUSD > 0 {
		responses = append(obj{}, responses...)
		responses = append(responses, paymentRequiredResponses()...) // see pricing_openapi.go
	}
	o = append(o, kv{"responses", responses})
	o = append(o, kv{"x-price-usd", priceUSD(r.PriceMicroUSD)}, kv{"x-price-micro-usd", r.PriceMicroUSD})
	return o
}

// openAPIPathOf turns a Fiber path into an OpenAPI path template:
// /a/:symbol becomes /a/{symbol}.
func openAPIPathOf(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + strings.TrimSuffix(s[1:], "?") + "}"
		}
	}
	return strings.Join(segs, "/")
}

// priceUSD formats micro-USD as a decimal USD string without trailing
// zeros: 5000 is "0.005", 10000 "0.01", 0 "0".
func priceUSD(micro int64) string {
	s := strconv.FormatInt(micro/1_000_000, 10)
	if frac := micro % 1_000_000; frac != 0 {
		f := strings.TrimRight(strconv.FormatInt(1_000_000+frac, 10)[1:], "0")
		s += "." + f
	}
	return s
}

func ref(name string) obj { return obj{{"$ref", "#/components/schemas/" + name}} }

func refResponse(name string) obj { return obj{{"$ref", "#/components/responses/" + name}} }

func jsonResponse(desc string, schema obj) obj {
	return obj{
		{"description", desc},
		{"content", obj{{"application/json", obj{{"schema", schema}}}}},
	}
}

func windowParam() obj {
	return obj{
		{"name", "window"},
		{"in", "query"},
		{"description", "Analysis window."},
		{"required", false},
		{"schema", obj{{"type", "string"}, {"enum", schemas.Windows}, {"default", defaultWindow}}},
	}
}

func limitParam(def, max int) obj {
	return obj{
		{"name", "limit"},
		{"in", "query"},
		{"description", "Number of documents, decimal without sign."},
		{"required", false},
		{"schema", obj{{"type", "integer"}, {"minimum", 1}, {"maximum", max}, {"default", def}}},
	}
}

func symbolParam() obj {
	return obj{
		{"name", "symbol"},
		{"in", "path"},
		{"description", "Symbol, case-insensitive (upper-cased before lookup), e.g. BTCUSD or BRK.B."},
		{"required", true},
		{"schema", obj{{"type", "string"}, {"minLength", 1}, {"maxLength", maxSymbolLen}, {"pattern", "^[A-Za-z0-9._-]+$"}}},
	}
}

// Schema helpers.
var (
	tString   = obj{{"type", "string"}}
	tNumber   = obj{{"type", "number"}}
	tInteger  = obj{{"type", "integer"}}
	tCount    = obj{{"type", "integer"}, {"minimum", 0}}
	tBool     = obj{{"type", "boolean"}}
	tDateTime = obj{{"type", "string"}, {"format", "date-time"}}
)

func tPercent() obj { return obj{{"type", "number"}, {"minimum", 0}, {"maximum", 100}} }

func tEnum(values ...string) obj { return obj{{"type", "string"}, {"enum", values}} }

func tArray(items obj) obj { return obj{{"type", "array"}, {"items", items}} }

func tConst(v any) obj { return obj{{"const", v}} }

func described(s obj, desc string) obj { return append(obj{{"description", desc}}, s...) }

// object is a schema of an object with exactly props, all required.
func object(desc string, props obj) obj {
	return closedOrOpen(desc, props, false)
}

// openObject is a schema of an object with props, all required, that may
// carry further fields (spec §2.1: free-form).
func openObject(desc string, props obj) obj {
	return closedOrOpen(desc, props, true)
}

func closedOrOpen(desc string, props obj, open bool) obj {
	req := make([]string, len(props))
	for i, p := range props {
		req[i] = p.k
	}
	o := obj{{"type", "object"}}
	if desc != "" {
		o = append(obj{{"description", desc}}, o...)
	}
	return append(o, kv{"properties", props}, kv{"required", req}, kv{"additionalProperties", open})
}

// componentSchemas returns components.schemas: the bodies of docs/api.md
// field by field.
func componentSchemas() obj {
	return append(baseSchemas(), extraSchemas...)
}

// parameterNames are the parameters a 400 body may name. Feature files add
// theirs with registerParameterNames in an init function.
var parameterNames = []string{"window", "limit", "symbol", "symbols", "minAnomaly", "minTrades",
	"minBuyPressure", "maxBuyPressure"}

// registerParameterNames adds names to the enum of InvalidParameterError's
// parameter field, once each.
func registerParameterNames(names ...string) {
	for _, n := range names {
		if !slices.Contains(parameterNames, n) {
			parameterNames = append(parameterNames, n)
		}
	}
}

// extraSchemas are the component schemas of feature files, registered with
// registerSchema in an init function (file-name order, so deterministic).
var extraSchemas obj

// registerSchema adds the component schema name; it panics on a duplicate.
func registerSchema(name string, schema obj) {
	for _, e := range append(baseSchemas(), extraSchemas...) {
		if e.k == name {
			panic("BUG: component schema " + name + " registered twice")
		}
	}
	extraSchemas = append(extraSchemas, kv{name, schema})
}

// baseSchemas are the component schemas of the intelligence routes.
func baseSchemas() obj {
	return obj{
		{"IntelligenceDocument", object("Spec §2.1; every field is always present, in this order.", documentProps(false))},
		{"SymbolDetail", object("IntelligenceDocument plus the symbol detail extension (spec §2.3).", symbolDetailProps())},
		{"CompactIntelligenceDocument", object("CompactMarketIntelligence (spec §2.2): IntelligenceDocument without id, buyVolume, sellVolume, "+
			"buySellRatio, averageTradeSize, tradeRatePerMinute, volumeRatePerMinute, priceChangePerMinute and timestamp.", documentProps(true))},
		{"MarketSummary", marketSummarySchema()},
		{"MarketRegime", marketRegimeSchema()},
		{"SellingSummary", sellingSummarySchema()},
		{"Comparison", comparisonSchema()},
		{"Snapshot", snapshotSchema()},
		{"Observations", openObject("Machine-readable measurements (spec §2.1: free-form object; these fields are always present).", obj{
			{"quality", ref("Quality")},
			{"windowSeconds", described(tNumber, "Effective span covered by the window.")},
			{"previousVolume", described(tNumber, "USD volume of the previous comparable window.")},
			{"previousTradeCount", described(tCount, "Trades of the previous comparable window.")},
			{"firstPrice", described(tNumber, "First price in the window.")},
			{"largeTradeThresholdUsd", described(tNumber, "Notional from which a trade counts as large.")},
			{"high", described(tNumber, "Highest price in the window.")},
			{"low", described(tNumber, "Lowest price in the window.")},
			{"vwap", described(tNumber, "Volume-weighted average price in the window.")},
			{"baselineVolumeMedian", described(tNumber, "Median USD volume of the rolling baseline.")},
			{"baselineTradeCountMedian", described(tNumber, "Median trade count of the rolling baseline.")},
		})},
		{"Quality", object("Data quality of the window.", obj{
			{"lateTrades", described(tCount, "Trades rejected as late, counted in the window.")},
			{"duplicateTrades", described(tCount, "Trades dropped as duplicates, counted in the window.")},
			{"unknownSideShare", described(obj{{"type", "number"}, {"minimum", 0}, {"maximum", 1}},
				"Share of window volume whose aggressor side is unknown.")},
			{"venues", described(tArray(tString), "Venues contributing to the window, sorted.")},
			{"venueCount", described(tCount, "Number of venues.")},
			{"gaps", described(obj{{"type", "array"}, {"items", ref("Gap")}, {"maxItems", 16}},
				"Known source gaps overlapping the window, sorted by from, to, source, reason; at most 16, the latest by end time.")},
		})},
		{"Gap", object("A stretch of the symbol's trades a source could not deliver and cannot backfill.", obj{
			{"source", described(tString, "Name of the source, e.g. binance:binance.")},
			{"from", described(tDateTime, "Start of the gap (inclusive).")},
			{"to", described(tDateTime, "End of the gap (inclusive).")},
			{"reason", described(tString, "A stable phrase first (disconnected, missed trades), then details.")},
		})},
		{"Interpretation", openObject("Machine-readable interpretation (spec §2.1: free-form object; these fields are always present).", obj{
			{"momentum", tString},
			{"activity", tString},
			{"buying", tString},
			{"relativeStrength", tString},
		})},
		{"Status", object("Body of GET /status.", obj{
			{"service", tConst("mi")},
			{"version", described(tString, "Service version.")},
			{"generatedAt", tDateTime},
			{"sources", described(tArray(ref("StatusSource")), "One entry per source, sorted by name.")},
			{"deadLetters", obj{{"description", "Rejected inputs by reason phrase."}, {"type", "object"},
				{"additionalProperties", tCount}}},
			{"views", object("Documents the live routes can serve.", obj{
				{"documents", tCount},
				{"symbols", tCount},
				{"windows", object("Documents per window.", obj{{"1m", tCount}, {"5m", tCount}, {"15m", tCount}})},
			})},
			{"operators", obj{{"description", "Operator loop counters since start; null when this process runs no operator loop."},
				{"oneOf", []obj{{{"type", "null"}}, object("", countFields(pipeline.OperatorCounts{}))}}}},
		})},
		{"StatusSource", object("Ingestion state of one source.", obj{
			{"source", tString},
			{"state", described(tEnum("starting", "running", "finished", "failed", "connecting", "reconnecting", "unreachable"),
				"Live sources: connecting (first dial), running, reconnecting (connection lost), unreachable (dial failed; retrying with backoff).")},
			{"trades", tCount},
			{"rejected", tCount},
			{"lastEventAt", obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}},
			{"lastIngestAt", obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}},
			{"freshnessMs", obj{{"type", []string{"integer", "null"}}, {"minimum", 0}}},
			{"reconnects", tCount},
			{"error", obj{{"description", "The last error, kept after the source recovers."}, {"type", []string{"string", "null"}}}},
			{"lagMs", obj{{"description", "Ingest time minus event time of the last trade."}, {"type", []string{"integer", "null"}}}},
			{"gaps", described(tCount, "Stretches the source could not deliver: disconnects, missed trade ids.")},
			{"lastGap", obj{{"description", "The last gap's reason."}, {"type", []string{"string", "null"}}}},
		})},
		{"Healthz", object("Body of GET /healthz.", obj{{"status", tConst("ok")}})},
		{"Error", object("Error body of routes without a more specific one.", obj{
			{"error", tEnum("not_found", "method_not_allowed", "bad_request", "internal")},
			{"message", tString},
			{"charged", tConst(false)},
		})},
		{"InvalidParameterError", object("400: a parameter failed validation.", obj{
			{"error", tConst(codeInvalidParameter)},
			{"parameter", described(tEnum(parameterNames...), "The rejected parameter.")},
			{"message", tString},
			{"accepted", obj{{"description", "The accepted values, or a description of the accepted range."},
				{"oneOf", []obj{tArray(tString), tString}}}},
			{"charged", tConst(false)},
		})},
		{"NoDataError", object("404 of the single-symbol route (spec §7).", obj{
			{"error", tConst(codeNoData)},
			{"message", tString},
			{"symbol", described(tString, "The requested symbol, upper case.")},
			{"coveredSymbols", described(tArray(tString), "Symbols with data; never null.")},
			{"charged", tConst(false)},
		})},
	}
}

// countFields returns the properties of a struct of unsigned counters, named
// by their json tags in field order, so the schema follows the struct
// (pipeline.OperatorCounts, owned by the pipeline) as it grows.
func countFields(v any) obj {
	t := reflect.TypeOf(v)
	props := obj{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := tInteger
		switch f.Type.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s = tCount
		case reflect.Float32, reflect.Float64:
			s = tNumber
		}
		props = append(props, kv{name, s})
	}
	return props
}

// compactOmitted are the fields of an IntelligenceDocument a
// CompactMarketIntelligence leaves out (spec §2.2).
var compactOmitted = []string{"id", "buyVolume", "sellVolume", "buySellRatio", "averageTradeSize",
	"tradeRatePerMinute", "volumeRatePerMinute", "priceChangePerMinute", "timestamp"}

// documentProps returns the properties of an IntelligenceDocument in
// render order, without the fields of compactOmitted when compact is set.
func documentProps(compact bool) obj {
	all := obj{
		{"id", described(tString, "Stable document identifier.")},
		{"symbol", described(tString, "Normalized crypto or US equity symbol.")},
		{"window", described(tEnum(schemas.Windows...), "Analysis window.")},
		{"price", described(tNumber, "Latest observed trade price, USD per base unit.")},
		{"volume", described(tNumber, "Total traded volume in the window, USD notional.")},
		{"buyVolume", described(tNumber, "Volume classified as buy side, USD notional.")},
		{"sellVolume", described(tNumber, "Volume classified as sell side, USD notional.")},
		{"buyPressure", described(tPercent(), "Percentage 0 to 100.")},
		{"buySellRatio", described(tNumber, "Buy volume divided by sell volume.")},
		{"buySellImbalance", described(tNumber, "Buy minus sell as a percentage of total volume.")},
		{"priceChangePercent", described(tNumber, "Price change over the window, percent.")},
		{"volumeAcceleration", described(tNumber, "Volume relative to the previous comparable window.")},
		{"tradeAcceleration", described(tNumber, "Trade count relative to the previous comparable window.")},
		{"momentumScore", described(tNumber, "Derived momentum score.")},
		{"activityScore", described(tNumber, "Derived relative activity score.")},
		{"anomalyScore", described(tNumber, "Derived from baseline deviations and activity/volume multiples.")},
		{"confidenceScore", described(tNumber, "Derived from trade count and number of baseline samples.")},
		{"averageTradeSize", described(tNumber, "USD notional per trade.")},
		{"tradeRatePerMinute", described(tNumber, "Trades per minute.")},
		{"volumeRatePerMinute", described(tNumber, "USD volume per minute.")},
		{"priceChangePerMinute", described(tNumber, "Price change percent per minute.")},
		{"tradeCount", described(tCount, "Trades in the window.")},
		{"largeTradeCount", described(tCount, "Detected large trades.")},
		{"largeBuyVolume", described(tNumber, "Volume of large buy trades, USD notional.")},
		{"largeSellVolume", described(tNumber, "Volume of large sell trades, USD notional.")},
		{"maxTradeSize", described(tNumber, "Largest single trade size, base units.")},
		{"maxTradeNotional", described(tNumber, "Largest single trade notional, USD.")},
		{"dominantSide", described(tEnum("BUY", "SELL", "BALANCED"), "Dominant trade-flow side.")},
		{"signal", described(tEnum(signalValues...), "Derived market signal (docs/signals.md).")},
		{"signalStrength", described(tEnum("LOW", "MEDIUM", "HIGH"), "Strength of the signal.")},
		{"timestamp", described(tDateTime, "Time of the observation.")},
		{"previousSignal", obj{{"description", "Previous signal; null when there was no earlier signal."},
			{"type", []string{"string", "null"}}}},
		{"signalChangedAt", obj{{"description", "When the current signal began; null when unknown."},
			{"type", []string{"string", "null"}}, {"format", "date-time"}}},
		{"signalAgeSeconds", described(tInteger, "Age of the current signal in seconds.")},
		{"activityMultiple", described(tNumber, "Activity relative to baseline.")},
		{"volumeMultiple", described(tNumber, "Volume relative to baseline.")},
		{"activityZScore", described(tNumber, "Activity deviation in standard deviations.")},
		{"volumeZScore", described(tNumber, "Volume deviation in standard deviations.")},
		{"baselineSamples", described(tCount, "Number of baseline samples.")},
		{"baselineReady", described(tBool, "Baseline has reached its minimum sample threshold.")},
		{"marketPercentile", described(tPercent(), "Percentile rank of activity among covered symbols.")},
		{"relativeMomentumPercentile", described(tPercent(), "Percentile rank of momentum among covered symbols.")},
		{"relativeBuyPressurePercentile", described(tPercent(), "Percentile rank of buy pressure among covered symbols.")},
		{"eventType", described(tEnum(eventTypeValues...), "Derived market event type (docs/signals.md).")},
		{"lifecycleState", described(tEnum("NEW_SIGNAL", "PERSISTING"), "Signal lifecycle state.")},
		{"observations", ref("Observations")},
		{"interpretation", ref("Interpretation")},
		{"evidence", described(tArray(tString), "Human-readable supporting evidence; never null.")},
	}
	if !compact {
		return all
	}
	out := obj{}
	for _, p := range all {
		if !slices.Contains(compactOmitted, p.k) {
			out = append(out, p)
		}
	}
	return out
}

// Enumerations of docs/signals.md and spec §2.5.
var (
	signalValues    = []string{signalBullish, signalBearish, signalNeutral}
	eventTypeValues = []string{"BREAKOUT", "BREAKDOWN", "DISTRIBUTION", "ACCUMULATION", "UNUSUAL_ACTIVITY", "MOMENTUM", eventNormal}
	regimeValues    = []string{regimeBullish, regimeBearish, regimeMixed, regimeNoData}
)

func compactList(desc string) obj { return described(tArray(ref("CompactIntelligenceDocument")), desc) }

// marketSummarySchema is the body of GET /api/v1/intelligence/summary.
func marketSummarySchema() obj {
	return object("MarketSummary (spec §2.4) of the covered (fresh) symbols of a window.", obj{
		{"window", described(tEnum(schemas.Windows...), "Normalized window.")},
		{"symbolsCovered", described(tCount, "Fresh symbols of the window.")},
		{"bullishSymbols", described(tCount, "Covered symbols whose signal is BULLISH.")},
		{"bearishSymbols", described(tCount, "Covered symbols whose signal is BEARISH.")},
		{"neutralSymbols", described(tCount, "Covered symbols neither bullish nor bearish.")},
		{"bullishBreadthPercent", described(tPercent(), "100 × bullishSymbols / symbolsCovered; 0 without symbols.")},
		{"bearishBreadthPercent", described(tPercent(), "100 × bearishSymbols / symbolsCovered; 0 without symbols.")},
		{"averageBuyPressure", described(tNumber, "Average buy pressure of the covered symbols.")},
		{"averagePriceChangePercent", described(tNumber, "Average price change percent of the covered symbols.")},
		{"unusualActivitySymbols", described(tCount, "Covered symbols with an anomaly score of at least 70.")},
		{"regime", described(tEnum(regimeValues...), "Aggregated regime (docs/api.md, Market rules).")},
		{"topMomentum", compactList("Up to 5 symbols with the highest momentum score.")},
		{"topActivity", compactList("Up to 5 most active symbols.")},
		{"topBuying", compactList("Up to 5 symbols with buy pressure at least 60, highest first.")},
		{"topSelling", compactList("Up to 5 symbols with buy pressure at most 40, lowest first.")},
		{"events", compactList("Up to 5 symbols with an eventType other than NORMAL.")},
		{"dataFreshness", object("Ages (now − last trade) in ms of the covered symbols; 0 without symbols.", obj{
			{"freshestMs", tCount}, {"oldestMs", tCount}})},
		{"staleSymbols", described(tCount, "Symbols of the window left out as stale.")},
		{"source", described(tString, "Venues seen in the covered documents, sorted and comma-separated; mi-pipeline without venues.")},
		{"timestamp", described(tDateTime, "Generation time.")},
	})
}

// marketRegimeSchema is the body of GET /api/v1/intelligence/regime.
func marketRegimeSchema() obj {
	return object("MarketRegime (spec §2.5) of the covered (fresh) symbols of a window.", obj{
		{"window", described(tEnum(schemas.Windows...), "Normalized window.")},
		{"regime", described(tEnum(regimeValues...), "Aggregated regime (docs/api.md, Market rules).")},
		{"symbolsCovered", described(tCount, "Fresh symbols of the window.")},
		{"bullishBreadthPercent", described(tPercent(), "Share of covered symbols whose signal is BULLISH.")},
		{"bearishBreadthPercent", described(tPercent(), "Share of covered symbols whose signal is BEARISH.")},
		{"averageBuyPressure", tNumber},
		{"averagePriceChangePercent", tNumber},
		{"averageMomentumScore", tNumber},
		{"highConfidenceSignals", described(tCount, "BULLISH or BEARISH signals with a confidence score of at least 75.")},
		{"unusualActivity", described(tCount, "Covered symbols with an anomaly score of at least 70.")},
		{"topLeaders", compactList("Up to 5 symbols with the highest momentum score.")},
		{"topActivityConcentration", compactList("Up to 5 most active symbols.")},
		{"timestamp", described(tDateTime, "Generation time.")},
	})
}

// sellingSummarySchema is the body of GET /api/v1/intelligence/selling.
func sellingSummarySchema() obj {
	return object("Summary of the covered symbols under selling pressure (spec §4.1: summary only).", obj{
		{"window", described(tEnum(schemas.Windows...), "Normalized window.")},
		{"maxBuyPressure", described(tPercent(), "The threshold applied.")},
		{"symbolsCovered", described(tCount, "Fresh symbols of the window.")},
		{"sellingSymbols", described(tCount, "Covered symbols with buy pressure at most maxBuyPressure (before limit).")},
		{"results", described(tArray(object("", obj{
			{"symbol", tString},
			{"price", tNumber},
			{"priceChangePercent", tNumber},
			{"buyPressure", tPercent()},
			{"volume", tNumber},
			{"tradeCount", tCount},
			{"signal", tEnum(signalValues...)},
			{"confidenceScore", tNumber},
			{"eventType", tEnum(eventTypeValues...)},
			{"relativeBuyPressurePercentile", tPercent()},
		})), "Lowest buy pressure first, at most limit.")},
		{"timestamp", described(tDateTime, "Generation time.")},
	})
}

// comparisonSchema is the body of GET /api/v1/intelligence/compare.
func comparisonSchema() obj {
	return object("One result per requested symbol, in request order (repeats once).", obj{
		{"window", described(tEnum(schemas.Windows...), "Normalized window.")},
		{"results", tArray(obj{{"oneOf", []obj{
			object("A covered symbol.", obj{
				{"symbol", tString},
				{"status", tConst("ok")},
				{"data", ref("CompactIntelligenceDocument")},
			}),
			object("A symbol without a fresh document for the window.", obj{
				{"symbol", tString},
				{"status", tConst("no_data")},
				{"message", tString},
			}),
		}}})},
	})
}

// snapshotSchema is the body of GET /api/v1/intelligence/snapshot/{symbol}.
func snapshotSchema() obj {
	return object("Cheapest live read of one symbol (spec §4.1: summary only).", obj{
		{"symbol", tString},
		{"window", tEnum(schemas.Windows...)},
		{"price", described(tNumber, "Latest trade price, USD per base unit.")},
		{"priceChangePercent", described(tNumber, "Price change over the window, percent.")},
		{"buyPressure", tPercent()},
		{"signal", tEnum(signalValues...)},
		{"signalStrength", tEnum("LOW", "MEDIUM", "HIGH")},
		{"confidenceScore", tNumber},
		{"timestamp", described(tDateTime, "Time of the document.")},
	})
}

// numberParam describes an optional decimal number query parameter.
func numberParam(name, desc string, def, lo, hi float64) obj {
	return obj{
		{"name", name},
		{"in", "query"},
		{"description", desc},
		{"required", false},
		{"schema", obj{{"type", "number"}, {"minimum", lo}, {"maximum", hi}, {"default", def}}},
	}
}

// countParam describes an optional integer query parameter from 0 to max.
func countParam(name, desc string, def, max int64) obj {
	return obj{
		{"name", name},
		{"in", "query"},
		{"description", desc},
		{"required", false},
		{"schema", obj{{"type", "integer"}, {"minimum", 0}, {"maximum", max}, {"default", def}}},
	}
}

func symbolsParam() obj {
	return obj{
		{"name", "symbols"},
		{"in", "query"},
		{"description", "1 to 20 comma-separated symbols, case-insensitive; a repeated symbol is answered once."},
		{"required", true},
		{"schema", obj{{"type", "string"}, {"minLength", 1},
			{"pattern", `^[A-Za-z0-9._-]{1,32}(,[A-Za-z0-9._-]{1,32}){0,19}$`}}},
	}
}

// rankingOperation describes a ranking route answering an array of
// documents.
func rankingOperation(id, desc string, extra ...obj) apiOperation {
	return apiOperation{
		id:     id,
		params: append([]obj{windowParam(), limitParam(defaultRankLimit, maxListLimit)}, extra...),
		responses: obj{
			{"200", jsonResponse(desc+" Covered (fresh) symbols only, percentiles set; [] without data.",
				obj{{"type", "array"}, {"items", ref("IntelligenceDocument")}})},
			{"400", refResponse("InvalidParameter")},
			{"500", refResponse("Internal")},
		},
	}
}

// marketOperations describes the market routes; init adds them to
// apiOperations.
func marketOperations() map[string]apiOperation {
	ok := func(desc, schema string) obj {
		return obj{
			{"200", jsonResponse(desc, ref(schema))},
			{"400", refResponse("InvalidParameter")},
			{"500", refResponse("Internal")},
		}
	}
	return map[string]apiOperation{
		"GET /api/v1/intelligence/summary": {id: "getMarketSummary", params: []obj{windowParam()},
			responses: ok("Market summary of the window.", "MarketSummary")},
		"GET /api/v1/intelligence/regime": {id: "getMarketRegime", params: []obj{windowParam()},
			responses: ok("Market regime of the window.", "MarketRegime")},
		"GET /api/v1/intelligence/top-momentum": rankingOperation("listTopMomentum",
			"Highest momentum score first."),
		"GET /api/v1/intelligence/top-activity": rankingOperation("listTopActivity",
			"Most trades first, then volume."),
		"GET /api/v1/intelligence/events": rankingOperation("listEvents",
			"Documents whose eventType is not NORMAL, highest confidence first."),
		"GET /api/v1/intelligence/unusual": rankingOperation("listUnusual",
			"Documents with anomalyScore ≥ minAnomaly and tradeCount ≥ minTrades, highest anomaly first.",
			numberParam("minAnomaly", "Lowest anomaly score kept.", defaultMinAnomaly, 0, 100),
			countParam("minTrades", "Fewest trades kept.", defaultMinTrades, maxMinTrades)),
		"GET /api/v1/intelligence/buying": rankingOperation("listBuying",
			"Documents with buyPressure ≥ minBuyPressure, highest first.",
			numberParam("minBuyPressure", "Lowest buy pressure kept.", defaultMinBuyPressure, 0, 100)),
		"GET /api/v1/intelligence/selling": {
			id: "getSelling",
			params: []obj{windowParam(), limitParam(defaultRankLimit, maxListLimit),
				numberParam("maxBuyPressure", "Highest buy pressure kept.", defaultMaxBuyPressure, 0, 100)},
			responses: ok("Symbols with buyPressure ≤ maxBuyPressure, lowest first.", "SellingSummary"),
		},
		"GET /api/v1/intelligence/compare": {
			id:        "compareIntelligence",
			params:    []obj{symbolsParam(), windowParam()},
			responses: ok("One result per symbol; unknown or stale symbols have status no_data.", "Comparison"),
		},
		"GET /api/v1/intelligence/snapshot/:symbol": {
			id:     "getSnapshot",
			params: []obj{symbolParam(), windowParam()},
			responses: obj{
				{"200", jsonResponse("Latest price, change, buy pressure, signal and confidence of the symbol.", ref("Snapshot"))},
				{"400", refResponse("InvalidParameter")},
				{"404", jsonResponse("No document for the symbol and window; not charged.", ref("NoDataError"))},
				{"500", refResponse("Internal")},
			},
		},
	}
}

func init() {
	for k, op := range marketOperations() {
		apiOperations[k] = op
	}
}

// symbolDetailProps are the IntelligenceDocument's properties followed by
// the symbol detail extension of spec §2.3.
func symbolDetailProps() obj {
	nullableTime := obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}
	sizes := object("USD order size to cost in bps, or null with the size's price move over 1%.", obj{
		{"1000", obj{{"type", []string{"number", "null"}}}},
		{"10000", obj{{"type", []string{"number", "null"}}}},
		{"50000", obj{{"type", []string{"number", "null"}}}},
	})
	return append(documentProps(false),
		kv{"liquidity", object("On-chain liquidity: cost of a market order as one swap in the best pool, fee included, with concentrated-liquidity math from the pools' events (docs/liquidity.md). Without pool state, method says so and the numbers are null.", obj{
			{"method", described(obj{{"type", "string"}}, "Method label; \""+liquidityMethodNone+"\" while no pool of the symbol has state.")},
			{"as_of", described(nullableTime, "Time of the newest pool event used; null without one.")},
			{"liquidity_score", described(obj{{"type", []string{"integer", "null"}}, {"minimum", 0}, {"maximum", 100}}, "100·exp(−bps/50) with bps the average of the $10k buy and sell cost; null without both.")},
			{"slippage_bps", described(obj{{"oneOf", []obj{{{"type", "null"}}, object("Buy and sell costs.", obj{{"buy", sizes}, {"sell", sizes}})}}}, "Cost in bps per order size; null without an estimate.")},
			{"estimates", described(tArray(object("The cost of one market order in the best pool.", obj{
				{"side", tEnum("buy", "sell")},
				{"size_usd", described(obj{{"type", "integer"}}, "Order size in USD: 1000, 10000 or 50000.")},
				{"cost_bps", described(obj{{"type", []string{"number", "null"}}}, "Cost against the pool's mid price in bps, fee included; null when no pool fills it within a 1% price move.")},
				{"reason", described(obj{{"type", []string{"string", "null"}}}, "Why cost_bps is null; null otherwise.")},
				{"chain", described(obj{{"type", []string{"string", "null"}}}, "Chain of the best pool.")},
				{"pool", described(obj{{"type", []string{"string", "null"}}}, "Address of the best pool.")},
				{"fee_bps", described(obj{{"type", "number"}}, "The best pool's swap fee in bps (0 without a pool).")},
				{"ticks_crossed", described(obj{{"type", "integer"}}, "Initialized ticks the swap crosses.")},
			})), "Buy then sell, by size.")},
			{"pools", described(tArray(object("One pool of the symbol.", obj{
				{"chain", obj{{"type", "string"}}},
				{"address", obj{{"type", "string"}}},
				{"name", obj{{"type", "string"}}},
				{"fee_bps", obj{{"type", "number"}}},
				{"price_usd", described(obj{{"type", "number"}}, "Mid price of the base in USD.")},
				{"sqrt_price_x96", described(obj{{"type", "string"}}, "slot0 sqrtPriceX96 as a decimal string.")},
				{"liquidity", described(obj{{"type", "string"}}, "In-range liquidity as a decimal string.")},
				{"tick", obj{{"type", "integer"}}},
				{"known_ticks", described(obj{{"type", "integer"}}, "Initialized ticks seen in Mint and Burn events since start.")},
				{"as_of", described(nullableTime, "Time of the pool's newest event.")},
			})), "Pools whose base is the symbol, by chain and address.")},
		})},
		kv{"sources", described(tArray(object("A venue contributing to the window.", obj{
			{"source", obj{{"type", "string"}}},
			{"status", described(tEnum("ok", "stale"), "stale once the symbol's last trade is older than the window's staleness limit.")},
			{"as_of", described(nullableTime, "The newest trade of the window.")},
		})), "One entry per venue in the window.")},
		kv{"as_of", described(nullableTime, "Time of the response data: the document's timestamp.")},
	)
}
