package x402

import (
	"bytes"
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

// secp256k1HalfNBytes is secp256k1HalfN as a 32-byte big-endian word.
var secp256k1HalfNBytes = func() (b [32]byte) {
	secp256k1HalfN.FillBytes(b[:])
	return b
}()

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
	if t := now.Unix(); !v.ValidAfter.IsInt64() || v.ValidAfter.Int64() > t {
		return nil, ErrValidAfter
	}
	if t := now.Add(validBeforeBuffer).Unix(); v.ValidBefore.IsInt64() && v.ValidBefore.Int64() < t {
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
		return nil, fmt.Errorf("%w: %d bytes, want 65", ErrInvalidSignature, len(sig))
	}
	if sig[64] != 27 && sig[64] != 28 {
		return nil, fmt.Errorf("%w: v must be 27 or 28", ErrInvalidSignature)
	}
	v.V = sig[64]
	v.R, v.S = common.BytesToHash(sig[:32]), common.BytesToHash(sig[32:64])
	// FiatToken's ECRecover rejects s in the upper half of the order; so do
	// we (big-endian 32-byte words compare as numbers).
	if bytes.Compare(v.S[:], secp256k1HalfNBytes[:]) > 0 {
		return nil, ErrMalleableSignature
	}
	sep, err := Domain{Name: name, Version: version, ChainID: chainID, VerifyingContract: v.Asset}.separator()
	if err != nil {
		return nil, err
	}
	h := digest(sep, &authFields{from: v.Payer, to: v.To, value: v.Value, validAfter: v.ValidAfter, validBefore: v.ValidBefore, nonce: v.Nonce})
	sig[64] -= 27
	// crypto.Ecrecover is libsecp256k1 through cgo (signature_cgo.go) in
	// cgo builds, the pure-Go decred code otherwise; it returns the 65-byte
	// uncompressed key, whose keccak tail is the address.
	pub, err := crypto.Ecrecover(h[:], sig)
	if err != nil || len(pub) != 65 {
		return nil, fmt.Errorf("%w: cannot recover the signer", ErrInvalidSignature)
	}
	if common.BytesToAddress(crypto.Keccak256(pub[1:])[12:]) != v.Payer {
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

// domainKey identifies a cached domain separator without formatting
// strings or big integers.
type domainKey struct {
	name, version string
	chainID       [32]byte
	contract      common.Address
}

// domainSeparators caches Separator per domain; a server quotes a handful.
var domainSeparators sync.Map // domainKey -> common.Hash

// EIP-712 type hashes of the EIP-3009 typed data, computed once.
var (
	domainTypeHash   = crypto.Keccak256Hash([]byte("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"))
	transferTypeHash = crypto.Keccak256Hash([]byte("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"))
)

// keccakPool recycles Keccak-256 states for the digests of the hot path.
var keccakPool = sync.Pool{New: func() any { return crypto.NewKeccakState() }}

func domainKeyOf(d Domain) (domainKey, error) {
	k := domainKey{name: d.Name, version: d.Version, contract: d.VerifyingContract}
	if d.ChainID == nil || d.ChainID.Sign() < 0 || d.ChainID.BitLen() > 256 {
		return k, fmt.Errorf("%w: chain id out of range", ErrInvalidNetwork)
	}
	d.ChainID.FillBytes(k.chainID[:])
	return k, nil
}

// Separator is the EIP-712 domain separator of d, computed once per domain:
// keccak256(typeHash ‖ keccak256(name) ‖ keccak256(version) ‖ chainId ‖
// verifyingContract), each word 32 bytes.
func (d Domain) Separator() ([]byte, error) {
	h, err := d.separator()
	if err != nil {
		return nil, err
	}
	return h.Bytes(), nil
}

func (d Domain) separator() (common.Hash, error) {
	k, err := domainKeyOf(d)
	if err != nil {
		return common.Hash{}, err
	}
	if s, ok := domainSeparators.Load(k); ok {
		return s.(common.Hash), nil
	}
	var buf [5 * 32]byte
	copy(buf[0:], domainTypeHash[:])
	copy(buf[32:], crypto.Keccak256([]byte(d.Name)))
	copy(buf[64:], crypto.Keccak256([]byte(d.Version)))
	copy(buf[96:], k.chainID[:])
	copy(buf[140:], d.VerifyingContract[:])
	sep := crypto.Keccak256Hash(buf[:])
	domainSeparators.Store(k, sep)
	return sep, nil
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

// AuthorizationDigest is the EIP-712 digest a wallet signs for a:
// keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(a)). Numbers are decimal
// strings of at most 256 bits, addresses 0x hex, nonce 32 bytes of 0x hex.
func AuthorizationDigest(d Domain, a Authorization) ([]byte, error) {
	sep, err := d.separator()
	if err != nil {
		return nil, err
	}
	if !common.IsHexAddress(a.From) || !common.IsHexAddress(a.To) {
		return nil, fmt.Errorf("%w: authorization.from and .to must be addresses", ErrInvalidPayload)
	}
	var f authFields
	f.from, f.to = common.HexToAddress(a.From), common.HexToAddress(a.To)
	for _, n := range []struct {
		name, s string
		dst     **big.Int
	}{{"authorization.value", a.Value, &f.value}, {"authorization.validAfter", a.ValidAfter, &f.validAfter}, {"authorization.validBefore", a.ValidBefore, &f.validBefore}} {
		if *n.dst, err = parseUint256(n.name, n.s); err != nil {
			return nil, err
		}
	}
	nonce, err := hexutil.Decode(a.Nonce)
	if err != nil || len(nonce) != 32 {
		return nil, fmt.Errorf("%w: authorization.nonce must be 0x and 32 bytes of hex", ErrInvalidPayload)
	}
	f.nonce = common.BytesToHash(nonce)
	h := digest(sep, &f)
	return h[:], nil
}

// authFields are the parsed words of a TransferWithAuthorization.
type authFields struct {
	from, to                       common.Address
	value, validAfter, validBefore *big.Int
	nonce                          common.Hash
}

// digest hashes f under the domain separator sep without reflection or
// allocation: hashStruct is keccak256 of the type hash and the six 32-byte
// words, then keccak256(0x1901 ‖ sep ‖ hashStruct).
func digest(sep common.Hash, f *authFields) common.Hash {
	var buf [7 * 32]byte
	copy(buf[0:], transferTypeHash[:])
	copy(buf[32+12:], f.from[:])
	copy(buf[64+12:], f.to[:])
	f.value.FillBytes(buf[96:128])
	f.validAfter.FillBytes(buf[128:160])
	f.validBefore.FillBytes(buf[160:192])
	copy(buf[192:], f.nonce[:])
	k := keccakPool.Get().(crypto.KeccakState)
	defer keccakPool.Put(k)
	var structHash, out common.Hash
	k.Reset()
	k.Write(buf[:])
	k.Read(structHash[:])
	var msg [2 + 64]byte
	msg[0], msg[1] = 0x19, 0x01
	copy(msg[2:], sep[:])
	copy(msg[34:], structHash[:])
	k.Reset()
	k.Write(msg[:])
	k.Read(out[:])
	return out
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
	return Domain{Name: name, Version: version, ChainID: chainID, VerifyingContract: common.HexToAddress(req.Asset)}, nil
}
