package x402

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/query/paywall/ledger"
)

// ExtensionSignIn is the key of the Sign-In-With-X extension.
const ExtensionSignIn = "sign-in-with-x"

// SignInMaxAge is how long a sign-in proof is valid after its issuedAt.
const SignInMaxAge = 5 * time.Minute

// signInSkew tolerates clocks of clients slightly ahead of ours.
const signInSkew = 30 * time.Second

// SignInInfo is the CAIP-122 challenge of the extension (its `info`), and
// the fields a proof echoes.
type SignInInfo struct {
	Domain         string   `json:"domain"`
	URI            string   `json:"uri"`
	Version        string   `json:"version"`
	Nonce          string   `json:"nonce"`
	IssuedAt       string   `json:"issuedAt"`
	ExpirationTime string   `json:"expirationTime,omitempty"`
	NotBefore      string   `json:"notBefore,omitempty"`
	RequestID      string   `json:"requestId,omitempty"`
	Statement      string   `json:"statement,omitempty"`
	Resources      []string `json:"resources,omitempty"`
}

// SupportedChain is a chain a wallet may sign in with.
type SupportedChain struct {
	ChainID string `json:"chainId"`
	Type    string `json:"type"`
}

// SignInExtension is extensions["sign-in-with-x"] of a 402.
type SignInExtension struct {
	Info            SignInInfo       `json:"info"`
	SupportedChains []SupportedChain `json:"supportedChains"`
	Schema          json.RawMessage  `json:"schema"`
}

// SignInProof is the decoded SIGN-IN-WITH-X header.
type SignInProof struct {
	SignInInfo
	ChainID         string `json:"chainId"`
	Type            string `json:"type"`
	Address         string `json:"address"`
	Signature       string `json:"signature"`
	SignatureScheme string `json:"signatureScheme,omitempty"`
}

// Signature types of supportedChains and of a proof's type.
const (
	signTypeEIP191  = "eip191"
	signTypeEIP1271 = "eip1271"
	signTypeEd25519 = "ed25519"
)

// ErrSignInUsed: the proof was presented before.
var ErrSignInUsed = errors.New("sign-in proof already used")

// signInSchemaJSON is signInSchema encoded once.
var signInSchemaJSON = func() json.RawMessage {
	b, err := json.Marshal(signInSchema)
	if err != nil {
		panic("BUG: cannot encode the sign-in schema: " + err.Error())
	}
	return b
}()

// signInSchema is the JSON schema of a proof, sent with every challenge.
var signInSchema = map[string]any{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type":    "object",
	"properties": map[string]any{
		"domain": map[string]any{"type": "string"}, "address": map[string]any{"type": "string"},
		"statement": map[string]any{"type": "string"}, "uri": map[string]any{"type": "string", "format": "uri"},
		"version": map[string]any{"type": "string"}, "chainId": map[string]any{"type": "string"},
		"type": map[string]any{"type": "string"}, "nonce": map[string]any{"type": "string"},
		"issuedAt":       map[string]any{"type": "string", "format": "date-time"},
		"expirationTime": map[string]any{"type": "string", "format": "date-time"},
		"notBefore":      map[string]any{"type": "string", "format": "date-time"},
		"requestId":      map[string]any{"type": "string"},
		"resources":      map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "uri"}},
		"signature":      map[string]any{"type": "string"},
	},
	"required": []string{"domain", "address", "uri", "version", "chainId", "type", "nonce", "issuedAt", "signature"},
}

// ProofStore records used proofs; ledger.Store is one.
type ProofStore interface {
	ReserveProof(ctx context.Context, proofID string, expires time.Time) error
}

// SignIn issues Sign-In-With-X challenges and verifies proofs for one
// public origin. EVM proofs are EIP-4361 (SIWE) messages signed with
// EIP-191; a contract wallet is checked with EIP-1271 isValidSignature over
// RPC when Callers has a client for its chain. Solana proofs are the same
// CAIP-122 text saying "Solana account" (SIWS), signed with the wallet's
// ed25519 key; address and signature are base58.
type SignIn struct {
	// Domain is our host without port; a proof for another domain fails.
	Domain string
	// Origin is scheme://host[:port]; a proof's uri must start with it.
	Origin string
	// Chains are the chains offered in supportedChains: eip155 networks
	// (type eip191) and solana networks (type ed25519); others are ignored.
	Chains []string
	// Statement is the human-readable line of the challenge.
	Statement string
	// Store makes each proof usable once.
	Store ProofStore
	// Callers are RPC clients per eip155 network for EIP-1271; optional.
	Callers map[string]ethereum.ContractCaller
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

func (s *SignIn) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// Challenge returns a fresh extension entry for a resource URL: a new
// random nonce (16 bytes, 32 hex chars) and issuedAt now.
func (s *SignIn) Challenge(resourceURL string) SignInExtension {
	var n [16]byte
	if _, err := rand.Read(n[:]); err != nil {
		panic("BUG: crypto/rand failed: " + err.Error())
	}
	now := s.now().UTC()
	ext := SignInExtension{
		Info: SignInInfo{
			Domain:         s.Domain,
			URI:            resourceURL,
			Version:        "1",
			Nonce:          hex.EncodeToString(n[:]),
			IssuedAt:       now.Format("2006-01-02T15:04:05.000Z"),
			ExpirationTime: now.Add(SignInMaxAge).Format("2006-01-02T15:04:05.000Z"),
			Statement:      s.Statement,
			Resources:      []string{resourceURL},
		},
		Schema: signInSchemaJSON,
	}
	for _, c := range s.Chains {
		switch {
		case IsEVM(c):
			ext.SupportedChains = append(ext.SupportedChains, SupportedChain{ChainID: c, Type: signTypeEIP191})
		case IsSolana(c):
			ext.SupportedChains = append(ext.SupportedChains, SupportedChain{ChainID: c, Type: signTypeEd25519})
		}
	}
	return ext
}

// DecodeSignIn decodes a SIGN-IN-WITH-X value (standard base64 JSON).
func DecodeSignIn(v string) (*SignInProof, error) {
	var p SignInProof
	if err := decodeHeader(v, &p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSignInInvalid, err)
	}
	if p.Domain == "" || p.Address == "" || p.URI == "" || p.Version == "" || p.ChainID == "" ||
		p.Nonce == "" || p.IssuedAt == "" || p.Signature == "" {
		return nil, fmt.Errorf("%w: domain, address, uri, version, chainId, nonce, issuedAt and signature are required", ErrSignInInvalid)
	}
	return &p, nil
}

// SIWEMessage is the EIP-4361 text of p, as @signinwithethereum/siwe's
// prepareMessage writes it.
func SIWEMessage(p *SignInProof) (string, error) {
	chainID, err := ChainID(p.ChainID)
	if err != nil {
		return "", err
	}
	return caip122Message(p, "Ethereum", chainID.String()), nil
}

// solanaClusters are the names older @x402/extensions releases wrote as the
// SIWS "Chain ID:" instead of the genesis-hash reference.
var solanaClusters = map[string]string{
	"5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "mainnet",
	"EtWTRABZaYq6iMfeYKouRu166VU2xqa1": "devnet",
	"4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "testnet",
}

// SIWSMessage is the CAIP-122 text a Solana wallet signs for p, as
// @x402/extensions' formatSIWSMessage writes it: the SIWE layout with
// "Solana account" in the first line and the CAIP-2 reference (the genesis
// hash) as Chain ID. chainID overrides that Chain ID when not empty.
func SIWSMessage(p *SignInProof, chainID string) (string, error) {
	ref, ok := strings.CutPrefix(p.ChainID, namespaceSolana+":")
	if !ok || ref == "" {
		return "", fmt.Errorf("%w: %q is not a solana network", ErrInvalidNetwork, p.ChainID)
	}
	if chainID == "" {
		chainID = ref
	}
	return caip122Message(p, "Solana", chainID), nil
}

// caip122Message writes the EIP-4361 layout shared by SIWE and SIWS.
func caip122Message(p *SignInProof, account, chainID string) string {
	var b strings.Builder
	b.Grow(256 + len(p.Statement) + len(p.URI)*2)
	b.WriteString(p.Domain + " wants you to sign in with your " + account + " account:\n" + p.Address + "\n")
	if p.Statement != "" {
		b.WriteString("\n" + p.Statement + "\n")
	}
	b.WriteString("\nURI: " + p.URI + "\nVersion: " + p.Version + "\nChain ID: " + chainID +
		"\nNonce: " + p.Nonce + "\nIssued At: " + p.IssuedAt)
	if p.ExpirationTime != "" {
		b.WriteString("\nExpiration Time: " + p.ExpirationTime)
	}
	if p.NotBefore != "" {
		b.WriteString("\nNot Before: " + p.NotBefore)
	}
	if p.RequestID != "" {
		b.WriteString("\nRequest ID: " + p.RequestID)
	}
	if len(p.Resources) > 0 {
		b.WriteString("\nResources:")
		for _, r := range p.Resources {
			b.WriteString("\n- " + r)
		}
	}
	return b.String()
}

// Verify checks p: our domain, a uri under our origin, a supported chain, a
// nonce of 8 to 64 letters and digits, issuedAt within the last 5 minutes
// and not in the future, expirationTime and notBefore, then the signature:
// for eip155 chains EOA recovery, else EIP-1271 when an RPC is configured;
// for solana chains ed25519 over the SIWS text. It then reserves the nonce,
// so a proof (and any other proof with its nonce) is accepted once ever.
// It returns the wallet's ledger id (ledger.WalletID): "eip155:0x…" in
// lower case or "solana:<base58>".
func (s *SignIn) Verify(ctx context.Context, p *SignInProof) (string, error) {
	if p.Domain != s.Domain || !strings.HasPrefix(p.URI, s.Origin) {
		return "", ErrSignInDomain
	}
	if p.Version != "1" {
		return "", fmt.Errorf("%w: version %q", ErrSignInInvalid, p.Version)
	}
	if !slices.Contains(s.Chains, p.ChainID) {
		return "", fmt.Errorf("%w: %q", ErrSignInUnsupported, p.ChainID)
	}
	if !validNonce(p.Nonce) {
		return "", fmt.Errorf("%w: nonce must be 8 to 64 letters and digits", ErrSignInInvalid)
	}
	now := s.now()
	issued, err := time.Parse(time.RFC3339Nano, p.IssuedAt)
	if err != nil {
		return "", fmt.Errorf("%w: issuedAt", ErrSignInInvalid)
	}
	if issued.After(now.Add(signInSkew)) || now.Sub(issued) > SignInMaxAge {
		return "", ErrSignInExpired
	}
	if p.ExpirationTime != "" {
		exp, err := time.Parse(time.RFC3339Nano, p.ExpirationTime)
		if err != nil || !exp.After(now) {
			return "", ErrSignInExpired
		}
	}
	if p.NotBefore != "" {
		nb, err := time.Parse(time.RFC3339Nano, p.NotBefore)
		if err != nil || nb.After(now) {
			return "", ErrSignInExpired
		}
	}
	var wallet string
	switch {
	case IsEVM(p.ChainID):
		wallet, err = s.verifyEVM(ctx, p)
	case IsSolana(p.ChainID):
		wallet, err = verifySolana(p)
	default:
		err = fmt.Errorf("%w: %q", ErrSignInUnsupported, p.ChainID)
	}
	if err != nil {
		return "", err
	}
	if err := s.Store.ReserveProof(ctx, "siwx:nonce:"+p.Nonce, issued.Add(SignInMaxAge+signInSkew)); err != nil {
		if errors.Is(err, ledger.ErrProofUsed) {
			return "", ErrSignInUsed
		}
		return "", fmt.Errorf("cannot reserve the sign-in proof: %w", err)
	}
	return wallet, nil
}

// validNonce: EIP-4361 nonces are at least 8 alphanumerics; 64 bounds the
// ids we store.
func validNonce(n string) bool {
	if len(n) < 8 || len(n) > 64 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// verifyEVM checks the EIP-191 (or EIP-1271) signature of the SIWE text.
func (s *SignIn) verifyEVM(ctx context.Context, p *SignInProof) (string, error) {
	if p.Type != "" && p.Type != signTypeEIP191 && p.Type != signTypeEIP1271 {
		return "", fmt.Errorf("%w: type %q on %s", ErrSignInUnsupported, p.Type, p.ChainID)
	}
	if !common.IsHexAddress(p.Address) {
		return "", fmt.Errorf("%w: address", ErrSignInInvalid)
	}
	msg, err := SIWEMessage(p)
	if err != nil {
		return "", err
	}
	hash := accounts.TextHash([]byte(msg))
	sig, err := hexutil.Decode(p.Signature)
	if err != nil {
		return "", fmt.Errorf("%w: signature is not 0x hex", ErrSignInSignature)
	}
	addr := common.HexToAddress(p.Address)
	if !s.eoaSigned(hash, sig, addr) && !s.contractSigned(ctx, p.ChainID, hash, sig, addr) {
		return "", ErrSignInSignature
	}
	return ledger.WalletID(namespaceEIP155, addr.Hex())
}

// verifySolana checks the ed25519 signature of the SIWS text by the key
// that is the address. The address must be the canonical base58 of a
// 32-byte key. The text with the genesis-hash Chain ID is tried first, then
// the cluster name older clients wrote.
func verifySolana(p *SignInProof) (string, error) {
	if p.Type != "" && p.Type != signTypeEd25519 {
		return "", fmt.Errorf("%w: type %q on %s", ErrSignInUnsupported, p.Type, p.ChainID)
	}
	pub, err := decodeBase58(p.Address)
	if err != nil || len(pub) != ed25519.PublicKeySize || encodeBase58(pub) != p.Address {
		return "", fmt.Errorf("%w: address is not a base58 ed25519 public key", ErrSignInInvalid)
	}
	sig, err := decodeBase58(p.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return "", fmt.Errorf("%w: signature is not 64 base58 bytes", ErrSignInSignature)
	}
	msg, err := SIWSMessage(p, "")
	if err != nil {
		return "", err
	}
	ok := ed25519.Verify(pub, []byte(msg), sig)
	if name := solanaClusters[strings.TrimPrefix(p.ChainID, namespaceSolana+":")]; !ok && name != "" {
		msg, _ = SIWSMessage(p, name)
		ok = ed25519.Verify(pub, []byte(msg), sig)
	}
	if !ok {
		return "", ErrSignInSignature
	}
	return ledger.WalletID(namespaceSolana, p.Address)
}

// eoaSigned reports whether sig is a low-s EIP-191 signature of hash by addr.
func (s *SignIn) eoaSigned(hash, sig []byte, addr common.Address) bool {
	if len(sig) != crypto.SignatureLength {
		return false
	}
	rsv := append([]byte(nil), sig...)
	if rsv[64] >= 27 {
		rsv[64] -= 27
	}
	if rsv[64] > 1 || new(big.Int).SetBytes(rsv[32:64]).Cmp(secp256k1HalfN) > 0 {
		return false
	}
	pub, err := crypto.SigToPub(hash, rsv)
	return err == nil && crypto.PubkeyToAddress(*pub) == addr
}

// eip1271Magic is isValidSignature's success value.
var eip1271Magic = []byte{0x16, 0x26, 0xba, 0x7e}

// contractSigned asks the wallet contract at addr whether sig signs hash
// (EIP-1271), when an RPC client is configured for the chain.
func (s *SignIn) contractSigned(ctx context.Context, chain string, hash, sig []byte, addr common.Address) bool {
	c := s.Callers[chain]
	if c == nil {
		return false
	}
	// isValidSignature(bytes32,bytes): selector, hash, offset 64, length, data.
	data := append([]byte{}, eip1271Magic...)
	data = append(data, common.LeftPadBytes(hash, 32)...)
	data = append(data, common.LeftPadBytes(big.NewInt(64).Bytes(), 32)...)
	data = append(data, common.LeftPadBytes(big.NewInt(int64(len(sig))).Bytes(), 32)...)
	data = append(data, common.RightPadBytes(sig, (len(sig)+31)/32*32)...)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := c.CallContract(ctx, ethereum.CallMsg{To: &addr, Data: data}, nil)
	return err == nil && len(out) >= 4 && string(out[:4]) == string(eip1271Magic)
}
