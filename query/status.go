package query

import (
	"reflect"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/internal/jsonw"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/stats"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/schemas"
)

// The bodies of GET /status and GET /healthz.
var (
	statusSchema = schema.Named{Name: "Status", Schema: schema.Object("Body of GET /status.", schema.Obj{
		{"service", schema.Const("mi")},
		{"version", schema.Described(schema.String, "Service version.")},
		{"generatedAt", schema.DateTime},
		{"sources", schema.Described(schema.Array(statusSourceSchema), "One entry per source, sorted by name.")},
		{"deadLetters", schema.Obj{{"description", "Rejected inputs by reason phrase."}, {"type", "object"},
			{"additionalProperties", schema.Count}}},
		{"views", schema.Object("Documents the live routes can serve.", schema.Obj{
			{"documents", schema.Count},
			{"symbols", schema.Count},
			{"windows", schema.Object("Documents per window.", schema.Obj{{"1m", schema.Count}, {"5m", schema.Count}, {"15m", schema.Count}})},
		})},
		{"operators", schema.Obj{{"description", "Operator loop counters since start; null when this process runs no operator loop."},
			{"oneOf", []schema.Obj{{{"type", "null"}}, schema.Object("", countFields(stats.OperatorCounts{}))}}}},
		{"freshness", schema.Object("Freshness of the polled publishers and the chain readers (spec §4.7: per chain and per news or filing source).", schema.Obj{
			{"chains", schema.Described(schema.Array(freshnessSchema), "One entry per configured chain (chain:<name>), sorted by name.")},
			{"sources", schema.Described(schema.Array(freshnessSchema), "One entry per polled source (rates, perps, news, filings), sorted by name.")},
		})},
	})}
	nullableTime    = schema.Obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}
	nullableMs      = schema.Obj{{"type", []string{"integer", "null"}}, {"minimum", 0}}
	freshnessSchema = schema.Named{Name: "StatusFreshness", Schema: schema.Object("Freshness of one polled source or chain.", schema.Obj{
		{"name", schema.Described(schema.String, "e.g. treasury:par, poll:hyperliquid, news:rss:coindesk, chain:ethereum.")},
		{"kind", schema.Described(schema.String, "rates, perps, news, filings, chain, ...")},
		{"endpoint", schema.Described(schema.String, "Where it reads from, credentials redacted.")},
		{"state", schema.Described(schema.Enum("starting", "ok", "failing"), "starting: no attempt finished yet; ok: the last attempt succeeded; failing: it failed.")},
		{"stale", schema.Described(schema.Bool, "True unless the last attempt succeeded and the last success is within maxAgeMs.")},
		{"lastAttemptAt", nullableTime},
		{"lastSuccessAt", nullableTime},
		{"lastDataAt", schema.Obj{{"description", "The publisher's own time of the newest data read (a curve's date, an item's publication, a block's time); null when it gives none."}, {"type", []string{"string", "null"}}, {"format", "date-time"}}},
		{"ageMs", schema.Obj{{"description", "Generation time minus lastSuccessAt; null before the first success."}, {"type", []string{"integer", "null"}}, {"minimum", 0}}},
		{"dataAgeMs", schema.Obj{{"description", "Generation time minus lastDataAt; null without one."}, {"type", []string{"integer", "null"}}, {"minimum", 0}}},
		{"maxAgeMs", schema.Described(nullableMs, "Age of the last success beyond which the source is stale; null: only a failed attempt makes it stale.")},
		{"consecutiveFailures", schema.Count},
		{"error", schema.Obj{{"description", "The last failure, redacted; kept after a recovery."}, {"type", []string{"string", "null"}}}},
		{"errorAt", nullableTime},
	})}
	statusSourceSchema = schema.Named{Name: "StatusSource", Schema: schema.Object("Ingestion state of one source.", schema.Obj{
		{"source", schema.String},
		{"state", schema.Described(schema.Enum("starting", "running", "finished", "failed", "connecting", "reconnecting", "unreachable"),
			"Live sources: connecting (first dial), running, reconnecting (connection lost), unreachable (dial failed; retrying with backoff).")},
		{"trades", schema.Count},
		{"rejected", schema.Count},
		{"rejectedByReason", schema.Obj{{"description", "The rejected records by reason phrase (the text before the reason's first colon)."}, {"type", "object"},
			{"additionalProperties", schema.Count}}},
		{"lastEventAt", schema.Obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}},
		{"lastIngestAt", schema.Obj{{"type", []string{"string", "null"}}, {"format", "date-time"}}},
		{"freshnessMs", schema.Obj{{"type", []string{"integer", "null"}}, {"minimum", 0}}},
		{"reconnects", schema.Count},
		{"error", schema.Obj{{"description", "The last error, kept after the source recovers."}, {"type", []string{"string", "null"}}}},
		{"lagMs", schema.Obj{{"description", "Ingest time minus event time of the last trade."}, {"type", []string{"integer", "null"}}}},
		{"gaps", schema.Described(schema.Count, "Stretches the source could not deliver: disconnects, missed trade ids.")},
		{"lastGap", schema.Obj{{"description", "The last gap's reason."}, {"type", []string{"string", "null"}}}},
	})}
	healthzSchema = schema.Named{Name: "Healthz", Schema: schema.Object("Body of GET /healthz.", schema.Obj{{"status", schema.Const("ok")}})}
)

// statusOperation declares GET /status.
func (s *Server) statusOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/status", ID: "getStatus", Free: true,
		Summary:   "Ingestion state and freshness per source and per chain, dead letters and view counts.",
		Responses: []api.Response{api.JSON(fiber.StatusOK, "Ingestion state per source, dead letters, views and operator counters.", statusSchema)},
		NoTool:    "a free operational route for operators and monitors, not a market question",
		Handler:   s.handleStatus,
	}
}

// healthzOperation declares GET /healthz.
func (s *Server) healthzOperation() api.Operation {
	return api.Operation{
		Method: fiber.MethodGet, Path: "/healthz", ID: "getHealthz", Free: true,
		Summary:   "Liveness probe.",
		Responses: []api.Response{api.JSON(fiber.StatusOK, "The process is alive.", healthzSchema)},
		NoTool:    "a liveness probe for orchestrators",
		Handler:   s.handleHealthz,
	}
}

func (s *Server) handleHealthz(c fiber.Ctx) error {
	return api.SendJSON(c, fiber.StatusOK, []byte(`{"status":"ok"}`))
}

// statusBody is the JSON of GET /status (docs/api.md). Pointer fields are
// null when unknown.
type statusBody struct {
	Service     string            `json:"service"`
	Version     string            `json:"version"`
	GeneratedAt string            `json:"generatedAt"`
	Sources     []statusSource    `json:"sources"`
	DeadLetters map[string]uint64 `json:"deadLetters"`
	Views       statusViews       `json:"views"`
	// Operators is null when no operator loop runs in this process.
	Operators *stats.OperatorCounts `json:"operators"`
	Freshness statusFreshness       `json:"freshness"`
}

// statusFreshness is the registry of the polled sources and chain readers,
// split into chains and the others.
type statusFreshness struct {
	Chains  []freshnessEntry `json:"chains"`
	Sources []freshnessEntry `json:"sources"`
}

// freshnessEntry is one sources.Freshness. Pointer fields are null when
// never.
type freshnessEntry struct {
	Name                string  `json:"name"`
	Kind                string  `json:"kind"`
	Endpoint            string  `json:"endpoint"`
	State               string  `json:"state"`
	Stale               bool    `json:"stale"`
	LastAttemptAt       *string `json:"lastAttemptAt"`
	LastSuccessAt       *string `json:"lastSuccessAt"`
	LastDataAt          *string `json:"lastDataAt"`
	AgeMs               *int64  `json:"ageMs"`
	DataAgeMs           *int64  `json:"dataAgeMs"`
	MaxAgeMs            *int64  `json:"maxAgeMs"`
	ConsecutiveFailures int     `json:"consecutiveFailures"`
	Error               *string `json:"error"`
	ErrorAt             *string `json:"errorAt"`
}

// freshnessOf renders one registry entry.
func freshnessOf(f sources.Freshness) freshnessEntry {
	at := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		s := jsonw.FormatTime(t.UnixNano())
		return &s
	}
	ms := func(d time.Duration, known bool) *int64 {
		if !known {
			return nil
		}
		v := max(d.Milliseconds(), 0)
		return &v
	}
	e := freshnessEntry{
		Name: f.Name, Kind: f.Kind, Endpoint: f.Endpoint, State: f.State, Stale: f.Stale,
		LastAttemptAt: at(f.LastAttempt), LastSuccessAt: at(f.LastSuccess), LastDataAt: at(f.LastData),
		AgeMs: ms(f.Age, !f.LastSuccess.IsZero()), DataAgeMs: ms(f.DataAge, !f.LastData.IsZero()),
		MaxAgeMs: ms(f.MaxAge, f.MaxAge > 0), ConsecutiveFailures: f.ConsecutiveFailures,
		ErrorAt: at(f.LastErrorAt),
	}
	if f.LastError != "" {
		msg := f.LastError
		e.Error = &msg
	}
	return e
}

// statusSource is the ingestion state of one source.
type statusSource struct {
	Source   string `json:"source"`
	State    string `json:"state"`
	Trades   uint64 `json:"trades"`
	Rejected uint64 `json:"rejected"`
	// RejectedByReason counts the rejected records by reason phrase;
	// empty when none.
	RejectedByReason map[string]uint64 `json:"rejectedByReason"`
	LastEventAt      *string           `json:"lastEventAt"`
	LastIngestAt     *string           `json:"lastIngestAt"`
	FreshnessMs      *int64            `json:"freshnessMs"`
	Reconnects       uint64            `json:"reconnects"`
	Error            *string           `json:"error"`
	// LagMs is ingest time minus event time of the last trade; null before
	// the first trade.
	LagMs *int64 `json:"lagMs"`
	// Gaps counts the stretches the source could not deliver; LastGap
	// describes the last one (null when none).
	Gaps    uint64  `json:"gaps"`
	LastGap *string `json:"lastGap"`
}

// statusViews counts the documents the live routes can serve.
type statusViews struct {
	Documents int            `json:"documents"`
	Symbols   int            `json:"symbols"`
	Windows   map[string]int `json:"windows"`
}

// handleStatus serves GET /status.
func (s *Server) handleStatus(c fiber.Ctx) error {
	now := s.d.Now()
	body := statusBody{
		Service:     "mi",
		Version:     s.d.Version,
		GeneratedAt: jsonw.FormatTime(now.UnixNano()),
		Sources:     []statusSource{},
		DeadLetters: map[string]uint64{},
		Freshness:   statusFreshness{Chains: []freshnessEntry{}, Sources: []freshnessEntry{}},
		Views: statusViews{
			Documents: s.d.Views.Len(),
			Symbols:   len(s.d.Views.Symbols()),
			Windows:   make(map[string]int, len(schemas.Windows)),
		},
	}
	for _, w := range schemas.Windows {
		body.Views.Windows[w] = len(s.d.Views.List(w))
	}
	if s.d.Stats != nil {
		sources, dlq := s.d.Stats.Snapshot()
		for _, st := range sources {
			ss := sourceStatus(st.Name, st.State, st.Trades, st.Rejected,
				st.LastEventNs, st.LastIngestNs, st.Reconnects, st.Error, now)
			addLiveStatus(&ss, st)
			body.Sources = append(body.Sources, ss)
		}
		for reason, n := range dlq {
			body.DeadLetters[reason] = n
		}
		if oc, ok := s.d.Stats.Operators(); ok {
			body.Operators = &oc
		}
	}
	if s.d.Freshness != nil {
		for _, f := range s.d.Freshness.Snapshot() {
			if f.Kind == "chain" {
				body.Freshness.Chains = append(body.Freshness.Chains, freshnessOf(f))
			} else {
				body.Freshness.Sources = append(body.Freshness.Sources, freshnessOf(f))
			}
		}
	}
	return api.SendValue(c, fiber.StatusOK, body)
}

// sourceStatus builds the status of one source as of now. Freshness is now
// minus the last ingest time, never negative, and null when the source has
// ingested nothing.
func sourceStatus(name, state string, trades, rejected uint64, lastEventNs, lastIngestNs int64,
	reconnects uint64, errText string, now time.Time) statusSource {
	st := statusSource{
		Source:           name,
		State:            state,
		Trades:           trades,
		Rejected:         rejected,
		Reconnects:       reconnects,
		RejectedByReason: map[string]uint64{},
	}
	if lastEventNs != 0 {
		t := jsonw.FormatTime(lastEventNs)
		st.LastEventAt = &t
	}
	if lastIngestNs != 0 {
		t := jsonw.FormatTime(lastIngestNs)
		st.LastIngestAt = &t
		ms := max(now.Sub(time.Unix(0, lastIngestNs)).Milliseconds(), 0)
		st.FreshnessMs = &ms
	}
	if errText != "" {
		st.Error = &errText
	}
	return st
}

// addLiveStatus adds what live sources report: lag and gaps.
func addLiveStatus(ss *statusSource, st stats.SourceStats) {
	if st.Trades > 0 {
		ms := st.LagNs / 1e6
		ss.LagMs = &ms
	}
	ss.Gaps = st.Gaps
	for reason, n := range st.RejectedBy {
		ss.RejectedByReason[reason] = n
	}
	if st.LastGap != "" {
		g := st.LastGap
		ss.LastGap = &g
	}
}

// countFields returns the properties of a struct of unsigned counters, named
// by their json tags in field order, so the schema follows the struct
// (stats.OperatorCounts, owned by the pipeline) as it grows.
func countFields(v any) schema.Obj {
	t := reflect.TypeOf(v)
	props := schema.Obj{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		s := schema.Integer
		switch f.Type.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s = schema.Count
		case reflect.Float32, reflect.Float64:
			s = schema.Number
		}
		props = append(props, schema.KV{K: name, V: s})
	}
	return props
}
