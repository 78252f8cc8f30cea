package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/marketintel/mi/query"
	"github.com/marketintel/mi/query/paywall"
	"github.com/marketintel/mi/query/paywall/ledger"
	"github.com/marketintel/mi/query/paywall/x402"
)

// paymentFlags configure the paywall and the ledger of mi run
// (docs/payments.md).
type paymentFlags struct {
	publicURL, payToEVM, payToSolana, solanaFeePayer string
	networks, settlement, facilitatorURL             string
	relayerKeyFile, databaseURL                      string
	operatorName, operatorURL, securityContact       string
	unpaidPerMinute                                  int
	rpc                                              stringList
}

// databaseURLEnv holds the ledger database URL when --database-url is not
// given (a Kubernetes Secret, docs/deploy.md).
const databaseURLEnv = "MI_DATABASE_URL"

// defaultNetworks are the networks quoted by default (spec §5.1).
var defaultNetworks = []string{x402.NetworkBase, x402.NetworkPolygon, x402.NetworkArbitrum, x402.NetworkSolana}

func addPaymentFlags(fs *flag.FlagSet) *paymentFlags {
	p := &paymentFlags{}
	fs.StringVar(&p.publicURL, "public-url", "http://localhost:8080", "public origin of the API (402 resource URLs, sign-in domain)")
	fs.StringVar(&p.payToEVM, "pay-to-evm", "", "0x address receiving x402 payments on EVM networks; empty turns the paywall off (every route free)")
	fs.StringVar(&p.payToSolana, "pay-to-solana", "", "base58 account receiving x402 payments on Solana (settled by the facilitator)")
	fs.StringVar(&p.solanaFeePayer, "solana-fee-payer", "", "the facilitator's Solana fee payer (extra.feePayer of the quote)")
	fs.StringVar(&p.networks, "pay-networks", strings.Join(defaultNetworks, ","), "comma-separated CAIP-2 networks quoted in 402s")
	fs.StringVar(&p.settlement, "settlement", "facilitator", "settlement backend of EVM payments: facilitator or relayer (Solana always uses the facilitator)")
	fs.StringVar(&p.facilitatorURL, "facilitator-url", "https://x402.org/facilitator", "x402 facilitator base URL (/verify, /settle); an auth header may be given in MI_FACILITATOR_AUTH as \"Name: value\"")
	fs.StringVar(&p.relayerKeyFile, "relayer-key-file", "", "file holding the hex private key the relayer sends transferWithAuthorization from (settlement=relayer)")
	fs.Var(&p.rpc, "rpc-url", "NETWORK=URL of an EVM JSON-RPC node, repeatable (relayer settlement, EIP-1271 sign-in)")
	fs.StringVar(&p.databaseURL, "database-url", os.Getenv(databaseURLEnv), "ledger database: postgres://… for PostgreSQL; empty uses SQLite in the data directory (default from $"+databaseURLEnv+", so a password stays out of the command line)")
	fs.IntVar(&p.unpaidPerMinute, "unpaid-per-minute", 120, "unpaid requests (bare 402s) allowed per client IP and minute; negative disables the limit")
	fs.StringVar(&p.operatorName, "operator-name", "Market Intelligence Service operator", "operator shown by /transparency")
	fs.StringVar(&p.operatorURL, "operator-url", "", "operator web site shown by /transparency")
	fs.StringVar(&p.securityContact, "security-contact", "mailto:security@localhost", "RFC 9116 Contact of /.well-known/security.txt")
	return p
}

// build opens the ledger and returns it with the paywall; the paywall is
// nil (every route free) when no payTo address is configured.
func (p *paymentFlags) build(ctx context.Context, dataDir string, log *slog.Logger) (*ledger.SQL, query.Paywall, error) {
	store, err := openLedger(ctx, dataDir, p.databaseURL) // credits.go
	if err != nil {
		return nil, nil, err
	}
	if p.payToEVM == "" && p.payToSolana == "" {
		log.Warn("payments are off: every route is free; set --pay-to-evm to turn the paywall on")
		return store, nil, nil
	}
	pw, err := p.paywall(ctx, store, log)
	if err != nil {
		_ = store.Close()
		return nil, nil, err
	}
	log.Info("paywall on", "config", pw.String())
	return store, pw, nil
}

func (p *paymentFlags) paywall(ctx context.Context, store *ledger.SQL, log *slog.Logger) (*paywall.X402Paywall, error) {
	if p.payToEVM != "" && !common.IsHexAddress(p.payToEVM) {
		return nil, fmt.Errorf("cannot use --pay-to-evm %q: not a 0x address", p.payToEVM)
	}
	rpcs := map[string]string{}
	for _, r := range p.rpc {
		n, u, ok := strings.Cut(r, "=")
		if !ok || !x402.IsEVM(n) {
			return nil, fmt.Errorf("cannot use --rpc-url %q: accepted form is eip155:N=URL", r)
		}
		rpcs[n] = u
	}
	clients := map[string]*ethclient.Client{}
	for n, u := range rpcs {
		c, err := ethclient.DialContext(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("cannot connect to the RPC node of %s: %w", n, err)
		}
		clients[n] = c
	}
	var offers []x402.Offer
	for _, n := range strings.Split(p.networks, ",") {
		n = strings.TrimSpace(n)
		if n == "solana" {
			n = x402.NetworkSolana
		}
		assets, ok := x402.KnownAssets[n]
		if !ok {
			return nil, fmt.Errorf("cannot use --pay-networks: unknown network %q; accepted values are %s", n, strings.Join(knownNetworks(), ", "))
		}
		payTo, feePayer := p.payToEVM, ""
		if x402.IsSolana(n) {
			payTo, feePayer = p.payToSolana, p.solanaFeePayer
		}
		if payTo == "" {
			log.Warn("network not quoted: no payTo address for it", "network", n)
			continue
		}
		for _, a := range assets {
			offers = append(offers, x402.Offer{Network: n, Asset: a, PayTo: payTo, FeePayer: feePayer})
		}
	}
	facilitator := &x402.Facilitator{URL: p.facilitatorURL}
	if h := os.Getenv("MI_FACILITATOR_AUTH"); h != "" {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return nil, errors.New("cannot use MI_FACILITATOR_AUTH: accepted form is \"Header-Name: value\"")
		}
		facilitator.Headers = map[string]string{strings.TrimSpace(k): strings.TrimSpace(v)}
	}
	router := &x402.Router{ByNetwork: map[string]x402.Settler{}, Default: facilitator}
	switch p.settlement {
	case "facilitator":
	case "relayer":
		raw, err := os.ReadFile(p.relayerKeyFile)
		if err != nil {
			return nil, fmt.Errorf("cannot read --relayer-key-file: %w", err)
		}
		key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(string(raw)), "0x"))
		if err != nil {
			return nil, errors.New("cannot use --relayer-key-file: it does not hold a hex secp256k1 private key")
		}
		chains := map[string]x402.ChainBackend{}
		for n, c := range clients {
			chains[n] = c
		}
		relayer := x402.NewRelayer(key, chains)
		for n := range chains {
			router.ByNetwork[n] = relayer
		}
		for _, o := range offers {
			if x402.IsEVM(o.Network) && chains[o.Network] == nil {
				return nil, fmt.Errorf("cannot settle %s with the relayer: give --rpc-url %s=URL", o.Network, o.Network)
			}
		}
	default:
		return nil, fmt.Errorf("cannot use --settlement %q: accepted values are facilitator, relayer", p.settlement)
	}
	callers := map[string]ethereum.ContractCaller{}
	for n, c := range clients {
		callers[n] = c
	}
	return paywall.New(paywall.Config{
		Store: store, Offers: offers, Settler: router, PublicURL: p.publicURL,
		SignInCallers: callers, UnpaidPerMinute: p.unpaidPerMinute, Logger: log,
		Operator: paywall.Operator{Name: p.operatorName, URL: p.operatorURL, SecurityContact: p.securityContact},
	})
}

func knownNetworks() []string {
	var out []string
	for n := range x402.KnownAssets {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
