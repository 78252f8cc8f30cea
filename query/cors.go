package query

import (
	"github.com/gofiber/fiber/v3"
	"github.com/gofiber/fiber/v3/middleware/cors"

	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/x402"
)

// corsMiddleware lets any origin call the API from a browser (there are no
// cookies; payment is the credential), send the payment headers, and read
// the 402 and settlement headers.
func corsMiddleware() fiber.Handler {
	{
		return cors.New(cors.Config{
			AllowOrigins: []string{"*"},
			AllowMethods: []string{fiber.MethodGet, fiber.MethodPost, fiber.MethodDelete, fiber.MethodOptions, fiber.MethodHead},
			AllowHeaders: []string{fiber.HeaderContentType, paywall.HeaderAPIKey, x402.HeaderPaymentSignature, x402.HeaderXPayment,
				x402.HeaderSignInWithX, "X-Alert-Secret", "Mcp-Session-Id"},
			ExposeHeaders: []string{x402.HeaderPaymentRequired, x402.HeaderPaymentResponse, "X-PAYMENT-RESPONSE",
				fiber.HeaderRetryAfter},
			MaxAge: 600,
		})
	}
}
