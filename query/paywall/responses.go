package paywall

import (
	"github.com/gofiber/fiber/v3"

	"github.com/marketintel/mi/query/api"
	"github.com/marketintel/mi/query/schema"
)

// The bodies of the 402 and 429 every priced route answers.
var (
	// RequirementsSchema is one x402 accepts entry.
	RequirementsSchema = schema.Named{Name: "PaymentRequirements", Schema: schema.ObjectRequiring("One way to pay (x402 v2 accepts entry).", schema.Obj{
		{"scheme", schema.Const("exact")},
		{"network", schema.Described(schema.String, "CAIP-2 network, e.g. eip155:8453.")},
		{"amount", schema.Described(schema.Obj{{"type", "string"}, {"pattern", "^[0-9]+$"}}, "Atomic units of the asset (USDC: micro-USD), equal to the route price.")},
		{"asset", schema.Described(schema.String, "Token contract (EVM) or mint (Solana).")},
		{"payTo", schema.Described(schema.String, "Receiving address.")},
		{"maxTimeoutSeconds", schema.Count},
		{"extra", schema.Obj{{"description", "EIP-712 domain name and version of the token (EVM), or feePayer (Solana)."}, {"type", "object"}}},
	}, "scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds")}
	// QuoteSchema is the body of a 402.
	QuoteSchema = schema.Named{Name: "PaymentRequired", Schema: schema.ObjectRequiring("402 body: the x402 v2 PaymentRequired of the PAYMENT-REQUIRED header plus the price in USD.", schema.Obj{
		{"x402Version", schema.Const(2)},
		{"error", schema.Described(schema.String, "Why the call was not served: payment_required, an x402 reason (e.g. invalid_exact_evm_payload_signature, insufficient_funds), invalid_api_key, insufficient_credit or a siwx_ reason.")},
		{"resource", schema.Object("The resource.", schema.Obj{{"url", schema.String}, {"description", schema.String}, {"mimeType", schema.String}})},
		{"accepts", schema.Array(RequirementsSchema)},
		{"extensions", schema.Obj{{"description", "sign-in-with-x: the CAIP-122 challenge (info, supportedChains, schema); supportedChains lists every configured eip155 network (type eip191: SIWE, EIP-1271) and solana network (type ed25519: SIWS, base58 address and signature); absent on x402-only routes."}, {"type", "object"}}},
		{"message", schema.String},
		{"price", schema.Object("The price of the call.", schema.Obj{{"usd", schema.String}, {"microUsd", schema.Count}})},
		{"signIn", schema.Object("Present when a signed-in wallet's credit does not cover the call.", schema.Obj{
			{"wallet", schema.Described(schema.String, "The wallet's ledger id: CAIP-2 namespace and address, eip155:0x… (lower case) or solana:<base58>.")}, {"balanceMicroUsd", schema.Integer}, {"priceMicroUsd", schema.Count}, {"covered", schema.Bool}, {"message", schema.String},
		})},
		{"charged", schema.Const(false)},
	}, "x402Version", "error", "resource", "accepts", "message", "price", "charged")}
	// rateLimitedSchema is the body of a 429.
	rateLimitedSchema = schema.Named{Name: "RateLimited", Schema: schema.Object("429 of unpaid calls over the per-IP limit.", schema.Obj{
		{"error", schema.Const("rate_limited")}, {"message", schema.String}, {"charged", schema.Const(false)},
	})}
)

// Responses are the responses every paid route adds: the
// 402 with its PAYMENT-REQUIRED (and, after a failed settlement,
// PAYMENT-RESPONSE) header, and the 429 of unpaid calls over the per-IP
// limit.
func Responses() []api.Response {
	b64 := schema.Obj{{"type", "string"}, {"pattern", "^[A-Za-z0-9+/]*={0,2}$"}}
	return []api.Response{
		{Status: fiber.StatusPaymentRequired, Desc: "Payment required (x402 v2), or the offered payment, API key or sign-in proof was refused " +
			"(the reason is in error). The call costs x-price-usd USD; nothing was charged.",
			Headers: schema.Obj{
				{"PAYMENT-REQUIRED", schema.Obj{{"description", "Standard base64 of the x402 v2 PaymentRequired JSON."}, {"required", true}, {"schema", b64}}},
				{"PAYMENT-RESPONSE", schema.Obj{{"description", "After a failed settlement: base64 of the SettlementResponse with success false."}, {"required", false}, {"schema", b64}}},
			},
			Schema: QuoteSchema},
		{Status: fiber.StatusTooManyRequests, Desc: "Too many unpaid calls from this address; retry after Retry-After seconds or pay.",
			Headers: schema.Obj{{"Retry-After", schema.Obj{{"schema", schema.Integer}}}},
			Schema:  rateLimitedSchema},
	}
}
