package query

import (
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/sinks/alerts"
)

// registerAlertOpenAPI describes the alert routes and their bodies.
func registerAlertOpenAPI() {
	token := object("A watched token of token_risk_change.", obj{
		{"address", described(tString, "0x + 40 hex digits on EVM chains (lower-cased), base58 on solana.")},
		{"chain", tEnum(alertChains...)},
	})
	registerSchema("AlertSubscriptionRequest", obj{
		{"description", "Body of POST /api/v1/alerts/subscriptions. Filters are top-level fields; each narrows only the event it belongs to (docs/alerts.md)."},
		{"type", "object"},
		{"properties", obj{
			{"url", described(obj{{"type", "string"}, {"format", "uri"}, {"maxLength", 2048}}, "Public HTTPS receiver; redirects are not followed.")},
			{"events", obj{{"type", "array"}, {"minItems", 1}, {"items", tEnum(operators.AlertEventNames...)}}},
			{"symbols", described(obj{{"type", "array"}, {"maxItems", maxAlertSymbols}, {"items", tString}}, "Symbols; empty means every symbol. Required by sec_filing.")},
			{"categories", described(tArray(tEnum(alertCategories...)), "news only.")},
			{"minMateriality", described(obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 5}, {"default", alerts.DefaultMinMateriality}}, "news only.")},
			{"tokens", described(obj{{"type", "array"}, {"maxItems", maxAlertTokens}, {"items", ref("AlertToken")}}, "token_risk_change only; required by it.")},
			{"forms", described(tArray(tEnum(alertForms...)), "sec_filing only.")},
		}},
		{"required", []string{"url", "events"}},
		{"additionalProperties", false},
	})
	registerSchema("AlertToken", token)
	subProps := func(withSecret bool) obj {
		p := obj{{"id", tString}}
		if withSecret {
			p = append(p, kv{"secret", described(tString, "HMAC key of X-MI-Signature and the X-Alert-Secret of the management routes. Shown once.")})
		}
		return append(p, obj{
			{"status", tEnum(alerts.StatusActive, alerts.StatusSuspended, alerts.StatusCancelled, alerts.StatusExpired, alerts.StatusExhausted)},
			{"url", tString},
			{"events", tArray(tEnum(operators.AlertEventNames...))},
			{"symbols", tArray(tString)},
			{"categories", tArray(tEnum(alertCategories...))},
			{"minMateriality", obj{{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}},
			{"tokens", tArray(ref("AlertToken"))},
			{"forms", tArray(tEnum(alertForms...))},
			{"deliveriesLeft", obj{{"type", "integer"}, {"minimum", 0}, {"maximum", alerts.PackDeliveries}}},
			{"expiresAt", tDateTime},
			{"createdAt", tDateTime},
			{"consecutiveFailures", tCount},
			{"liveEvents", described(tArray(tEnum(operators.AlertEventNames...)), "Events that have a detector today; the others are accepted but not produced yet.")},
		}...)
	}
	registerSchema("AlertSubscriptionCreated", object("A new subscription, with its secret (shown once).", subProps(true)))
	registerSchema("AlertSubscription", object("An alert subscription.", subProps(false)))
	testResult := object("Outcome of a test delivery.", obj{
		{"deliveryId", tString},
		{"delivered", described(tBool, "true when the receiver answered 2xx within 10 s.")},
		{"status", described(tCount, "The receiver's HTTP status; 0 when none arrived.")},
		{"error", described(tString, "Why the attempt failed; absent on success.")},
	})
	for i, e := range testResult {
		if e.k == "required" {
			testResult[i].v = []string{"deliveryId", "delivered", "status"}
		}
	}
	registerSchema("AlertTestResult", testResult)
	nullable := func(t string, format string) obj {
		o := obj{{"type", []string{t, "null"}}}
		if format != "" {
			o = append(o, kv{"format", format})
		}
		return o
	}
	registerSchema("AlertEvents", object("Events of a subscription, oldest first.", obj{
		{"subscriptionId", tString},
		{"status", tEnum(alerts.StatusActive, alerts.StatusSuspended, alerts.StatusCancelled, alerts.StatusExpired, alerts.StatusExhausted)},
		{"deliveriesLeft", tCount},
		{"since", tDateTime},
		{"events", tArray(object("", obj{
			{"deliveryId", described(tString, "X-MI-Delivery of this event's delivery.")},
			{"eventId", tString},
			{"event", tEnum(append(append([]string{}, operators.AlertEventNames...), alerts.TestEvent)...)},
			{"symbol", tString},
			{"occurredAt", tDateTime},
			{"data", obj{{"type", "object"}}},
			{"state", tEnum(alerts.DeliveryPending, alerts.DeliveryDelivered, alerts.DeliveryFailed, alerts.DeliveryFetched, alerts.DeliveryDropped)},
			{"attempts", tCount},
			{"lastAttemptAt", nullable("string", "date-time")},
			{"lastStatus", nullable("integer", "")},
			{"deliveredAt", nullable("string", "date-time")},
		}))},
	}))
	registerSchema("AlertError", object("Error of the alert routes.", obj{
		{"error", tEnum("not_found", "not_resumable", "unavailable")},
		{"message", tString},
		{"charged", tConst(false)},
	}))
	registerSchema("AlertDelivery", object("Body of a webhook delivery (spec §2.10), signed in X-MI-Signature.", obj{
		{"id", described(tString, "Delivery id, equal to X-MI-Delivery; the same on every retry.")},
		{"subscriptionId", tString},
		{"event", tString},
		{"symbol", tString},
		{"occurredAt", tDateTime},
		{"data", obj{{"type", "object"}}},
		{"deliveriesLeft", tCount},
		{"expiresAt", tDateTime},
	}))

	idParam := obj{{"name", "id"}, {"in", "path"}, {"required", true}, {"description", "Subscription id."}, {"schema", tString}}
	secretParam := obj{{"name", alertSecretHeader}, {"in", "header"}, {"required", true},
		{"description", "The secret returned at subscription. A wrong or missing secret answers 404, like an unknown id."}, {"schema", tString}}
	alertErr := func(desc string) obj { return jsonResponse(desc, ref("AlertError")) }
	notFound := alertErr("No subscription with this id and secret (not_found), or alerts are not configured on this server (unavailable).")
	managed := func(id string, ok obj, extra ...kv) apiOperation {
		r := obj{{"200", ok}}
		r = append(r, extra...)
		r = append(r, kv{"404", notFound}, kv{"500", refResponse("Internal")})
		return apiOperation{id: id, params: []obj{idParam, secretParam}, responses: r}
	}
	subResp := jsonResponse("The subscription.", ref("AlertSubscription"))
	apiOperations["POST /api/v1/alerts/subscriptions"] = apiOperation{
		id:   "createAlertSubscription",
		body: obj{{"required", true}, {"content", obj{{"application/json", obj{{"schema", ref("AlertSubscriptionRequest")}}}}}},
		responses: obj{
			{"201", jsonResponse("The subscription with its secret (shown once).", ref("AlertSubscriptionCreated"))},
			{"400", refResponse("InvalidParameter")},
			{"404", alertErr("Alerts are not configured on this server (unavailable).")},
			{"500", refResponse("Internal")},
		},
	}
	apiOperations["GET /api/v1/alerts/subscriptions/:id"] = managed("getAlertSubscription", subResp)
	apiOperations["DELETE /api/v1/alerts/subscriptions/:id"] = managed("cancelAlertSubscription", subResp)
	apiOperations["POST /api/v1/alerts/subscriptions/:id/resume"] = managed("resumeAlertSubscription", subResp,
		kv{"409", alertErr("The subscription is cancelled, expired or exhausted.")})
	apiOperations["POST /api/v1/alerts/subscriptions/:id/test"] = managed("testAlertSubscription",
		jsonResponse("The outcome of the test delivery (free, not retried).", ref("AlertTestResult")),
		kv{"409", alertErr("The subscription is cancelled or expired.")})
	ev := managed("listAlertEvents", jsonResponse("Events of the last 14 days with payloads and delivery state.", ref("AlertEvents")),
		kv{"400", refResponse("InvalidParameter")})
	ev.params = append(ev.params,
		obj{{"name", "since"}, {"in", "query"}, {"required", false}, {"description", "RFC 3339 time or Unix seconds; default 14 days ago."}, {"schema", tString}},
		limitParam(defaultAlertLimit, maxAlertLimit))
	apiOperations["GET /api/v1/alerts/subscriptions/:id/events"] = ev
}
