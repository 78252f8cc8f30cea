// Package x402 is the x402 version 2 payment protocol as the query tier
// speaks it: the wire types and their base64 headers, the verification of
// `exact` EIP-3009 payments on EVM networks, Sign-In-With-X challenges and
// proofs, and the settlement backends (an x402 facilitator over HTTP, or our
// own relayer sending transferWithAuthorization). It knows nothing of HTTP
// frameworks; the paywall in package query uses it.
package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// Version is the x402 protocol version this package speaks.
const Version = 2

// Header names of x402 v2 (case-insensitive on the wire).
const (
	HeaderPaymentRequired  = "PAYMENT-REQUIRED"
	HeaderPaymentSignature = "PAYMENT-SIGNATURE"
	// HeaderXPayment is the header name the interface spec uses for the
	// payment; it carries the same v2 payload as PAYMENT-SIGNATURE.
	HeaderXPayment        = "X-PAYMENT"
	HeaderPaymentResponse = "PAYMENT-RESPONSE"
	HeaderSignInWithX     = "SIGN-IN-WITH-X"
)

// SchemeExact is the only payment scheme served.
const SchemeExact = "exact"

// maxHeaderLen bounds a decoded header value (base64 text) so a client
// cannot make the server decode megabytes.
const maxHeaderLen = 16 << 10

// ResourceInfo describes the paid resource.
type ResourceInfo struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mimeType,omitempty"`
}

// PaymentRequirements is one way to pay a resource (an `accepts` entry).
// Amount is in the asset's atomic units, as a decimal string.
type PaymentRequirements struct {
	Scheme            string         `json:"scheme"`
	Network           string         `json:"network"`
	Amount            string         `json:"amount"`
	Asset             string         `json:"asset"`
	PayTo             string         `json:"payTo"`
	MaxTimeoutSeconds int            `json:"maxTimeoutSeconds"`
	Extra             map[string]any `json:"extra,omitempty"`
}

// PaymentRequired is the body of the PAYMENT-REQUIRED header.
type PaymentRequired struct {
	X402Version int                   `json:"x402Version"`
	Error       string                `json:"error,omitempty"`
	Resource    *ResourceInfo         `json:"resource,omitempty"`
	Accepts     []PaymentRequirements `json:"accepts"`
	Extensions  map[string]any        `json:"extensions,omitempty"`
}

// PaymentPayload is what the client sends in PAYMENT-SIGNATURE (or
// X-PAYMENT). Payload is scheme specific: for exact on EVM it is an
// ExactEVMPayload, for exact on Solana {"transaction": base64}.
type PaymentPayload struct {
	X402Version int                 `json:"x402Version"`
	Resource    *ResourceInfo       `json:"resource,omitempty"`
	Accepted    PaymentRequirements `json:"accepted"`
	Payload     json.RawMessage     `json:"payload"`
	Extensions  map[string]any      `json:"extensions,omitempty"`
}

// ExactEVMPayload is the payload of an exact EIP-3009 payment.
type ExactEVMPayload struct {
	Signature     string        `json:"signature"`
	Authorization Authorization `json:"authorization"`
}

// Authorization is the signed EIP-3009 TransferWithAuthorization message;
// numbers are decimal strings, nonce is 0x-prefixed 32-byte hex.
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// SettlementResponse is the body of the PAYMENT-RESPONSE header and of a
// facilitator's /settle answer.
type SettlementResponse struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Payer       string `json:"payer,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Amount      string `json:"amount,omitempty"`
}

// VerifyResponse is a facilitator's /verify answer.
type VerifyResponse struct {
	IsValid       bool   `json:"isValid"`
	InvalidReason string `json:"invalidReason,omitempty"`
	Payer         string `json:"payer,omitempty"`
}

// ErrMalformedHeader is returned by the decoders for a header that is not
// standard base64 of the expected JSON object.
var ErrMalformedHeader = errors.New("malformed x402 header")

// EncodeHeader returns standard base64 (with padding) of v's JSON.
func EncodeHeader(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("cannot encode x402 header: %w", err)
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

// decodeHeader decodes standard base64 JSON into v. URL-safe base64 and
// values longer than maxHeaderLen are rejected.
func decodeHeader(s string, v any) error {
	if len(s) == 0 || len(s) > maxHeaderLen {
		return fmt.Errorf("%w: length %d", ErrMalformedHeader, len(s))
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("%w: not standard base64", ErrMalformedHeader)
	}
	// encoding/json, not goccy/go-json: these bytes come from anyone, and
	// go-json can panic on some sequences of malformed inputs because decoder
	// state carries over between calls (goccy/go-json#604, found by the
	// soldex fuzzer).
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: not the expected JSON object", ErrMalformedHeader)
	}
	return nil
}

// DecodePaymentPayload decodes a PAYMENT-SIGNATURE or X-PAYMENT value. It
// checks the shape only: version 2 and the required fields present.
func DecodePaymentPayload(s string) (*PaymentPayload, error) {
	var p PaymentPayload
	if err := decodeHeader(s, &p); err != nil {
		return nil, err
	}
	if p.X402Version != Version {
		return nil, fmt.Errorf("%w: x402Version %d", ErrInvalidVersion, p.X402Version)
	}
	if p.Accepted.Scheme == "" || p.Accepted.Network == "" || len(p.Payload) == 0 {
		return nil, fmt.Errorf("%w: accepted.scheme, accepted.network and payload are required", ErrInvalidPayload)
	}
	return &p, nil
}

// DecodePaymentRequired decodes a PAYMENT-REQUIRED value.
func DecodePaymentRequired(s string) (*PaymentRequired, error) {
	var p PaymentRequired
	if err := decodeHeader(s, &p); err != nil {
		return nil, err
	}
	if p.X402Version != Version {
		return nil, fmt.Errorf("%w: x402Version %d", ErrInvalidVersion, p.X402Version)
	}
	return &p, nil
}

// DecodeSettlementResponse decodes a PAYMENT-RESPONSE value.
func DecodeSettlementResponse(s string) (*SettlementResponse, error) {
	var p SettlementResponse
	if err := decodeHeader(s, &p); err != nil {
		return nil, err
	}
	return &p, nil
}
