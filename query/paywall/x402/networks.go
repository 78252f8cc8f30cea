package x402

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// CAIP-2 ids of the networks served by default.
const (
	NetworkBase          = "eip155:8453"
	NetworkPolygon       = "eip155:137"
	NetworkArbitrum      = "eip155:42161"
	NetworkSolana        = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"
	NetworkSolanaDevnet  = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
	NetworkBaseSepolia   = "eip155:84532"
	NetworkSimulatedEVM  = "eip155:1337"
	namespaceEIP155      = "eip155"
	namespaceSolana      = "solana"
	defaultMaxTimeoutSec = 60
)

// Asset is a token a network accepts. For EVM tokens Name and Version are
// the EIP-712 domain of the token contract (the `extra` of the quote).
type Asset struct {
	// Symbol is "USDC" or "EURC".
	Symbol string
	// Address is the token contract (EVM) or mint (Solana).
	Address string
	// Name and Version are the EIP-712 domain name and version (EVM only).
	Name, Version string
	// Decimals of the token; 6 for USDC and EURC, so one atomic unit is one
	// micro-unit of the currency.
	Decimals int
}

// KnownAssets are the default assets per network. Sources: x402 Go SDK
// NetworkConfigs and Circle's contract addresses (docs/payments.md).
var KnownAssets = map[string][]Asset{
	NetworkBase: {
		{Symbol: "USDC", Address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", Name: "USD Coin", Version: "2", Decimals: 6},
		{Symbol: "EURC", Address: "0x60a3E35Cc302bFA44Cb288Bc5a4F316Fdb1adb42", Name: "EURC", Version: "2", Decimals: 6},
	},
	NetworkPolygon: {
		{Symbol: "USDC", Address: "0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359", Name: "USD Coin", Version: "2", Decimals: 6},
	},
	NetworkArbitrum: {
		{Symbol: "USDC", Address: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", Name: "USD Coin", Version: "2", Decimals: 6},
	},
	NetworkBaseSepolia: {
		{Symbol: "USDC", Address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", Name: "USDC", Version: "2", Decimals: 6},
	},
	NetworkSolana: {
		{Symbol: "USDC", Address: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", Decimals: 6},
		{Symbol: "EURC", Address: "HzwqbKZw8HxMN6bF2yFZNrht3c2iXXzpKcFu7uBEDKtr", Decimals: 6},
	},
	NetworkSolanaDevnet: {
		{Symbol: "USDC", Address: "4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU", Decimals: 6},
	},
}

// IsEVM reports whether network is an eip155 network.
func IsEVM(network string) bool { return strings.HasPrefix(network, namespaceEIP155+":") }

// IsSolana reports whether network is a solana network.
func IsSolana(network string) bool { return strings.HasPrefix(network, namespaceSolana+":") }

// ChainID returns the chain id of an eip155 network.
func ChainID(network string) (*big.Int, error) {
	ref, ok := strings.CutPrefix(network, namespaceEIP155+":")
	if !ok {
		return nil, fmt.Errorf("%w: %q is not an eip155 network", ErrInvalidNetwork, network)
	}
	n, err := strconv.ParseUint(ref, 10, 64)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("%w: %q has no numeric chain id", ErrInvalidNetwork, network)
	}
	return new(big.Int).SetUint64(n), nil
}

// Offer is one configured way to get paid: a network, an asset on it and
// the address receiving the money.
type Offer struct {
	Network string
	Asset   Asset
	// PayTo receives the payments: a 0x address on EVM, a base58 account on
	// Solana.
	PayTo string
	// MaxTimeoutSeconds is quoted as maxTimeoutSeconds; 0 means 60.
	MaxTimeoutSeconds int
	// FeePayer is the facilitator's Solana fee payer (extra.feePayer).
	FeePayer string
}

// Requirements returns the accepts entry of o for a price in atomic units.
func (o Offer) Requirements(amount int64) PaymentRequirements {
	t := o.MaxTimeoutSeconds
	if t <= 0 {
		t = defaultMaxTimeoutSec
	}
	r := PaymentRequirements{
		Scheme:            SchemeExact,
		Network:           o.Network,
		Amount:            strconv.FormatInt(amount, 10),
		Asset:             o.Asset.Address,
		PayTo:             o.PayTo,
		MaxTimeoutSeconds: t,
	}
	switch {
	case IsEVM(o.Network):
		r.Extra = map[string]any{"name": o.Asset.Name, "version": o.Asset.Version}
	case o.FeePayer != "":
		r.Extra = map[string]any{"feePayer": o.FeePayer}
	}
	return r
}

// Match finds the requirement in offered that p.Accepted claims to pay. A
// payload for a scheme, network or asset not offered gets the matching
// sentinel; one that names our network and asset but another payTo or
// amount gets ErrRecipientMismatch or ErrValueMismatch.
func Match(p *PaymentPayload, offered []PaymentRequirements) (PaymentRequirements, error) {
	a := p.Accepted
	if a.Scheme != SchemeExact {
		return PaymentRequirements{}, fmt.Errorf("%w: %q", ErrUnsupportedScheme, a.Scheme)
	}
	network := false
	for _, r := range offered {
		if r.Network != a.Network {
			continue
		}
		network = true
		if !strings.EqualFold(r.Asset, a.Asset) {
			continue
		}
		if !strings.EqualFold(r.PayTo, a.PayTo) {
			return PaymentRequirements{}, fmt.Errorf("%w: accepted.payTo", ErrRecipientMismatch)
		}
		if r.Amount != a.Amount {
			return PaymentRequirements{}, fmt.Errorf("%w: accepted.amount %q, price %s", ErrValueMismatch, a.Amount, r.Amount)
		}
		return r, nil
	}
	if !network {
		return PaymentRequirements{}, fmt.Errorf("%w: %q", ErrInvalidNetwork, a.Network)
	}
	return PaymentRequirements{}, fmt.Errorf("%w: asset %q on %s", ErrNoMatch, a.Asset, a.Network)
}
