package x402

import (
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// anvilKey0 is the public Anvil/Hardhat test key #0 (x402.md §8.3); never
// funded anywhere real.
const anvilKey0 = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

const payTo = "0x209693Bc6afc0C5328bA36FaF03C514EF312287C"

// vectorNow lies inside the window of the x402.md §8 authorizations.
var vectorNow = time.Unix(1740672100, 0)

func vectorAuthorization(from string) Authorization {
	return Authorization{
		From: from, To: payTo, Value: "10000",
		ValidAfter: "1740672089", ValidBefore: "1740672154",
		Nonce: "0xf3746613c2d920b5fdabc0856f2aeb2d4f88ee6037b8cc5d04a71a4462f13480",
	}
}

func requirementsFor(network string) PaymentRequirements {
	for _, a := range KnownAssets[network] {
		if a.Symbol == "USDC" {
			return Offer{Network: network, Asset: a, PayTo: payTo}.Requirements(10000)
		}
	}
	panic("no USDC on " + network)
}

func payloadFor(t testing.TB, req PaymentRequirements, a Authorization, sig string) *PaymentPayload {
	t.Helper()
	pl, err := json.Marshal(ExactEVMPayload{Signature: sig, Authorization: a})
	if err != nil {
		t.Fatal(err)
	}
	return &PaymentPayload{X402Version: 2, Accepted: req, Payload: pl}
}

// TestSpecVector is x402.md §8.1: the published Base Sepolia vector
// recovers to its from address; digest and domain separator match.
func TestSpecVector(t *testing.T) {
	req := requirementsFor(NetworkBaseSepolia)
	d, err := DomainFor(req)
	if err != nil {
		t.Fatal(err)
	}
	sep, err := d.Separator()
	if err != nil {
		t.Fatal(err)
	}
	if got := hexutil.Encode(sep); got != "0x71f17a3b2ff373b803d70a5a07c046c1a2bc8e89c09ef722fcb047abe94c9818" {
		t.Fatalf("domain separator %s", got)
	}
	a := vectorAuthorization("0x857b06519E91e3A54538791bDbb0E22373e36b66")
	digest, err := AuthorizationDigest(d, a)
	if err != nil {
		t.Fatal(err)
	}
	if got := hexutil.Encode(digest); got != "0xf256992871671abcb27ff92885a7afa46218724e5fc0bac35d050115aa1d22e6" {
		t.Fatalf("digest %s", got)
	}
	sig := "0x2d6a7588d6acca505cbf0d9a4a227e0c52c6c34008c8e8986a1283259764173608a2ce6496642e377d6da8dbbf5836e9bd15092f9ecab05ded3d6293af148b571c"
	v, err := VerifyExactEVM(payloadFor(t, req, a, sig), req, vectorNow)
	if err != nil {
		t.Fatal(err)
	}
	if v.Payer != common.HexToAddress(a.From) || v.V != 28 || v.Value.Int64() != 10000 {
		t.Fatalf("verified %+v", v)
	}
}

// TestSelfGeneratedVectors is x402.md §8.3: per network, the digest and the
// deterministic signature of Anvil key #0, and verification of it.
func TestSelfGeneratedVectors(t *testing.T) {
	key, err := crypto.HexToECDSA(anvilKey0)
	if err != nil {
		t.Fatal(err)
	}
	from := crypto.PubkeyToAddress(key.PublicKey).Hex()
	if from != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("address %s", from)
	}
	f := func(network, wantDigest, wantSig string) {
		t.Helper()
		req := requirementsFor(network)
		d, err := DomainFor(req)
		if err != nil {
			t.Fatal(err)
		}
		a := vectorAuthorization(from)
		digest, err := AuthorizationDigest(d, a)
		if err != nil {
			t.Fatal(err)
		}
		if got := hexutil.Encode(digest); got != wantDigest {
			t.Errorf("%s: digest %s, want %s", network, got, wantDigest)
		}
		// apitypes' own digest agrees.
		td := TypedData(d, a)
		h, _, err := apitypes.TypedDataAndHash(td)
		if err != nil {
			t.Fatal(err)
		}
		if hexutil.Encode(h) != wantDigest {
			t.Errorf("%s: apitypes digest %x", network, h)
		}
		sig, err := SignAuthorization(d, a, key)
		if err != nil {
			t.Fatal(err)
		}
		if sig != wantSig {
			t.Errorf("%s: signature %s, want %s", network, sig, wantSig)
		}
		if _, err := VerifyExactEVM(payloadFor(t, req, a, sig), req, vectorNow); err != nil {
			t.Errorf("%s: %v", network, err)
		}
	}
	f(NetworkBase, "0x7e9613714edd92ad20fa5b252ec168245031911a3438dd20225f083b6a688f8a",
		"0xa70a7d235fd4218a3ed6625525892efed6fd1ac6a193ba612bb9da921620bce74885a8f7f56d2dc2f46005b7d6a089ae3469455a911004b6c4a6ab600677f56c1c")
	f(NetworkBaseSepolia, "0x50708d3bf7216e1aeabe7bf22081b9f36c7c287530f92510318f13a03d89dc86",
		"0xdc53a4a579de989368a0fae2ef2172ff2f474b4297013f865d171239f17ef4c3157b4b4030f1bebc53d55ace15c2377dff501a60e1e56c291f1000d6e78f082f1b")
	f(NetworkPolygon, "0xeb426f4d6cfb0758aca33e976da898797c22f03a580f3e9479f7f697143b7169",
		"0x0edfc154403cae184cc2aed59623cd07597c04dfe126e931a428ad61e4e202e14e6dd9c9f0d8a039a0eafbd2944bb65dc11707cdc614584d24b0858ff8cf5ad21c")
	f(NetworkArbitrum, "0x7d26425d06295a1b532d7e610c60aeef5e3c2f08916acfca35c2a19ad0222598",
		"0xf6c4e4f5d9f73ba718fea00ba580b94e9f619f373668ae98ec2cc30d5b5a4a27276db7f0712e3f21f04845c0e38245d130e7841e5539050b458569dadf2e27431b")
}

// TestGoldenHeader decodes the base-mainnet PAYMENT-SIGNATURE header of
// x402.md §8.3, matches it against our Base quote and verifies it.
func TestGoldenHeader(t *testing.T) {
	raw, err := os.ReadFile("testdata/payment-signature-base.b64")
	if err != nil {
		t.Fatal(err)
	}
	p, err := DecodePaymentPayload(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Resource == nil || p.Resource.URL != "https://api.example.com/premium-data" {
		t.Fatalf("resource %+v", p.Resource)
	}
	ours := requirementsFor(NetworkBase)
	req, err := Match(p, []PaymentRequirements{requirementsFor(NetworkPolygon), ours})
	if err != nil {
		t.Fatal(err)
	}
	v, err := VerifyExactEVM(p, req, vectorNow)
	if err != nil {
		t.Fatal(err)
	}
	if v.Payer.Hex() != "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" {
		t.Fatalf("payer %s", v.Payer.Hex())
	}
	// Re-encoding gives a header that decodes to the same payload.
	s, err := EncodeHeader(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodePaymentPayload(s); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyRejects is the negative list of x402.md §8: each tampered
// payment fails with its sentinel and x402 code.
func TestVerifyRejects(t *testing.T) {
	key, _ := crypto.HexToECDSA(anvilKey0)
	from := crypto.PubkeyToAddress(key.PublicKey).Hex()
	req := requirementsFor(NetworkBase)
	d, _ := DomainFor(req)
	sign := func(a Authorization, d Domain) string {
		s, err := SignAuthorization(d, a, key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	good := vectorAuthorization(from)
	f := func(name string, p *PaymentPayload, req PaymentRequirements, now time.Time, want error, code string) {
		t.Helper()
		_, err := VerifyExactEVM(p, req, now)
		if !errors.Is(err, want) {
			t.Errorf("%s: err %v, want %v", name, err, want)
		}
		if Code(err) != code {
			t.Errorf("%s: code %q, want %q", name, Code(err), code)
		}
	}
	// Wrong domain name (the Base Sepolia "USDC" trap) recovers another signer.
	wrongName := d
	wrongName.Name = "USDC"
	f("domain name", payloadFor(t, req, good, sign(good, wrongName)), req, vectorNow, ErrInvalidSignature, "invalid_exact_evm_payload_signature")
	// Signed for another chain.
	otherChain := d
	otherChain.ChainID = big.NewInt(137)
	f("chain", payloadFor(t, req, good, sign(good, otherChain)), req, vectorNow, ErrInvalidSignature, "invalid_exact_evm_payload_signature")
	// High s: s' = n - s with v flipped recovers the same signer but is refused.
	sig := hexutil.MustDecode(sign(good, d))
	s := new(big.Int).SetBytes(sig[32:64])
	s.Sub(crypto.S256().Params().N, s)
	s.FillBytes(sig[32:64])
	sig[64] = 55 - sig[64] // 27 <-> 28
	f("high s", payloadFor(t, req, good, hexutil.Encode(sig)), req, vectorNow, ErrMalleableSignature, "invalid_exact_evm_payload_signature")
	// v of 0/1.
	sig = hexutil.MustDecode(sign(good, d))
	sig[64] -= 27
	f("v", payloadFor(t, req, good, hexutil.Encode(sig)), req, vectorNow, ErrInvalidSignature, "invalid_exact_evm_payload_signature")
	// Tampered signature byte.
	sig = hexutil.MustDecode(sign(good, d))
	sig[5] ^= 0xff
	f("tampered", payloadFor(t, req, good, hexutil.Encode(sig)), req, vectorNow, ErrInvalidSignature, "invalid_exact_evm_payload_signature")
	// Value differs from the amount.
	a := good
	a.Value = "9999"
	f("value", payloadFor(t, req, a, sign(a, d)), req, vectorNow, ErrValueMismatch, "invalid_exact_evm_payload_authorization_value_mismatch")
	// To differs from payTo.
	a = good
	a.To = from
	f("to", payloadFor(t, req, a, sign(a, d)), req, vectorNow, ErrRecipientMismatch, "invalid_exact_evm_payload_recipient_mismatch")
	// Window.
	f("expired", payloadFor(t, req, good, sign(good, d)), req, time.Unix(1740672149, 0), ErrValidBefore, "invalid_exact_evm_payload_authorization_valid_before")
	f("early", payloadFor(t, req, good, sign(good, d)), req, time.Unix(1740672088, 0), ErrValidAfter, "invalid_exact_evm_payload_authorization_valid_after")
	// Network and domain.
	p := payloadFor(t, req, good, sign(good, d))
	p.Accepted.Network = NetworkPolygon
	f("network", p, req, vectorNow, ErrInvalidNetwork, "invalid_network")
	noDomain := req
	noDomain.Extra = nil
	f("no domain", payloadFor(t, noDomain, good, sign(good, d)), noDomain, vectorNow, ErrMissingDomain, "invalid_exact_evm_missing_eip712_domain")
	f("payload", &PaymentPayload{X402Version: 2, Accepted: req, Payload: json.RawMessage(`[1]`)}, req, vectorNow, ErrInvalidPayload, "invalid_payload")
	a = good
	a.Nonce = "0x01"
	f("nonce", payloadFor(t, req, a, sign(good, d)), req, vectorNow, ErrInvalidPayload, "invalid_payload")
}

// TestMatch checks the reasons Match gives for each mismatch.
func TestMatch(t *testing.T) {
	offered := []PaymentRequirements{requirementsFor(NetworkBase), requirementsFor(NetworkPolygon)}
	f := func(mod func(*PaymentRequirements), want error) {
		t.Helper()
		p := &PaymentPayload{X402Version: 2, Accepted: requirementsFor(NetworkBase)}
		mod(&p.Accepted)
		_, err := Match(p, offered)
		if !errors.Is(err, want) {
			t.Errorf("err %v, want %v", err, want)
		}
	}
	f(func(*PaymentRequirements) {}, nil)
	f(func(r *PaymentRequirements) { r.Asset = strings.ToLower(r.Asset) }, nil)
	f(func(r *PaymentRequirements) { r.Scheme = "upto" }, ErrUnsupportedScheme)
	f(func(r *PaymentRequirements) { r.Network = "eip155:1" }, ErrInvalidNetwork)
	f(func(r *PaymentRequirements) { r.Asset = "0x0000000000000000000000000000000000000001" }, ErrNoMatch)
	f(func(r *PaymentRequirements) { r.PayTo = "0x0000000000000000000000000000000000000001" }, ErrRecipientMismatch)
	f(func(r *PaymentRequirements) { r.Amount = "1" }, ErrValueMismatch)
}

// TestDecodeRejects: URL-safe base64, other versions and junk are refused.
func TestDecodeRejects(t *testing.T) {
	raw, _ := os.ReadFile("testdata/payment-signature-base.b64")
	s := strings.TrimSpace(string(raw))
	f := func(in string, want error) {
		t.Helper()
		if _, err := DecodePaymentPayload(in); !errors.Is(err, want) {
			t.Errorf("%.40q: err %v, want %v", in, err, want)
		}
	}
	f(strings.NewReplacer("+", "-", "/", "_").Replace(s)+"_-", ErrMalformedHeader)
	f("", ErrMalformedHeader)
	f("e30=", ErrInvalidVersion) // {}
	v1, _ := EncodeHeader(map[string]any{"x402Version": 1, "scheme": "exact", "network": "base", "payload": map[string]any{}})
	f(v1, ErrInvalidVersion)
	noPayload, _ := EncodeHeader(map[string]any{"x402Version": 2, "accepted": map[string]any{"scheme": "exact", "network": "eip155:8453"}})
	f(noPayload, ErrInvalidPayload)
	f(strings.Repeat("A", maxHeaderLen+4), ErrMalformedHeader)
}

// FuzzDecodePaymentPayload: the decoder and the verifier never panic.
func FuzzDecodePaymentPayload(f *testing.F) {
	raw, _ := os.ReadFile("testdata/payment-signature-base.b64")
	f.Add(strings.TrimSpace(string(raw)))
	f.Add("e30=")
	f.Add("eyJ4NDAyVmVyc2lvbiI6Mn0=")
	f.Add("!!!")
	reqs := []PaymentRequirements{requirementsFor(NetworkBase)}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodePaymentPayload(s)
		if err != nil {
			return
		}
		req, err := Match(p, reqs)
		if err != nil {
			return
		}
		_, _ = VerifyExactEVM(p, req, vectorNow)
	})
}

// FuzzDecodeSignIn: the SIGN-IN-WITH-X decoder and checks never panic.
func FuzzDecodeSignIn(f *testing.F) {
	f.Add("e30=")
	f.Add(base64Proof(f))
	v := testVerifier(f)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodeSignIn(s)
		if err != nil {
			return
		}
		_, _ = v.Verify(t.Context(), p)
	})
}

// BenchmarkVerifyExactEVM is the per-payment cost of signature verification
// without settlement (target: ≥ 5k/s per core).
func BenchmarkVerifyExactEVM(b *testing.B) {
	raw, _ := os.ReadFile("testdata/payment-signature-base.b64")
	s := strings.TrimSpace(string(raw))
	reqs := []PaymentRequirements{requirementsFor(NetworkPolygon), requirementsFor(NetworkBase)}
	b.ReportAllocs()
	cpu0 := cpuTime()
	defer func() {
		// Payments per CPU-second of this process (user + system time from
		// getrusage): the per-core figure, robust to other load on the
		// machine, unlike ns/op which is wall time.
		if d := (cpuTime() - cpu0).Seconds(); d > 0 {
			b.ReportMetric(float64(b.N)/d, "payments/cpu-s")
		}
	}()
	for b.Loop() {
		p, err := DecodePaymentPayload(s)
		if err != nil {
			b.Fatal(err)
		}
		req, err := Match(p, reqs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := VerifyExactEVM(p, req, vectorNow); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the user plus system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic("BUG: getrusage failed: " + err.Error())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
