package api

import "github.com/gofiber/fiber/v3"

// Paywall is the slot the payments room fills: the server wraps the handler
// of every priced operation with it (the validated handler, so parameters
// are checked after payment and before the work), except operations marked
// BilledInside. Wrap is called once per operation, when the server is
// built.
type Paywall interface {
	Wrap(op Operation, next fiber.Handler) fiber.Handler
}

// Payment methods of Payment.Method.
const (
	MethodCredits = "credits"
	MethodWallet  = "wallet"
	MethodX402    = "x402"
)

// Payment is what the paywall tells a handler about how its call is paid.
// The paywall stores it in the request before calling the handler; a free
// route, or a server without a paywall, has none.
type Payment struct {
	// Method is MethodCredits (X-API-Key), MethodWallet (SIGN-IN-WITH-X)
	// or MethodX402.
	Method string
	// Network is the CAIP-2 network of an x402 payment, e.g. "eip155:8453".
	Network string
	// Asset is the token contract (or mint) address of an x402 payment.
	Asset string
	// AssetSymbol is "USDC" or "EURC" for an x402 payment.
	AssetSymbol string
	// Payer is the paying wallet (x402 and wallet methods).
	Payer string
	// APIKey is the plain key sent in X-API-Key (credits method, and on
	// X402Only routes the key to top up). Never log it.
	APIKey string
	// AmountAtomic is the amount paid in the asset's atomic units.
	AmountAtomic int64
}

const paymentLocalsKey = "mi.payment"

// SetPayment stores p in the request for the handler; the paywall calls it.
func SetPayment(c fiber.Ctx, p Payment) { c.Locals(paymentLocalsKey, p) }

// PaymentOf returns the payment of the request, if the paywall stored one.
func PaymentOf(c fiber.Ctx) (Payment, bool) {
	p, ok := c.Locals(paymentLocalsKey).(Payment)
	return p, ok
}
