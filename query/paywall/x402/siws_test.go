package x402

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"
)

// solanaKey is a fixed ed25519 test key (seed 0x01…01); never fund it.
var solanaKey = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{1}, ed25519.SeedSize))

// siwsProof is the x402.md §5 challenge answered by solanaKey on Solana
// mainnet, signed over the SIWS text with the genesis-hash Chain ID.
func siwsProof(tb testing.TB, key ed25519.PrivateKey) *SignInProof {
	tb.Helper()
	p := &SignInProof{
		SignInInfo: SignInInfo{
			Domain: "api.example.com", URI: "https://api.example.com/premium-data", Version: "1",
			Nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890", IssuedAt: "2024-01-15T10:30:00.000Z",
			ExpirationTime: "2024-01-15T10:35:00.000Z", Statement: "Sign in to access premium data",
			Resources: []string{"https://api.example.com/premium-data"},
		},
		ChainID: NetworkSolana, Type: "ed25519",
		Address: encodeBase58(key.Public().(ed25519.PublicKey)),
	}
	signSIWS(tb, p, key, "")
	return p
}

func signSIWS(tb testing.TB, p *SignInProof, key ed25519.PrivateKey, chainID string) {
	tb.Helper()
	msg, err := SIWSMessage(p, chainID)
	if err != nil {
		tb.Fatal(err)
	}
	p.Signature = encodeBase58(ed25519.Sign(key, []byte(msg)))
}

func solanaVerifier() *SignIn {
	return &SignIn{
		Domain: "api.example.com", Origin: "https://api.example.com",
		Chains: []string{NetworkBase, NetworkSolana}, Store: &usedProofs{},
		Now: func() time.Time { return time.Date(2024, 1, 15, 10, 31, 0, 0, time.UTC) },
	}
}

// TestSIWSMessageText pins the text: the SIWE layout with "Solana account"
// and the genesis hash as Chain ID (@x402/extensions formatSIWSMessage).
func TestSIWSMessageText(t *testing.T) {
	p := siwsProof(t, solanaKey)
	msg, err := SIWSMessage(p, "")
	if err != nil {
		t.Fatal(err)
	}
	want := "api.example.com wants you to sign in with your Solana account:\n" + p.Address + "\n\n" +
		"Sign in to access premium data\n\nURI: https://api.example.com/premium-data\nVersion: 1\n" +
		"Chain ID: 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp\nNonce: a1b2c3d4e5f67890a1b2c3d4e5f67890\n" +
		"Issued At: 2024-01-15T10:30:00.000Z\nExpiration Time: 2024-01-15T10:35:00.000Z\n" +
		"Resources:\n- https://api.example.com/premium-data"
	if msg != want {
		t.Fatalf("message\n%q\nwant\n%q", msg, want)
	}
	if _, err := SIWSMessage(&SignInProof{ChainID: "eip155:1"}, ""); !errors.Is(err, ErrInvalidNetwork) {
		t.Fatalf("eip155 chain: %v", err)
	}
}

// TestSIWSVerify: a real ed25519 proof verifies once and names the wallet
// by its solana: id; the cluster-name Chain ID of older clients verifies
// too.
func TestSIWSVerify(t *testing.T) {
	v := solanaVerifier()
	p := siwsProof(t, solanaKey)
	h, err := EncodeHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeSignIn(h)
	if err != nil {
		t.Fatal(err)
	}
	w, err := v.Verify(t.Context(), got)
	if err != nil {
		t.Fatal(err)
	}
	if w != "solana:"+p.Address {
		t.Fatalf("wallet %q", w)
	}
	if _, err := v.Verify(t.Context(), got); !errors.Is(err, ErrSignInUsed) {
		t.Fatalf("replay: %v", err)
	}
	legacy := siwsProof(t, solanaKey)
	legacy.Nonce = "b1b2c3d4e5f67890a1b2c3d4e5f67890"
	signSIWS(t, legacy, solanaKey, "mainnet")
	if _, err := v.Verify(t.Context(), legacy); err != nil {
		t.Fatalf("cluster-name Chain ID: %v", err)
	}
}

// TestSIWSRejects: every refusal has its reason, and none reserves the
// nonce (the valid proof still verifies afterwards).
func TestSIWSRejects(t *testing.T) {
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	v := solanaVerifier()
	f := func(name string, mod func(*SignInProof), now time.Time, want error) {
		t.Helper()
		p := siwsProof(t, solanaKey)
		mod(p)
		vv := *v
		if !now.IsZero() {
			vv.Now = func() time.Time { return now }
		}
		if _, err := vv.Verify(t.Context(), p); !errors.Is(err, want) {
			t.Errorf("%s: err %v, want %v", name, err, want)
		}
	}
	f("expired", func(*SignInProof) {}, time.Date(2024, 1, 15, 10, 35, 1, 0, time.UTC), ErrSignInExpired)
	f("future", func(*SignInProof) {}, time.Date(2024, 1, 15, 10, 29, 0, 0, time.UTC), ErrSignInExpired)
	f("wrong domain", func(p *SignInProof) { p.Domain = "evil.example.com"; signSIWS(t, p, solanaKey, "") }, time.Time{}, ErrSignInDomain)
	f("wrong uri", func(p *SignInProof) { p.URI = "https://evil.example.com/"; signSIWS(t, p, solanaKey, "") }, time.Time{}, ErrSignInDomain)
	f("tampered statement", func(p *SignInProof) { p.Statement = "Sign in to access all data" }, time.Time{}, ErrSignInSignature)
	f("tampered resources", func(p *SignInProof) { p.Resources = nil }, time.Time{}, ErrSignInSignature)
	f("signed by another key", func(p *SignInProof) { signSIWS(t, p, otherKey, "") }, time.Time{}, ErrSignInSignature)
	f("address of another key", func(p *SignInProof) { p.Address = encodeBase58(other) }, time.Time{}, ErrSignInSignature)
	f("signature flipped", func(p *SignInProof) {
		sig, _ := decodeBase58(p.Signature)
		sig[10] ^= 1
		p.Signature = encodeBase58(sig)
	}, time.Time{}, ErrSignInSignature)
	f("signature hex", func(p *SignInProof) { p.Signature = "0x" + strings.Repeat("ab", 64) }, time.Time{}, ErrSignInSignature)
	f("signature short", func(p *SignInProof) { p.Signature = p.Signature[:40] }, time.Time{}, ErrSignInSignature)
	f("address not base58", func(p *SignInProof) { p.Address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" }, time.Time{}, ErrSignInInvalid)
	f("address non-canonical", func(p *SignInProof) { p.Address = "1" + p.Address }, time.Time{}, ErrSignInInvalid)
	f("evm type", func(p *SignInProof) { p.Type = "eip191" }, time.Time{}, ErrSignInUnsupported)
	f("devnet not offered", func(p *SignInProof) { p.ChainID = NetworkSolanaDevnet; signSIWS(t, p, solanaKey, "") }, time.Time{}, ErrSignInUnsupported)
	f("bad nonce", func(p *SignInProof) { p.Nonce = "x y"; signSIWS(t, p, solanaKey, "") }, time.Time{}, ErrSignInInvalid)
	// An EVM proof cannot claim a Solana chain nor the reverse.
	f("evm address on solana", func(p *SignInProof) {
		e := specProof()
		p.Address, p.Signature = e.Address, e.Signature
	}, time.Time{}, ErrSignInInvalid)
	ev := specProof()
	ev.ChainID = NetworkBase
	ev.Address = siwsProof(t, solanaKey).Address
	if _, err := v.Verify(t.Context(), ev); !errors.Is(err, ErrSignInInvalid) {
		t.Errorf("solana address on eip155: %v", err)
	}
	// Nothing above reserved the nonce.
	if _, err := v.Verify(t.Context(), siwsProof(t, solanaKey)); err != nil {
		t.Fatalf("valid proof after refusals: %v", err)
	}
}

// TestSignInNonceOnce: a second proof reusing a nonce is refused even when
// it is a different, validly signed message (another wallet or chain).
func TestSignInNonceOnce(t *testing.T) {
	v := solanaVerifier()
	if _, err := v.Verify(t.Context(), siwsProof(t, solanaKey)); err != nil {
		t.Fatal(err)
	}
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	if _, err := v.Verify(t.Context(), siwsProof(t, other)); !errors.Is(err, ErrSignInUsed) {
		t.Fatalf("same nonce, other wallet: %v", err)
	}
	if _, err := v.Verify(context.Background(), specProof()); !errors.Is(err, ErrSignInUsed) {
		t.Fatalf("same nonce, EVM wallet: %v", err)
	}
}

// TestChallengeSolana: Solana networks are offered with type ed25519.
func TestChallengeSolana(t *testing.T) {
	ext := solanaVerifier().Challenge("https://api.example.com/x")
	if len(ext.SupportedChains) != 2 || ext.SupportedChains[0] != (SupportedChain{ChainID: NetworkBase, Type: "eip191"}) ||
		ext.SupportedChains[1] != (SupportedChain{ChainID: NetworkSolana, Type: "ed25519"}) {
		t.Fatalf("supportedChains %+v", ext.SupportedChains)
	}
}

func TestBase58(t *testing.T) {
	// Vectors of the Bitcoin base58 alphabet.
	for _, c := range []struct{ hex, b58 string }{
		{"", ""}, {"61", "2g"}, {"626262", "a3gV"}, {"636363", "aPEr"},
		{"00000000000000000000", "1111111111"}, {"00010966776006953d5567439e5e39f86a0d273beed61967f6", "16UwLL9Risc3QfPqBUvKofHmBQ7wMtjvM"},
	} {
		b := make([]byte, len(c.hex)/2)
		for i := range b {
			b[i] = byte(strings.Index("0123456789abcdef", c.hex[2*i:2*i+1])<<4 | strings.Index("0123456789abcdef", c.hex[2*i+1:2*i+2]))
		}
		if got := encodeBase58(b); got != c.b58 {
			t.Errorf("encode %s = %s, want %s", c.hex, got, c.b58)
		}
		if c.b58 == "" {
			continue
		}
		if got, err := decodeBase58(c.b58); err != nil || !bytes.Equal(got, b) {
			t.Errorf("decode %s = %x, %v", c.b58, got, err)
		}
	}
	// The USDC mint is a 32-byte key.
	if b, err := decodeBase58("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"); err != nil || len(b) != 32 {
		t.Fatalf("USDC mint: %d bytes, %v", len(b), err)
	}
	for _, bad := range []string{"", "0", "O", "I", "l", "abc+", strings.Repeat("z", maxBase58Len+1)} {
		if _, err := decodeBase58(bad); err == nil {
			t.Errorf("decodeBase58(%q) accepted", bad)
		}
	}
}

// FuzzDecodeBase58: decoding never panics, and what decodes re-encodes to
// the input.
func FuzzDecodeBase58(f *testing.F) {
	f.Add("EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v")
	f.Add("1111")
	f.Add("0x12")
	f.Fuzz(func(t *testing.T, s string) {
		b, err := decodeBase58(s)
		if err != nil {
			return
		}
		if got := encodeBase58(b); got != s {
			t.Fatalf("%q decodes to %x which encodes to %q", s, b, got)
		}
	})
}

// FuzzVerifySolanaSignIn: a SIGN-IN-WITH-X value for a Solana chain never
// panics the decoder or the verifier, and only the genuine proof verifies.
func FuzzVerifySolanaSignIn(f *testing.F) {
	p := siwsProof(f, solanaKey)
	h, err := EncodeHeader(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(h)
	f.Add("eyJjaGFpbklkIjoic29sYW5hOjVleWt0NFVzRnY4UDhOSmRUUkVwWTF2enFLcVpLdmRwIn0=")
	f.Fuzz(func(t *testing.T, s string) {
		q, err := DecodeSignIn(s)
		if err != nil {
			return
		}
		v := solanaVerifier()
		if w, err := v.Verify(t.Context(), q); err == nil && s != h && q.Signature != p.Signature {
			t.Fatalf("a proof other than the genuine one verified as %s", w)
		}
	})
}

// BenchmarkVerifySolanaSignIn is the cost of one SIWS proof: header decode,
// checks, SIWS text, base58 and ed25519 (the nonce store is in memory).
func BenchmarkVerifySolanaSignIn(b *testing.B) {
	p := siwsProof(b, solanaKey)
	h, err := EncodeHeader(p)
	if err != nil {
		b.Fatal(err)
	}
	v := solanaVerifier()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		q, err := DecodeSignIn(h)
		if err != nil {
			b.Fatal(err)
		}
		v.Store = &usedProofs{}
		if _, err := v.Verify(b.Context(), q); err != nil {
			b.Fatal(err)
		}
	}
	if d := (cpuTime() - cpu0).Seconds(); d > 0 {
		b.ReportMetric(float64(b.N)/d, "proofs/cpu-s")
	}
}
