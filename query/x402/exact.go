package x402

import (
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// validBeforeBuffer is how long an authorization must still be valid when
// it is verified: one block time, as in the reference facilitator.
const validBeforeBuffer = 6 * time.Second

// secp256k1HalfN is the largest s FiatToken (USDC) accepts.
var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// Verified is an exact EIP-3009 payment whose signature, amount, recipient
// and time window were checked; what settlement needs.
type Verified struct {
	Network     string
	ChainID     *big.Int
	Asset       common.Address
	Payer       common.Address
	To          common.Address
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       common.Hash
	// V, R, S are the signature; V is 27 or 28.
	V    uint8
	R, S common.Hash
}

// Expires is when the authorization stops being valid.
func (v *Verified) Expires() time.Time {
	if !v.ValidBefore.IsInt64() {
		return time.Unix(1<<40, 0)
	}
	return time.Unix(v.ValidBefore.Int64(), 0)
}

// VerifyExactEVM checks an exact EIP-3009 payment against req, one of our
// own offered requirements that Match returned: network and scheme, the
// EIP-712 domain in req.Extra, authorization.to == payTo, value == amount
// exactly, validAfter <= now and validBefore >= now+6s, a 65-byte signature
// with v 27 or 28 and low s, recovering to authorization.from. It does not
// check the payer's balance or whether the nonce was used on chain.
func VerifyExactEVM(p *PaymentPayload, req PaymentRequirements, now time.Time) (*Verified, error) {
	if req.Scheme != SchemeExact || p.Accepted.Scheme != SchemeExact {
		return nil, fmt.Errorf("%w: %q", ErrUnsupportedScheme, p.Accepted.Scheme)
	}
	if p.Accepted.Network != req.Network {
		return nil, fmt.Errorf("%w: %q", ErrInvalidNetwork, p.Accepted.Network)
	}
	chainID, err := ChainID(req.Network)
	if err != nil {
		return nil, err
	}
	name, _ := req.Extra["name"].(string)
	version, _ := req.Extra["version"].(string)
	if name == "" || version == "" {
		return nil, ErrMissingDomain
	}
	var pl ExactEVMPayload
	if err := json.Unmarshal(p.Payload, &pl); err != nil {
		return nil, fmt.Errorf("%w: payload is not {signature, authorization}", ErrInvalidPayload)
	}
	a := pl.Authorization
	v := &Verified{Network: req.Network, ChainID: chainID}
	if !common.IsHexAddress(req.Asset) {
		return nil, fmt.Errorf("%w: asset is not an address", ErrNoMatch)
	}
	v.Asset = common.HexToAddress(req.Asset)
	if !common.IsHexAddress(a.From) || !common.IsHexAddress(a.To) {
		return nil, fmt.Errorf("%w: authorization.from and .to must be addresses", ErrInvalidPayload)
	}
	v.Payer, v.To = common.HexToAddress(a.From), common.HexToAddress(a.To)
	if !common.IsHexAddress(req.PayTo) || v.To != common.HexToAddress(req.PayTo) {
		return nil, ErrRecipientMismatch
	}
	if v.Value, err = parseUint256("authorization.value", a.Value); err != nil {
		return nil, err
	}
	amount, ok := new(big.Int).SetString(req.Amount, 10)
	if !ok || v.Value.Cmp(amount) != 0 {
		return nil, fmt.Errorf("%w: value %s, amount %s", ErrValueMismatch, a.Value, req.Amount)
	}
	if v.ValidAfter, err = parseUint256("authorization.validAfter", a.ValidAfter); err != nil {
		return nil, err
	}
	if v.ValidBefore, err = parseUint256("authorization.validBefore", a.ValidBefore); err != nil {
		return nil, err
	}
	if v.ValidAfter.Cmp(big.NewInt(now.Unix())) > 0 {
		return nil, ErrValidAfter
	}
	if v.ValidBefore.Cmp(big.NewInt(now.Add(validBeforeBuffer).Unix())) < 0 {
		return nil, ErrValidBefore
	}
	nonce, err := hexutil.Decode(a.Nonce)
	if err != nil || len(nonce) != 32 {
		return nil, fmt.Errorf("%w: authorization.nonce must be 0x and 32 bytes of hex", ErrInvalidPayload)
	}
	v.Nonce = common.BytesToHash(nonce)
	sig, err := hexutil.Decode(pl.Signature)
	if err != nil {
		return nil, fmt.Errorf("%w: signature is not 0x hex", ErrInvalidSignature)
	}
	if len(sig) != crypto.SignatureLength {
		// Smart-wallet (EIP-1271, ERC-6492) signatures are longer; only
		// EOA signatures are accepted.
		return nil, fmt.Errorf("%w: %d bytes, want 65", ErrInvalidSignature, len(sig))
	}
	if sig[64] != 27 && sig[64] != 28 {
		return nil, fmt.Errorf("%w: v must be 27 or 28", ErrInvalidSignature)
	}
	v.V = sig[64]
	v.R, v.S = common.BytesToHash(sig[:32]), common.BytesToHash(sig[32:64])
	if new(big.Int).SetBytes(sig[32:64]).Cmp(secp256k1HalfN) > 0 {
		return nil, ErrMalleableSignature
	}
	digest, err := AuthorizationDigest(domainOf(name, version, chainID, v.Asset), a)
	if err != nil {
		return nil, err
	}
	rsv := make([]byte, 65)
	copy(rsv, sig)
	rsv[64] -= 27
	pub, err := crypto.SigToPub(digest, rsv)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidSignature, err)
	}
	if crypto.PubkeyToAddress(*pub) != v.Payer {
		return nil, fmt.Errorf("%w: signer is not authorization.from", ErrInvalidSignature)
	}
	return v, nil
}

// parseUint256 parses a decimal string of at most 78 digits below 2^256.
func parseUint256(field, s string) (*big.Int, error) {
	if s == "" || len(s) > 78 || strings.TrimLeft(s, "0123456789") != "" {
		return nil, fmt.Errorf("%w: %s must be a decimal integer", ErrInvalidPayload, field)
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.BitLen() > 256 {
		return nil, fmt.Errorf("%w: %s out of range", ErrInvalidPayload, field)
	}
	return n, nil
}

// eip3009Types are the EIP-712 types of TransferWithAuthorization.
var eip3009Types = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

// Domain is an EIP-712 domain of a token contract.
type Domain struct {
	Name, Version     string
	ChainID           *big.Int
	VerifyingContract common.Address
}

// domainSeparators caches the separator of each domain (a handful).
var domainSeparators sync.Map // string -> []byte

func domainOf(name, version string, chainID *big.Int, contract common.Address) Domain {
	return Domain{Name: name, Version: version, ChainID: chainID, VerifyingContract: contract}
}

// Separator returns the EIP-712 domain separator of d, computed with
// apitypes once per domain.
func (d Domain) Separator() ([]byte, error) {
	key := d.Name + "\x00" + d.Version + "\x00" + d.ChainID.String() + "\x00" + d.VerifyingContract.Hex()
	if s, ok := domainSeparators.Load(key); ok {
		return s.([]byte), nil
	}
	td := apitypes.TypedData{Types: eip3009Types, PrimaryType: "TransferWithAuthorization", Domain: d.typed()}
	s, err := td.HashStruct("EIP712Domain", td.Domain.Map())
	if err != nil {
		return nil, fmt.Errorf("cannot hash the EIP-712 domain: %w", err)
	}
	domainSeparators.Store(key, []byte(s))
	return s, nil
}

func (d Domain) typed() apitypes.TypedDataDomain {
	return apitypes.TypedDataDomain{
		Name:              d.Name,
		Version:           d.Version,
		ChainId:           (*math.HexOrDecimal256)(d.ChainID),
		VerifyingContract: d.VerifyingContract.Hex(),
	}
}

// TypedData returns the EIP-712 typed data a wallet signs for a.
func TypedData(d Domain, a Authorization) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       eip3009Types,
		PrimaryType: "TransferWithAuthorization",
		Domain:      d.typed(),
		Message: apitypes.TypedDataMessage{
			"from":        a.From,
			"to":          a.To,
			"value":       a.Value,
			"validAfter":  a.ValidAfter,
			"validBefore": a.ValidBefore,
			"nonce":       a.Nonce,
		},
	}
}

// AuthorizationDigest is keccak256(0x1901 ‖ domainSeparator ‖
// hashStruct(TransferWithAuthorization)) of a, with apitypes.
func AuthorizationDigest(d Domain, a Authorization) ([]byte, error) {
	sep, err := d.Separator()
	if err != nil {
		return nil, err
	}
	td := TypedData(d, a)
	h, err := td.HashStruct(td.PrimaryType, td.Message)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot hash the authorization: %v", ErrInvalidPayload, err)
	}
	return crypto.Keccak256([]byte{0x19, 0x01}, sep, h), nil
}

// SignAuthorization signs a with key for d and returns the 65-byte r‖s‖v
// signature with v 27 or 28 as 0x hex; clients and tests use it.
func SignAuthorization(d Domain, a Authorization, key *ecdsa.PrivateKey) (string, error) {
	digest, err := AuthorizationDigest(d, a)
	if err != nil {
		return "", err
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		return "", fmt.Errorf("cannot sign the authorization: %w", err)
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

// DomainFor returns the EIP-712 domain req quotes (from its extra).
func DomainFor(req PaymentRequirements) (Domain, error) {
	chainID, err := ChainID(req.Network)
	if err != nil {
		return Domain{}, err
	}
	name, _ := req.Extra["name"].(string)
	version, _ := req.Extra["version"].(string)
	if name == "" || version == "" {
		return Domain{}, ErrMissingDomain
	}
	return domainOf(name, version, chainID, common.HexToAddress(req.Asset)), nil
}
