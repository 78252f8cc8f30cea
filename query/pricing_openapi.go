package query

// OpenAPI description of the pricing routes, and of the 402 every paid
// route answers (paymentRequiredResponses, used by operation in openapi.go).

func init() {
	registerSchema("PaymentRequirements", objectRequiring("One way to pay (x402 v2 accepts entry).", obj{
		{"scheme", tConst("exact")},
		{"network", described(tString, "CAIP-2 network, e.g. eip155:8453.")},
		{"amount", described(obj{{"type", "string"}, {"pattern", "^[0-9]+$"}}, "Atomic units of the asset (USDC: micro-USD), equal to the route price.")},
		{"asset", described(tString, "Token contract (EVM) or mint (Solana).")},
		{"payTo", described(tString, "Receiving address.")},
		{"maxTimeoutSeconds", tCount},
		{"extra", obj{{"description", "EIP-712 domain name and version of the token (EVM), or feePayer (Solana)."}, {"type", "object"}}},
	}, "scheme", "network", "amount", "asset", "payTo", "maxTimeoutSeconds"))
	registerSchema("PaymentRequired", objectRequiring("402 body: the x402 v2 PaymentRequired of the PAYMENT-REQUIRED header plus the price in USD.", obj{
		{"x402Version", tConst(2)},
		{"error", described(tString, "Why the call was not served: payment_required, an x402 reason (e.g. invalid_exact_evm_payload_signature, insufficient_funds), invalid_api_key, insufficient_credit or a siwx_ reason.")},
		{"resource", object("The resource.", obj{{"url", tString}, {"description", tString}, {"mimeType", tString}})},
		{"accepts", tArray(ref("PaymentRequirements"))},
		{"extensions", obj{{"description", "sign-in-with-x: the CAIP-122 challenge (info, supportedChains, schema); supportedChains lists every configured eip155 network (type eip191: SIWE, EIP-1271) and solana network (type ed25519: SIWS, base58 address and signature); absent on x402-only routes."}, {"type", "object"}}},
		{"message", tString},
		{"price", object("The price of the call.", obj{{"usd", tString}, {"microUsd", tCount}})},
		{"signIn", object("Present when a signed-in wallet's credit does not cover the call.", obj{
			{"wallet", described(tString, "The wallet's ledger id: CAIP-2 namespace and address, eip155:0x… (lower case) or solana:<base58>.")}, {"balanceMicroUsd", tInteger}, {"priceMicroUsd", tCount}, {"covered", tBool}, {"message", tString},
		})},
		{"charged", tConst(false)},
	}, "x402Version", "error", "resource", "accepts", "message", "price", "charged"))
	priceEntrySchema := object("A route and its price.", obj{
		{"method", tString}, {"path", tString}, {"priceUsd", tString}, {"priceMicroUsd", tCount},
		{"assets", tArray(tEnum("USDC", "EURC"))}, {"x402Only", tBool}, {"summary", tString},
	})
	registerSchema("PriceEntry", priceEntrySchema)
	networkSchema := object("A configured payment network and asset.", obj{
		{"network", tString}, {"asset", tString}, {"symbol", tString}, {"payTo", tString},
	})
	registerSchema("PaymentNetwork", networkSchema)
	registerSchema("Pricing", object("Body of GET /pricing.", obj{
		{"currency", tConst("USD")},
		{"unit", tString},
		{"routes", tArray(ref("PriceEntry"))},
		{"networks", tArray(ref("PaymentNetwork"))},
		{"paymentMethods", tArray(tEnum(MethodX402, MethodCredits, MethodWallet))},
	}))
	registerSchema("Transparency", object("Body of GET /transparency.", obj{
		{"operator", object("Who runs the service.", obj{{"name", tString}, {"url", tString}, {"securityContact", tString}})},
		{"dataSources", tArray(tString)},
		{"prices", tArray(ref("PriceEntry"))},
		{"networks", tArray(ref("PaymentNetwork"))},
		{"billingPolicy", obj{{"type", "object"}, {"additionalProperties", tString}}},
		{"version", tString},
	}))
	registerSchema("X402Resources", object("Body of GET /.well-known/x402-resources.", obj{
		{"x402Version", tConst(2)},
		{"resources", tArray(object("A paid resource.", obj{
			{"resource", tString}, {"type", tConst("http")}, {"method", tString}, {"path", tString},
			{"description", tString}, {"mimeType", tString}, {"priceUsd", tString}, {"x402Version", tConst(2)},
			{"accepts", tArray(ref("PaymentRequirements"))},
		}))},
	}))
	apiOperations["GET /pricing"] = apiOperation{
		id: "getPricing",
		params: []obj{{
			{"name", "format"}, {"in", "query"}, {"description", "Response format."}, {"required", false},
			{"schema", tEnum("json")},
		}},
		responses: obj{
			{"200", jsonResponse("Every route with its price.", ref("Pricing"))},
			{"400", refResponse("InvalidParameter")},
			{"500", refResponse("Internal")},
		},
	}
	apiOperations["GET /transparency"] = apiOperation{id: "getTransparency", responses: obj{
		{"200", jsonResponse("Operator, data sources, prices and billing policy.", ref("Transparency"))},
		{"500", refResponse("Internal")},
	}}
	apiOperations["GET /.well-known/x402-resources"] = apiOperation{id: "getX402ResourcesWellKnown", responses: obj{
		{"200", jsonResponse("Paid resources with their payment requirements.", ref("X402Resources"))},
		{"500", refResponse("Internal")},
	}}
	apiOperations["GET /x402-resources"] = apiOperation{id: "getX402Resources", responses: obj{
		{"200", jsonResponse("Same as /.well-known/x402-resources.", ref("X402Resources"))},
		{"500", refResponse("Internal")},
	}}
	apiOperations["GET /.well-known/security.txt"] = apiOperation{id: "getSecurityTxt", responses: obj{
		{"200", obj{{"description", "RFC 9116 security.txt."},
			{"content", obj{{"text/plain", obj{{"schema", tString}}}}}}},
		{"500", refResponse("Internal")},
	}}
}

// paymentRequiredResponses are the responses every paid route adds: the
// 402 with its PAYMENT-REQUIRED (and, after a failed settlement,
// PAYMENT-RESPONSE) header, and the 429 of unpaid calls over the per-IP
// limit.
func paymentRequiredResponses() obj {
	b64 := obj{{"type", "string"}, {"pattern", "^[A-Za-z0-9+/]*={0,2}$"}}
	return obj{
		{"402", obj{
			{"description", "Payment required (x402 v2), or the offered payment, API key or sign-in proof was refused " +
				"(the reason is in error). The call costs x-price-usd USD; nothing was charged."},
			{"headers", obj{
				{"PAYMENT-REQUIRED", obj{{"description", "Standard base64 of the x402 v2 PaymentRequired JSON."}, {"required", true}, {"schema", b64}}},
				{"PAYMENT-RESPONSE", obj{{"description", "After a failed settlement: base64 of the SettlementResponse with success false."}, {"required", false}, {"schema", b64}}},
			}},
			{"content", obj{{"application/json", obj{{"schema", ref("PaymentRequired")}}}}},
		}},
		{"429", obj{
			{"description", "Too many unpaid calls from this address; retry after Retry-After seconds or pay."},
			{"headers", obj{{"Retry-After", obj{{"schema", tInteger}}}}},
			{"content", obj{{"application/json", obj{{"schema", ref("RateLimited")}}}}},
		}},
	}
}

func init() {
	registerSchema("RateLimited", object("429 of unpaid calls over the per-IP limit.", obj{
		{"error", tConst("rate_limited")}, {"message", tString}, {"charged", tConst(false)},
	}))
}

// objectRequiring is a closed object schema with props of which only
// required must be present.
func objectRequiring(desc string, props obj, required ...string) obj {
	return obj{{"description", desc}, {"type", "object"}, {"properties", props}, {"required", required}, {"additionalProperties", false}}
}
