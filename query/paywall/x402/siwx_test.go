package x402

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/query/paywall/ledger"
)

// usedProofs is a ProofStore in memory; the ledger's conformance suite
// tests the real ones.
type usedProofs struct {
	mu   sync.Mutex
	used map[string]bool
}

func (u *usedProofs) ReserveProof(_ context.Context, id string, _ time.Time) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.used[id] {
		return ledger.ErrProofUsed
	}
	if u.used == nil {
		u.used = map[string]bool{}
	}
	u.used[id] = true
	return nil
}

// specProof is the SIWX example of x402.md §5 with the Anvil #0 address.
func specProof() *SignInProof {
	return &SignInProof{
		SignInInfo: SignInInfo{
			Domain: "api.example.com", URI: "https://api.example.com/premium-data", Version: "1",
			Nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890", IssuedAt: "2024-01-15T10:30:00.000Z",
			ExpirationTime: "2024-01-15T10:35:00.000Z", Statement: "Sign in to access premium data",
			Resources: []string{"https://api.example.com/premium-data"},
		},
		ChainID: "eip155:8453", Type: "eip191",
		Address:   "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
		Signature: "0x4c261c7acf140d1a136a34d486f56f787ce8c5a25624809f0aa6382aa842b8b65dab28ceb6f8b1f92c2738e0d5e8c09a09c09b6432d1c8fd904bac587a0b35d11c",
	}
}

func testVerifier(tb testing.TB) *SignIn {
	tb.Helper()
	return &SignIn{
		Domain: "api.example.com", Origin: "https://api.example.com",
		Chains: []string{NetworkBase, NetworkPolygon}, Store: &usedProofs{},
		Now: func() time.Time { return time.Date(2024, 1, 15, 10, 31, 0, 0, time.UTC) },
	}
}

func base64Proof(tb testing.TB) string {
	s, err := EncodeHeader(specProof())
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// TestSIWEVector is the SIWX EVM vector of x402.md §8.3: the message text
// is 376 bytes with the given EIP-191 hash, and the proof verifies once.
func TestSIWEVector(t *testing.T) {
	msg, err := SIWEMessage(specProof())
	if err != nil {
		t.Fatal(err)
	}
	if len(msg) != 376 {
		t.Fatalf("message is %d bytes:\n%s", len(msg), msg)
	}
	if h := hexutil.Encode(accounts.TextHash([]byte(msg))); h != "0x458875571fdea978933d39ea26262328c556850721b3f04637399205263f684b" {
		t.Fatalf("hash %s", h)
	}
	v := testVerifier(t)
	p, err := DecodeSignIn(base64Proof(t))
	if err != nil {
		t.Fatal(err)
	}
	w, err := v.Verify(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if w != "eip155:0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266" {
		t.Fatalf("wallet %s", w)
	}
	if _, err := v.Verify(t.Context(), p); !errors.Is(err, ErrSignInUsed) {
		t.Fatalf("second use: %v", err)
	}
}

// TestSIWERejects: the spec placeholder signature (x402.md §8.2), other
// domains, uris, chains, stale and future proofs are refused.
func TestSIWERejects(t *testing.T) {
	f := func(name string, mod func(*SignInProof), now time.Time, want error) {
		t.Helper()
		v := testVerifier(t)
		if !now.IsZero() {
			v.Now = func() time.Time { return now }
		}
		p := specProof()
		mod(p)
		if _, err := v.Verify(t.Context(), p); !errors.Is(err, want) {
			t.Errorf("%s: err %v, want %v", name, err, want)
		}
	}
	f("placeholder", func(p *SignInProof) {
		p.Address = "0x857b06519E91e3A54538791bDbb0E22373e36b66"
		p.Signature = "0x2d6a7588d6acca505cbf0d9a4a227e0c52c6c34008c8e8986a1283259764173608a2ce6496642e377d6da8dbbf5836e9bd15092f9ecab05ded3d6293af148b571c"
	}, time.Time{}, ErrSignInSignature)
	f("domain", func(p *SignInProof) { p.Domain = "evil.example.com" }, time.Time{}, ErrSignInDomain)
	f("uri", func(p *SignInProof) { p.URI = "https://evil.example.com/x" }, time.Time{}, ErrSignInDomain)
	f("chain", func(p *SignInProof) { p.ChainID = "eip155:1" }, time.Time{}, ErrSignInUnsupported)
	f("tampered", func(p *SignInProof) { p.Nonce = "a1b2c3d4e5f67890a1b2c3d4e5f67891" }, time.Time{}, ErrSignInSignature)
	f("stale", func(*SignInProof) {}, time.Date(2024, 1, 15, 10, 35, 1, 0, time.UTC), ErrSignInExpired)
	f("future", func(*SignInProof) {}, time.Date(2024, 1, 15, 10, 29, 0, 0, time.UTC), ErrSignInExpired)
	f("not before", func(p *SignInProof) { p.NotBefore = "2024-01-15T10:32:00.000Z" }, time.Time{}, ErrSignInExpired)
	f("version", func(p *SignInProof) { p.Version = "2" }, time.Time{}, ErrSignInInvalid)
}

// TestChallengeRoundTrip signs our own challenge as a wallet would.
func TestChallengeRoundTrip(t *testing.T) {
	v := testVerifier(t)
	v.Now = time.Now
	v.Statement = "Pay from your wallet credit"
	ext := v.Challenge("https://api.example.com/api/v1/intelligence")
	if len(ext.Info.Nonce) != 32 || ext.Info.Domain != "api.example.com" || len(ext.SupportedChains) != 2 || ext.Schema == nil {
		t.Fatalf("challenge %+v", ext)
	}
	if b, _ := json.Marshal(ext); len(b) == 0 {
		t.Fatal("cannot encode")
	}
	key, _ := crypto.HexToECDSA(anvilKey0)
	p := &SignInProof{SignInInfo: ext.Info, ChainID: ext.SupportedChains[0].ChainID, Type: "eip191",
		Address: crypto.PubkeyToAddress(key.PublicKey).Hex()}
	msg, _ := SIWEMessage(p)
	sig, err := crypto.Sign(accounts.TextHash([]byte(msg)), key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	p.Signature = hexutil.Encode(sig)
	if _, err := v.Verify(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}
