// Package symbols is the registry that maps venue symbols, on-chain tokens
// and what users type to the one canonical symbol the pipeline keys
// everything by, and that says which asset class each covered symbol
// belongs to. Canonical symbols: a crypto asset is <BASE>USD ("BTCUSD"), a
// US stock or ETF is its bare ticker ("TSLA", "SPY"), a 1,000-coin perp is
// K<COIN>USD. Every part of the service — sources, simulator, routes,
// coverage, preview, CLI — names a symbol this way and resolves input with
// Canonical or Resolve.
//
// The rules, in the order Normalize applies them:
//
//   - A pair quoted in a US-dollar stablecoin (or in USD itself) normalizes to
//     <BASE>USD: BTCUSDT, BTC-USD, BTC/USDC and BTCUSD all become BTCUSD;
//     for a covered US stock or ETF, to the ticker: TSLA-USD, TSLAUSD,
//     TSLAx/USD become TSLA.
//   - Base aliases are folded: XBT and WBTC are BTC, WETH is ETH, renamed
//     assets resolve to their current name (RNDR is RENDER, MATIC is POL),
//     tokenized equities' venue spellings (TSLAx, TSLAon) are the stock
//     ticker.
//   - A pair quoted in anything else (XRPETH, ADABTC, DASH-BTC, NMR-EUR) is
//     NOT normalized: the pipeline's prices are in USD and the registry never
//     converts through a second market.
//   - Hyperliquid names perps by the coin alone ("BTC"), quoted in USDC:
//     venue "hyperliquid" maps a bare coin to <COIN>USD. Its 1,000-unit
//     contracts (kPEPE) and Binance's (1000PEPEUSDT) map to K<COIN>USD, a
//     separate perp-only symbol, because their price is per 1,000 coins.
//   - Dated futures (BTCUSD_240927) are not normalized; perpetuals are
//     (BTCUSD_PERP, BTC-USDT-PERP).
//
// Tokens are identified by (chain, address), never by ticker: two tokens with
// the same ticker on different chains or at different addresses are different
// entries, and an address the registry does not list is unknown even if its
// ticker is familiar.
package symbols

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// AssetClass groups normalized symbols by what they represent.
type AssetClass string

// Asset classes.
const (
	// Crypto is a crypto asset traded spot (and usually also as perps).
	Crypto AssetClass = "crypto"
	// USEquity is a tokenized US stock or ETF, traded 24/7 on chains and
	// venues while its home market keeps US hours.
	USEquity AssetClass = "us_equity"
	// PerpOnly is an instrument that exists only as a perpetual contract,
	// such as the 1,000-coin contracts kPEPE / 1000PEPEUSDT.
	PerpOnly AssetClass = "perp_only"
)

// Asset is one covered normalized symbol.
type Asset struct {
	// Symbol is the canonical symbol, e.g. "BTCUSD", "TSLA".
	Symbol string
	// Class is the asset class.
	Class AssetClass
	// Name is a human-readable name, e.g. "Bitcoin".
	Name string
	// Aliases are the other names Canonical and Resolve accept for the
	// asset besides venue spellings, sorted: a renamed asset's former
	// symbol ("RNDRUSD" for RENDERUSD), the USD pair of a stock
	// ("TSLAUSD" for TSLA), a crypto asset's bare base ("BTC").
	Aliases []string
}

// Token is one ERC-20 (or similar) token, identified by chain and address.
type Token struct {
	// Chain is the chain name as the pipeline spells it: "ethereum", "base".
	Chain string
	// Address is the contract address in lower case with the 0x prefix, or,
	// on Solana, the base58 mint (case-sensitive).
	Address string
	// Ticker is the token's own symbol() as deployed, e.g. "WETH".
	Ticker string
	// Decimals is the token's decimals(): amounts on chain are integers in
	// units of 10^-Decimals tokens.
	Decimals int
	// Symbol is the canonical symbol of the token's asset ("ETHUSD" for
	// WETH, "BTCUSD" for WBTC, "TSLA" for TSLAx), or "USD" for a US-dollar
	// stablecoin.
	Symbol string
}

// USD is the Symbol of every US-dollar stablecoin token.
const USD = "USD"

// stableQuotes are the quote currencies treated as US dollars, longest first
// so that suffix matching prefers FDUSD over USD.
var stableQuotes = []string{"FDUSD", "PYUSD", "RLUSD", "USDT", "USDC", "BUSD", "USDS", "USDE", "DAI", "USD"}

// baseAliases fold venue spellings of a base asset, and former tickers of
// renamed assets, into its current ticker.
var baseAliases = map[string]string{
	"XBT":   "BTC",
	"WBTC":  "BTC",
	"CBBTC": "BTC",
	"WETH":  "ETH",
	// Renamed assets (migrated one to one): both names are accepted, the
	// current one is canonical.
	"RNDR":  "RENDER",
	"MATIC": "POL",
}

// kContracts maps the bases of 1,000-coin perp contracts to their symbols.
var kContracts = map[string]string{
	"PEPE":  "KPEPEUSD",
	"SHIB":  "KSHIBUSD",
	"BONK":  "KBONKUSD",
	"FLOKI": "KFLOKIUSD",
}

// assetTable lists the covered assets by canonical symbol.
var assetTable = []struct {
	symbol string
	class  AssetClass
	name   string
}{
	// Crypto.
	{"AAVEUSD", Crypto, "Aave"},
	{"ADAUSD", Crypto, "Cardano"},
	{"ALGOUSD", Crypto, "Algorand"},
	{"APTUSD", Crypto, "Aptos"},
	{"ARBUSD", Crypto, "Arbitrum"},
	{"ATOMUSD", Crypto, "Cosmos"},
	{"AVAXUSD", Crypto, "Avalanche"},
	{"BCHUSD", Crypto, "Bitcoin Cash"},
	{"BNBUSD", Crypto, "BNB"},
	{"BONKUSD", Crypto, "Bonk"},
	{"BTCUSD", Crypto, "Bitcoin"},
	{"CRVUSD", Crypto, "Curve DAO"},
	{"DOGEUSD", Crypto, "Dogecoin"},
	{"DOTUSD", Crypto, "Polkadot"},
	{"ENAUSD", Crypto, "Ethena"},
	{"ETCUSD", Crypto, "Ethereum Classic"},
	{"ETHUSD", Crypto, "Ether"},
	{"FILUSD", Crypto, "Filecoin"},
	{"HBARUSD", Crypto, "Hedera"},
	{"HYPEUSD", Crypto, "Hyperliquid"},
	{"ICPUSD", Crypto, "Internet Computer"},
	{"IMXUSD", Crypto, "Immutable"},
	{"INJUSD", Crypto, "Injective"},
	{"JUPUSD", Crypto, "Jupiter"},
	{"LDOUSD", Crypto, "Lido DAO"},
	{"LINKUSD", Crypto, "Chainlink"},
	{"LTCUSD", Crypto, "Litecoin"},
	{"MKRUSD", Crypto, "Maker"},
	{"NEARUSD", Crypto, "NEAR Protocol"},
	{"ONDOUSD", Crypto, "Ondo"},
	{"OPUSD", Crypto, "Optimism"},
	{"PEPEUSD", Crypto, "Pepe"},
	{"POLUSD", Crypto, "Polygon Ecosystem Token (formerly MATIC)"},
	{"PYTHUSD", Crypto, "Pyth Network"},
	{"RENDERUSD", Crypto, "Render (formerly RNDR)"},
	{"SEIUSD", Crypto, "Sei"},
	{"SHIBUSD", Crypto, "Shiba Inu"},
	{"SOLUSD", Crypto, "Solana"},
	{"STXUSD", Crypto, "Stacks"},
	{"SUIUSD", Crypto, "Sui"},
	{"TAOUSD", Crypto, "Bittensor"},
	{"TIAUSD", Crypto, "Celestia"},
	{"TONUSD", Crypto, "Toncoin"},
	{"TRXUSD", Crypto, "TRON"},
	{"UNIUSD", Crypto, "Uniswap"},
	{"WIFUSD", Crypto, "dogwifhat"},
	{"WLDUSD", Crypto, "Worldcoin"},
	{"XLMUSD", Crypto, "Stellar"},
	{"XRPUSD", Crypto, "XRP"},
	// Tokenized US equities and ETFs.
	{"AAPL", USEquity, "Apple Inc."},
	{"AMZN", USEquity, "Amazon.com Inc."},
	{"COIN", USEquity, "Coinbase Global Inc."},
	{"GOOGL", USEquity, "Alphabet Inc. Class A"},
	{"HOOD", USEquity, "Robinhood Markets Inc."},
	{"META", USEquity, "Meta Platforms Inc."},
	{"MSFT", USEquity, "Microsoft Corp."},
	{"MSTR", USEquity, "Strategy Inc. (MicroStrategy)"},
	{"NVDA", USEquity, "NVIDIA Corp."},
	{"QQQ", USEquity, "Invesco QQQ Trust (ETF)"},
	{"SPY", USEquity, "SPDR S&P 500 ETF Trust"},
	{"TSLA", USEquity, "Tesla Inc."},
	// TONX shares its first letters with the crypto TON: the stock is
	// TONX, the coin TONUSD, and the xStock TONXx normalizes to the stock.
	{"TONX", USEquity, "TON Strategy Co. (TONX)"},
	// Perp-only 1,000-coin contracts (price per 1,000 coins).
	{"KBONKUSD", PerpOnly, "1,000 BONK perpetual"},
	{"KFLOKIUSD", PerpOnly, "1,000 FLOKI perpetual"},
	{"KPEPEUSD", PerpOnly, "1,000 PEPE perpetual"},
	{"KSHIBUSD", PerpOnly, "1,000 SHIB perpetual"},
}

// tokens lists the known tokens. Ethereum mainnet addresses and decimals
// match the Uniswap default token list (src/tokens/mainnet.json, v22.10.0).
var tokens = []Token{
	{"ethereum", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "USDC", 6, USD},
	{"ethereum", "0xdac17f958d2ee523a2206206994597c13d831ec7", "USDT", 6, USD},
	{"ethereum", "0x6b175474e89094c44da98b954eedeac495271d0f", "DAI", 18, USD},
	{"ethereum", "0x6c3ea9036406852006290770bedfcaba0e23a0e8", "PYUSD", 6, USD},
	{"ethereum", "0xdc035d45d973e3ec169d2276ddab16f1e407384f", "USDS", 18, USD},
	{"ethereum", "0x8292bb45bf1ee4d140127049757c2e0ff06317ed", "RLUSD", 18, USD},
	{"ethereum", "0x4fabb145d64652a948d72533023f6e7a623c7c53", "BUSD", 18, USD},
	{"ethereum", "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "WETH", 18, "ETHUSD"},
	{"ethereum", "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "WBTC", 8, "BTCUSD"},
	{"ethereum", "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf", "cbBTC", 8, "BTCUSD"},
	{"ethereum", "0x514910771af9ca656af840dff83e8264ecf986ca", "LINK", 18, "LINKUSD"},
	{"ethereum", "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", "UNI", 18, "UNIUSD"},
	{"ethereum", "0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9", "AAVE", 18, "AAVEUSD"},
	{"ethereum", "0x6982508145454ce325ddbe47a25d4ec3d2311933", "PEPE", 18, "PEPEUSD"},
	{"ethereum", "0x95ad61b0a150d79219dcf64e1e6cc01f0b64c4ce", "SHIB", 18, "SHIBUSD"},
	{"ethereum", "0x5a98fcbea516cf06857215779fd812ca3bef1b32", "LDO", 18, "LDOUSD"},
	{"ethereum", "0xfaba6f8e4a5e8ab82f62fe7c39859fa577269be3", "ONDO", 18, "ONDOUSD"},
	{"ethereum", "0x57e114b691db790c35207b2e685d4a43181e6061", "ENA", 18, "ENAUSD"},
	{"base", "0x4200000000000000000000000000000000000006", "WETH", 18, "ETHUSD"},
	{"base", "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", "USDC", 6, USD},
	{"base", "0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf", "cbBTC", 8, "BTCUSD"},
	{"arbitrum", "0x82af49447d8a07e3bd95bd0d56f35241523fbab1", "WETH", 18, "ETHUSD"},
	{"arbitrum", "0xaf88d065e77c8cc2239327c5edb3a432268e5831", "USDC", 6, USD},
	{"arbitrum", "0x2f2a2543b76a4166549f7aab2e75bef0aefc5b0f", "WBTC", 8, "BTCUSD"},
	{"optimism", "0x4200000000000000000000000000000000000006", "WETH", 18, "ETHUSD"},
	{"optimism", "0x0b2c639c533813f4aa9d7837caf62653d097ff85", "USDC", 6, USD},
	// Solana SPL mints: base58 addresses, case-sensitive.
	{"solana", "So11111111111111111111111111111111111111112", "SOL", 9, "SOLUSD"},
	{"solana", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", "USDC", 6, USD},
	{"solana", "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB", "USDT", 6, USD},
	// xStocks (Backed Finance) tokenized stocks and ETFs on Solana
	// (Token-2022 mints, 8 decimals). Each mint is copied verbatim from a
	// published list and cross-checked against a second one; the sources are
	// cited per entry in docs/symbols.md.
	{"solana", "XsbEhLAtcf6HdfpFZ5xEMdqW8nfAvcsP5bdudRLJzJp", "AAPLx", 8, "AAPL"},
	{"solana", "Xs3eBt7uRfJX8QUs4suhyU8p2M6DoUDrJyWBa8LLZsg", "AMZNx", 8, "AMZN"},
	{"solana", "Xs7ZdzSHLU9ftNJsii5fCeJhoRWSC32SQGzGQtePxNu", "COINx", 8, "COIN"},
	{"solana", "XsCPL9dNWBMvFtTmwcCA5v3xWPSMEBCszbQdiLLq6aN", "GOOGLx", 8, "GOOGL"},
	{"solana", "XsvNBAYkrDRNhA7wPHQfX3ZUXZyZLdnCQDfHZ56bzpg", "HOODx", 8, "HOOD"},
	{"solana", "Xsa62P5mvPszXL1krVUnU5ar38bBSVcWAB6fmPCo5Zu", "METAx", 8, "META"},
	{"solana", "XspzcW1PRtgf6Wj92HCiZdjzKCyFekVD8P5Ueh3dRMX", "MSFTx", 8, "MSFT"},
	{"solana", "XsP7xzNPvEHS1m6qfanPUGjNmdnmsLKEoNAnHjdxxyZ", "MSTRx", 8, "MSTR"},
	{"solana", "Xsc9qvGR1efVDFGLrVsmkzv3qi45LTBjeUKSPmx9qEh", "NVDAx", 8, "NVDA"},
	{"solana", "Xs8S1uUs1zvS2p7iwtsG3b6fkhpvmwz4GYU3gWAmWHZ", "QQQx", 8, "QQQ"},
	{"solana", "XsoCS1TfEyfFhfvj8EtZ528L3CaKBDBRqRapnBbDF2W", "SPYx", 8, "SPY"},
	{"solana", "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB", "TSLAx", 8, "TSLA"},
	{"solana", "XscE4GUcsYhcyZu5ATiGUMmhxYa1D5fwbpJw4K6K4dp", "TONXx", 8, "TONX"},
}

var (
	assets        []Asset // sorted by symbol
	assetBySymbol = map[string]Asset{}
	tokenByKey    = map[string]Token{}
	equities      = map[string]bool{} // tickers of the USEquity assets
	// aliasOf maps each alias (upper case) to its canonical symbol.
	aliasOf = map[string]string{}
)

func init() {
	for _, e := range assetTable {
		if _, dup := assetBySymbol[e.symbol]; dup {
			panic("BUG: duplicate asset " + e.symbol)
		}
		assetBySymbol[e.symbol] = Asset{Symbol: e.symbol, Class: e.class, Name: e.name}
		if e.class == USEquity {
			equities[e.symbol] = true
		}
	}
	alias := func(a, canonical string) {
		if _, isAsset := assetBySymbol[a]; isAsset {
			panic("BUG: alias " + a + " is an asset")
		}
		if prev, dup := aliasOf[a]; dup && prev != canonical {
			panic("BUG: alias " + a + " of both " + prev + " and " + canonical)
		}
		aliasOf[a] = canonical
	}
	for sym, a := range assetBySymbol {
		switch a.Class {
		case USEquity:
			alias(sym+USD, sym)
		case Crypto:
			if b := strings.TrimSuffix(sym, USD); !equities[b] {
				alias(b, sym)
			}
		}
	}
	for from, to := range baseAliases {
		if _, ok := assetBySymbol[to+USD]; ok {
			alias(from+USD, to+USD)
			if !equities[from] {
				alias(from, to+USD)
			}
		}
	}
	for a, canonical := range aliasOf {
		x := assetBySymbol[canonical]
		x.Aliases = append(x.Aliases, a)
		assetBySymbol[canonical] = x
	}
	for _, a := range assetBySymbol {
		sort.Strings(a.Aliases)
		assets = append(assets, a)
	}
	sort.Slice(assets, func(i, j int) bool { return assets[i].Symbol < assets[j].Symbol })
	for _, t := range tokens {
		k := tokenKey(t.Chain, t.Address)
		if _, dup := tokenByKey[k]; dup {
			panic("BUG: duplicate token " + k)
		}
		if t.Chain == "solana" {
			if len(t.Address) < 32 || len(t.Address) > 44 || !isAlnum(t.Address) {
				panic("BUG: Solana mint not base58: " + t.Address)
			}
		} else if t.Address != strings.ToLower(t.Address) || len(t.Address) != 42 {
			panic("BUG: token address not lower-case 20-byte hex: " + t.Address)
		}
		tokenByKey[k] = t
	}
}

// tokenKey is the map key of a token. EVM addresses are hex and match
// case-insensitively; Solana addresses are base58, where case matters.
func tokenKey(chain, address string) string {
	chain = strings.ToLower(chain)
	if chain == "solana" {
		return chain + "|" + address
	}
	return chain + "|" + strings.ToLower(address)
}

// LookupToken returns the token at address on chain. An EVM address is
// matched case-insensitively (checksummed or not), a Solana mint exactly; the
// chain must match as the pipeline spells it ("ethereum", "base", "solana"),
// case-insensitively.
func LookupToken(chain, address string) (Token, bool) {
	t, ok := tokenByKey[tokenKey(chain, address)]
	return t, ok
}

// LookupAsset returns the covered asset with the canonical symbol (exact
// match; Resolve accepts anything a user may type).
func LookupAsset(symbol string) (Asset, bool) {
	a, ok := assetBySymbol[symbol]
	return a, ok
}

// Assets returns every covered asset, sorted by symbol. The caller may modify
// the returned slice (not the Aliases it shares).
func Assets() []Asset {
	return append([]Asset(nil), assets...)
}

// ErrUnknownSymbol is wrapped by Resolve's error for input that names no
// covered asset.
var ErrUnknownSymbol = errors.New("unknown symbol")

// Canonical returns the canonical symbol that input names, whatever its
// case: a canonical symbol ("btcusd" → BTCUSD), an alias ("RNDRUSD" →
// RENDERUSD, "TSLAUSD" → TSLA, "eth" → ETHUSD) or a venue spelling
// ("BTC-USDT", "XBT/USD", "TSLAx/USD"). covered says whether the symbol is
// one of Assets; a well-formed USD pair outside them ("SKL-USD" → SKLUSD)
// is canonical but not covered, as Normalize's output is. ok=false means
// input is no symbol at all (empty, malformed, or quoted in another
// currency).
//
// Every place that takes a symbol from outside (routes, CLI flags,
// simulator configuration) calls it, so one name reaches the same data.
func Canonical(input string) (symbol string, covered, ok bool) {
	s := strings.TrimSpace(input)
	if s == "" || len(s) > 48 { // a 40-byte venue symbol plus USD
		return "", false, false
	}
	u := strings.ToUpper(s)
	if _, isAsset := assetBySymbol[u]; isAsset {
		return u, true, true
	}
	if c, isAlias := aliasOf[u]; isAlias {
		return c, true, true
	}
	if b := strings.TrimSuffix(u, USD); b != u && isUpperAlnum(b) {
		// Already in canonical form: not split again, since a base ending
		// in a quote's letters (0B+USD) would split differently (0+BUSD).
		return u, false, true
	}
	if n, norm := Normalize("", s); norm {
		_, covered := assetBySymbol[n]
		return n, covered, true
	}
	return "", false, false
}

// Resolve returns the covered asset input names (see Canonical), or an
// error wrapping ErrUnknownSymbol that quotes the input and says where the
// accepted symbols are listed.
func Resolve(input string) (Asset, error) {
	sym, covered, ok := Canonical(input)
	switch {
	case !ok:
		return Asset{}, fmt.Errorf("%w %q: not a symbol; give a covered symbol such as BTCUSD or TSLA (mi symbols lists them, with their aliases)", ErrUnknownSymbol, input)
	case !covered:
		return Asset{}, fmt.Errorf("%w %q (%s): not covered; mi symbols lists the covered symbols and their aliases", ErrUnknownSymbol, input, sym)
	}
	return assetBySymbol[sym], nil
}

// Tokens returns every known token, sorted by chain then address. The caller
// may modify the returned slice.
func Tokens() []Token {
	out := append([]Token(nil), tokens...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Chain != out[j].Chain {
			return out[i].Chain < out[j].Chain
		}
		return out[i].Address < out[j].Address
	})
	return out
}

// IsStable reports whether a currency code is a US-dollar stablecoin or USD
// itself (case-insensitive).
func IsStable(code string) bool {
	code = strings.ToUpper(code)
	for _, q := range stableQuotes {
		if q == code {
			return true
		}
	}
	return false
}

// Normalize maps a venue's own symbol to the canonical symbol. It reports
// ok=false when the symbol is not quoted in US dollars (or a USD stablecoin),
// when it is a dated future, or when it cannot be parsed. The symbol need not
// be covered by Assets: any well-formed USD-quoted pair normalizes, so that
// new listings flow through; LookupAsset says whether a symbol is covered.
//
// The venue matters only for venues that name instruments without a quote
// ("hyperliquid": "BTC" is the BTC-USDC perp); any other venue, including an
// empty one, gets the general rules, which also accept an already-normalized
// symbol ("BTCUSD").
func Normalize(venue, venueSymbol string) (symbol string, ok bool) {
	s := strings.TrimSpace(venueSymbol)
	if s == "" || len(s) > 40 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return "", false // symbols are ASCII; upper-casing must keep lengths
		}
	}
	if venue == "hyperliquid" && !strings.ContainsAny(s, "/-_@:") {
		// A perp coin, quoted in USDC.
		if len(s) > 1 && s[0] == 'k' && isUpperAlnum(s[1:]) {
			return kContracts[s[1:]], kContracts[s[1:]] != ""
		}
		if !isAlnum(s) {
			return "", false
		}
		return finish(s)
	}
	var b string
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '-' || r == '_' })
	if len(parts) != strings.Count(s, "/")+strings.Count(s, "-")+strings.Count(s, "_")+1 {
		return "", false // empty part: leading, trailing or doubled separator
	}
	if n := len(parts); n > 1 && (strings.EqualFold(parts[n-1], "PERP") || strings.EqualFold(parts[n-1], "SWAP")) {
		parts = parts[:n-1] // perpetual suffix: BTCUSD_PERP, BTC-USDT-PERP
	}
	switch len(parts) {
	case 1:
		bb, _, ok := splitConcat(strings.ToUpper(parts[0]))
		if !ok {
			if u := strings.ToUpper(parts[0]); equities[u] {
				return u, true // a canonical stock ticker maps to itself
			}
			return "", false
		}
		// Keep the original case of the base for equity-token suffixes.
		b = parts[0][:len(bb)]
	case 2:
		if !IsStable(parts[1]) {
			return "", false // quoted in a non-USD currency, or a dated future
		}
		b = parts[0]
	default:
		return "", false
	}
	return finish(b)
}

// finish maps a base to its normalized symbol, folding aliases.
func finish(b string) (string, bool) {
	if b == "" || !isAlnum(b) {
		return "", false
	}
	// Tokenized equities: xStocks (TSLAx) and Ondo Global Markets (TSLAon),
	// and the ticker itself: the canonical symbol is the ticker.
	for _, suf := range []string{"x", "on"} {
		if e := strings.TrimSuffix(b, suf); e != b && equities[strings.ToUpper(e)] {
			return strings.ToUpper(e), true
		}
	}
	u := strings.ToUpper(b)
	if equities[u] {
		return u, true
	}
	if strings.HasPrefix(u, "1000") && kContracts[u[4:]] != "" {
		return kContracts[u[4:]], true
	}
	return base(u) + USD, true
}

// base folds aliases of an upper- or mixed-case base.
func base(b string) string {
	u := strings.ToUpper(b)
	if a, ok := baseAliases[u]; ok {
		return a
	}
	return u
}

// splitConcat splits an upper-case concatenated pair (BTCUSDT) at its
// stablecoin quote. When several quotes fit (ARBUSD: AR+BUSD or ARB+USD),
// a split whose base is a covered asset wins, then the longest quote. It fails
// when no stablecoin suffix leaves a base.
func splitConcat(s string) (b, q string, ok bool) {
	for _, cand := range stableQuotes {
		if len(s) <= len(cand) || !strings.HasSuffix(s, cand) {
			continue
		}
		cb := s[:len(s)-len(cand)]
		if _, covered := assetBySymbol[base(cb)+USD]; covered || equities[cb] {
			return cb, cand, true
		}
		if !ok {
			b, q, ok = cb, cand, true
		}
	}
	return b, q, ok
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func isUpperAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}
