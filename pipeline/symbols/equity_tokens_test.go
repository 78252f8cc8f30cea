package symbols

import (
	"math/big"
	"strings"
	"testing"
)

// base58Decode decodes a Bitcoin-alphabet base58 string, keeping leading
// zero bytes ('1'), or reports false on a character outside the alphabet.
func base58Decode(s string) ([]byte, bool) {
	const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
	n := new(big.Int)
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(alphabet, s[i])
		if d < 0 {
			return nil, false
		}
		n.Mul(n, big.NewInt(58))
		n.Add(n, big.NewInt(int64(d)))
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	return append(make([]byte, zeros), n.Bytes()...), true
}

func TestBase58Decode(t *testing.T) {
	// The system program is 32 zero bytes; wrapped SOL's mint ends in 1.
	if b, ok := base58Decode("11111111111111111111111111111111"); !ok || len(b) != 32 {
		t.Fatalf("system program: %d bytes, %v", len(b), ok)
	}
	if _, ok := base58Decode("0OIl"); ok {
		t.Fatal("characters outside the alphabet accepted")
	}
}

// Every Solana mint is base58 for exactly 32 bytes.
func TestSolanaMintsAre32Bytes(t *testing.T) {
	n := 0
	for _, tk := range Tokens() {
		if tk.Chain != "solana" {
			continue
		}
		n++
		b, ok := base58Decode(tk.Address)
		if !ok || len(b) != 32 {
			t.Errorf("%s %s: not base58 for 32 bytes (%d bytes, %v)", tk.Ticker, tk.Address, len(b), ok)
		}
	}
	if n < 16 {
		t.Fatalf("only %d Solana mints", n)
	}
}

// The xStocks mints map to their us_equity symbols, by (chain, address)
// only: the same mint on another chain, or spelled in another case, is
// unknown, and a ticker alone identifies nothing.
func TestTokenizedEquities(t *testing.T) {
	n := 0
	for _, tk := range Tokens() {
		if tk.Chain != "solana" || !strings.HasSuffix(tk.Ticker, "x") {
			continue
		}
		n++
		a, ok := LookupAsset(tk.Symbol)
		if !ok || a.Class != USEquity {
			t.Errorf("%s maps to %q (%+v), not a covered us_equity", tk.Ticker, tk.Symbol, a)
		}
		if tk.Decimals != 8 {
			t.Errorf("%s has %d decimals, want 8", tk.Ticker, tk.Decimals)
		}
		// The venue spelling of the ticker folds to the same symbol.
		if s, ok := Normalize("", tk.Ticker+"/USD"); !ok || s != tk.Symbol {
			t.Errorf("Normalize(%s/USD) = %q, want %q", tk.Ticker, s, tk.Symbol)
		}
		if _, ok := LookupToken("ethereum", tk.Address); ok {
			t.Errorf("%s found on ethereum", tk.Ticker)
		}
		if _, ok := LookupToken("solana", strings.ToLower(tk.Address)); ok {
			t.Errorf("%s found in lower case", tk.Ticker)
		}
	}
	if n != 13 {
		t.Fatalf("%d xStocks mints, want 13", n)
	}
	tsla, ok := LookupToken("solana", "XsDoVfqeBukxuZHWhdvWHBhgEHjGNst4MLodqsJHzoB")
	if !ok || tsla.Symbol != "TSLA" || tsla.Ticker != "TSLAx" {
		t.Fatalf("TSLAx mint: %+v, %v", tsla, ok)
	}
}

// A tokenized stock whose ticker collides with a crypto ticker stays a
// separate asset: TON Strategy's xStock (TONXx, stock ticker TONX) and the
// Toncoin (TON) have different symbols and classes, through the mint and
// through venue spellings.
func TestEquityTickerCollision(t *testing.T) {
	stock, ok := LookupToken("solana", "XscE4GUcsYhcyZu5ATiGUMmhxYa1D5fwbpJw4K6K4dp")
	if !ok || stock.Symbol != "TONX" {
		t.Fatalf("TONXx mint: %+v, %v", stock, ok)
	}
	coin, ok := LookupAsset("TONUSD")
	if !ok || coin.Class != Crypto {
		t.Fatalf("TONUSD: %+v, %v", coin, ok)
	}
	if a, _ := LookupAsset(stock.Symbol); a.Class != USEquity {
		t.Fatalf("%s is %q, want us_equity", stock.Symbol, a.Class)
	}
	for in, want := range map[string]string{
		"TONXx/USD": "TONX",   // xStocks spelling of the stock
		"TONX-USD":  "TONX",   // the stock's own ticker
		"TONUSDT":   "TONUSD", // the coin
		"TON/USDC":  "TONUSD",
	} {
		if got, ok := Normalize("", in); !ok || got != want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}
