package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/marketintel/mi/query/paywall/checkout"
	"github.com/marketintel/mi/query/paywall/ledger"
)

// The environment variables holding the Stripe secrets (docs/checkout.md).
// A file flag wins over its variable; neither is ever logged.
const (
	stripeKeyEnv     = "MI_STRIPE_SECRET_KEY"
	stripeWebhookEnv = "MI_STRIPE_WEBHOOK_SECRET"
)

// checkoutFlags configure card checkout in mi run (docs/checkout.md). The
// secrets are read from files or the environment, not from flag values,
// so that they never appear in a process listing.
type checkoutFlags struct {
	keyFile, webhookFile, apiURL string
}

func addCheckoutFlags(fs *flag.FlagSet) *checkoutFlags {
	c := &checkoutFlags{}
	fs.StringVar(&c.keyFile, "stripe-secret-key-file", "", "file holding the Stripe secret key (sk_test_…, sk_live_… or rk_…) that turns card checkout on; default: $"+stripeKeyEnv+"; neither set leaves the checkout routes off (404)")
	fs.StringVar(&c.webhookFile, "stripe-webhook-secret-file", "", "file holding the signing secret (whsec_…) of the Stripe webhook endpoint /api/v1/credits/checkout/webhook; default: $"+stripeWebhookEnv+"; neither set turns the webhook off (payments are learnt when the buyer returns)")
	fs.StringVar(&c.apiURL, "stripe-api-url", "", "Stripe API origin; empty is https://api.stripe.com (a local stripe-mock for tests and demos)")
	return c
}

// secret returns the secret in file, or else in the environment variable
// env, trimmed.
func secret(file, env string) (string, error) {
	if file == "" {
		return strings.TrimSpace(os.Getenv(env)), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("cannot read the Stripe secret file: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// build returns card checkout, off when no secret key is configured.
// publicURL is the origin Stripe sends the buyer back to.
func (c *checkoutFlags) build(store *ledger.SQL, publicURL string, log *slog.Logger) (*checkout.Checkout, error) {
	key, err := secret(c.keyFile, stripeKeyEnv)
	if err != nil {
		return nil, err
	}
	hook, err := secret(c.webhookFile, stripeWebhookEnv)
	if err != nil {
		return nil, err
	}
	k, err := checkout.New(checkout.Config{SecretKey: key, WebhookSecret: hook, APIURL: c.apiURL, PublicURL: publicURL,
		Ledger: store, Logger: log})
	if err != nil {
		return nil, err
	}
	log.Info(k.String())
	return k, nil
}
