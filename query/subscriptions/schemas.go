package subscriptions

import (
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
	"github.com/marketintel/mi/sinks/alerts"
)

// The bodies of the alert routes (docs/alerts.md).
var (
	alertTokenSchema = schema.Named{Name: "AlertToken", Schema: schema.Object("A watched token of token_risk_change.", schema.Obj{
		{"address", schema.Described(schema.String, "0x + 40 hex digits on EVM chains (lower-cased), base58 on solana.")},
		{"chain", schema.Enum(alertChains...)},
	})}
	alertRequestSchema = schema.Named{Name: "AlertSubscriptionRequest", Schema: schema.Obj{
		{"description", "Body of POST /api/v1/alerts/subscriptions. Filters are top-level fields; each narrows only the event it belongs to (docs/alerts.md)."},
		{"type", "object"},
		{"properties", schema.Obj{
			{"url", schema.Described(schema.Obj{{"type", "string"}, {"format", "uri"}, {"maxLength", 2048}}, "Public HTTPS receiver; redirects are not followed.")},
			{"events", schema.Obj{{"type", "array"}, {"minItems", 1}, {"items", schema.Enum(operators.AlertEventNames...)}}},
			{"symbols", schema.Described(schema.Obj{{"type", "array"}, {"maxItems", maxAlertSymbols}, {"items", schema.String}}, "Symbols; empty means every symbol. Required by sec_filing.")},
			{"categories", schema.Described(schema.Array(schema.Enum(alertCategories...)), "news only.")},
			{"minMateriality", schema.Described(schema.Obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 5}, {"default", alerts.DefaultMinMateriality}}, "news only.")},
			{"tokens", schema.Described(schema.Obj{{"type", "array"}, {"maxItems", maxAlertTokens}, {"items", alertTokenSchema}}, "token_risk_change only; required by it.")},
			{"forms", schema.Described(schema.Array(schema.Enum(alertForms...)), "sec_filing only.")},
		}},
		{"required", []string{"url", "events"}},
		{"additionalProperties", false},
	}}
	alertCreatedSchema = schema.Named{Name: "AlertSubscriptionCreated", Schema: schema.Object("A new subscription, with its secret (shown once).", alertSubscriptionProps(true))}
	alertSchema        = schema.Named{Name: "AlertSubscription", Schema: schema.Object("An alert subscription.", alertSubscriptionProps(false))}
	alertTestSchema    = schema.Named{Name: "AlertTestResult", Schema: schema.ObjectRequiring("Outcome of a test delivery.", schema.Obj{
		{"deliveryId", schema.String},
		{"delivered", schema.Described(schema.Bool, "true when the receiver answered 2xx within 10 s.")},
		{"status", schema.Described(schema.Count, "The receiver's HTTP status; 0 when none arrived.")},
		{"error", schema.Described(schema.String, "Why the attempt failed; absent on success.")},
	}, "deliveryId", "delivered", "status")}
	alertEventsSchema = schema.Named{Name: "AlertEvents", Schema: schema.Object("Events of a subscription, oldest first.", schema.Obj{
		{"subscriptionId", schema.String},
		{"status", schema.Enum(alerts.StatusActive, alerts.StatusSuspended, alerts.StatusCancelled, alerts.StatusExpired, alerts.StatusExhausted)},
		{"deliveriesLeft", schema.Count},
		{"since", schema.DateTime},
		{"events", schema.Array(schema.Object("", schema.Obj{
			{"deliveryId", schema.Described(schema.String, "X-MI-Delivery of this event's delivery.")},
			{"eventId", schema.String},
			{"event", schema.Enum(append(append([]string{}, operators.AlertEventNames...), alerts.TestEvent)...)},
			{"symbol", schema.String},
			{"occurredAt", schema.DateTime},
			{"data", schema.Obj{{"type", "object"}}},
			{"state", schema.Enum(alerts.DeliveryPending, alerts.DeliveryDelivered, alerts.DeliveryFailed, alerts.DeliveryFetched, alerts.DeliveryDropped)},
			{"attempts", schema.Count},
			{"lastAttemptAt", schema.NullableDateTime},
			{"lastStatus", schema.Nullable("integer")},
			{"deliveredAt", schema.NullableDateTime},
		}))},
	})}
	alertErrorSchema = schema.Named{Name: "AlertError", Schema: schema.Object("Error of the alert routes.", schema.Obj{
		{"error", schema.Enum("not_found", "not_resumable", "unavailable")},
		{"message", schema.String},
		{"charged", schema.Const(false)},
	})}
	alertDeliverySchema = schema.Named{Name: "AlertDelivery", Schema: schema.Object("Body of a webhook delivery (spec §2.10), signed in X-MI-Signature.", schema.Obj{
		{"id", schema.Described(schema.String, "Delivery id, equal to X-MI-Delivery; the same on every retry.")},
		{"subscriptionId", schema.String},
		{"event", schema.String},
		{"symbol", schema.String},
		{"occurredAt", schema.DateTime},
		{"data", schema.Obj{{"type", "object"}}},
		{"deliveriesLeft", schema.Count},
		{"expiresAt", schema.DateTime},
	})}
)

// alertSubscriptionProps are the fields of a subscription, with its secret
// when withSecret is set.
func alertSubscriptionProps(withSecret bool) schema.Obj {
	p := schema.Obj{{"id", schema.String}}
	if withSecret {
		p = append(p, schema.KV{K: "secret", V: schema.Described(schema.String, "HMAC key of X-MI-Signature and the X-Alert-Secret of the management routes. Shown once.")})
	}
	return append(p, schema.Obj{
		{"status", schema.Enum(alerts.StatusActive, alerts.StatusSuspended, alerts.StatusCancelled, alerts.StatusExpired, alerts.StatusExhausted)},
		{"url", schema.String},
		{"events", schema.Array(schema.Enum(operators.AlertEventNames...))},
		{"symbols", schema.Array(schema.String)},
		{"categories", schema.Array(schema.Enum(alertCategories...))},
		{"minMateriality", schema.Obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}},
		{"tokens", schema.Array(alertTokenSchema)},
		{"forms", schema.Array(schema.Enum(alertForms...))},
		{"deliveriesLeft", schema.Obj{{"type", "integer"}, {"minimum", 0}, {"maximum", alerts.PackDeliveries}}},
		{"expiresAt", schema.DateTime},
		{"createdAt", schema.DateTime},
		{"consecutiveFailures", schema.Count},
		{"liveEvents", schema.Described(schema.Array(schema.Enum(operators.AlertEventNames...)), "Events whose detector runs on this server (with its data source configured): the only events a subscription may name.")},
	}...)
}

// Parameters of the alert management routes.
var (
	alertIDParam     = api.Text{Name: "id", In: api.InPath, Desc: "Subscription id."}
	alertSecretParam = api.Header{Name: alertSecretHeader, Required: true,
		Desc: "The secret returned at subscription. A wrong or missing secret answers 404, like an unknown id."}
	alertSinceParam = api.Text{Name: "since", Desc: "RFC 3339 time or Unix seconds; default 14 days ago.",
		Check: func(raw string) *api.ParamError { _, e := parseSince(raw, time0); return e }}
	alertLimitParam = api.Int{Name: "limit", Desc: "Number of events, oldest first.", Min: 1, Max: maxAlertLimit, Default: defaultAlertLimit}
)

// Operations declares the alert routes (spec §4.8, §5.4, §6).
func (rt *Routes) Operations() []api.Operation {
	alertErr := func(st int, desc string) api.Response { return api.JSON(st, desc, alertErrorSchema) }
	notFound := alertErr(fiber.StatusNotFound, "No subscription with this id and secret (not_found), or alerts are not configured on this server (unavailable).")
	managed := func(method, path, id, summary string, h fiber.Handler, ok api.Response, extra ...api.Response) api.Operation {
		return api.Operation{
			Method: method, Path: path, ID: id, Free: true, Summary: summary,
			Params:    []api.Param{alertIDParam, alertSecretParam},
			Responses: append(append([]api.Response{ok}, extra...), notFound),
			NoTool:    "manages a webhook subscription with its secret; not a question a model asks",
			Handler:   h,
		}
	}
	sub := api.JSON(fiber.StatusOK, "The subscription.", alertSchema)
	events := managed(fiber.MethodGet, "/api/v1/alerts/subscriptions/:id/events", "listAlertEvents",
		"Events of the last 14 days for a subscription, with payloads and delivery state (X-Alert-Secret).", rt.handleAlertEvents,
		api.JSON(fiber.StatusOK, "Events of the last 14 days with payloads and delivery state.", alertEventsSchema))
	events.Params = append(events.Params, alertSinceParam, alertLimitParam)
	return []api.Operation{
		{
			Method: fiber.MethodPost, Path: "/api/v1/alerts/subscriptions", ID: "createAlertSubscription", Price: priceAlertSubscription,
			Summary: "Buy an alert pack (200 signed webhook deliveries, 7 days) for events of symbols; the secret is shown once.",
			Body: &api.Body{Schema: alertRequestSchema, Check: rt.checkAlertCreate,
				Fields: []string{"body", "url", "events", "symbols", "categories", "minMateriality", "tokens", "forms"}},
			Responses: []api.Response{
				api.JSON(fiber.StatusCreated, "The subscription with its secret (shown once).", alertCreatedSchema),
				alertErr(fiber.StatusNotFound, "Alerts are not configured on this server (unavailable)."),
			},
			Related: []schema.Named{alertDeliverySchema},
			NoTool:  "buys a webhook pack for a public HTTPS receiver; an agent's operator sets it up once, not a model per question",
			Handler: rt.handleAlertCreate,
		},
		managed(fiber.MethodGet, "/api/v1/alerts/subscriptions/:id", "getAlertSubscription",
			"Status of an alert subscription (X-Alert-Secret).", rt.handleAlertGet, sub),
		managed(fiber.MethodDelete, "/api/v1/alerts/subscriptions/:id", "cancelAlertSubscription",
			"Cancel an alert subscription (X-Alert-Secret).", rt.handleAlertCancel, sub),
		managed(fiber.MethodPost, "/api/v1/alerts/subscriptions/:id/test", "testAlertSubscription",
			"Send a signed test delivery now and report the receiver's answer (X-Alert-Secret).", rt.handleAlertTest,
			api.JSON(fiber.StatusOK, "The outcome of the test delivery (free, not retried).", alertTestSchema),
			alertErr(fiber.StatusConflict, "The subscription is cancelled or expired.")),
		managed(fiber.MethodPost, "/api/v1/alerts/subscriptions/:id/resume", "resumeAlertSubscription",
			"Resume a suspended alert subscription (X-Alert-Secret).", rt.handleAlertResume, sub,
			alertErr(fiber.StatusConflict, "The subscription is cancelled, expired or exhausted.")),
		events,
	}
}
