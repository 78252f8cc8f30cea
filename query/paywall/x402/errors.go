package x402

import "errors"

// Sentinels for the reasons a payment or sign-in proof is refused. Code maps
// each to its x402 error code string (invalidReason / errorReason).
var (
	ErrInvalidVersion     = errors.New("unsupported x402 version")
	ErrInvalidPayload     = errors.New("invalid payment payload")
	ErrUnsupportedScheme  = errors.New("unsupported payment scheme")
	ErrInvalidNetwork     = errors.New("unsupported payment network")
	ErrNoMatch            = errors.New("no matching payment requirements")
	ErrMissingDomain      = errors.New("payment requirements lack the EIP-712 domain name or version")
	ErrRecipientMismatch  = errors.New("authorization recipient is not payTo")
	ErrValueMismatch      = errors.New("authorization value is not the amount")
	ErrValidAfter         = errors.New("authorization is not yet valid")
	ErrValidBefore        = errors.New("authorization expires too soon or has expired")
	ErrInvalidSignature   = errors.New("invalid payment signature")
	ErrMalleableSignature = errors.New("signature s value is in the upper half of the curve order")
	ErrNonceUsed          = errors.New("payment authorization already used")
	ErrInsufficientFunds  = errors.New("payer balance does not cover the amount")
	ErrVerifyFailed       = errors.New("payment verification failed")
	ErrSettleFailed       = errors.New("payment settlement failed")
	ErrSignInInvalid      = errors.New("invalid sign-in proof")
	ErrSignInExpired      = errors.New("sign-in proof expired or not yet valid")
	ErrSignInDomain       = errors.New("sign-in proof is for another domain or uri")
	ErrSignInUnsupported  = errors.New("sign-in chain not supported")
	ErrSignInSignature    = errors.New("sign-in signature does not match the address")
)

// codes maps sentinels to x402 error codes (x402 v2 spec §9 and the
// reference facilitator's extended set).
var codes = []struct {
	err  error
	code string
}{
	{ErrInvalidVersion, "invalid_x402_version"},
	{ErrMalformedHeader, "invalid_payload"},
	{ErrInvalidPayload, "invalid_payload"},
	{ErrUnsupportedScheme, "unsupported_scheme"},
	{ErrInvalidNetwork, "invalid_network"},
	{ErrNoMatch, "invalid_payment_requirements"},
	{ErrMissingDomain, "invalid_exact_evm_missing_eip712_domain"},
	{ErrRecipientMismatch, "invalid_exact_evm_payload_recipient_mismatch"},
	{ErrValueMismatch, "invalid_exact_evm_payload_authorization_value_mismatch"},
	{ErrValidAfter, "invalid_exact_evm_payload_authorization_valid_after"},
	{ErrValidBefore, "invalid_exact_evm_payload_authorization_valid_before"},
	{ErrInvalidSignature, "invalid_exact_evm_payload_signature"},
	{ErrMalleableSignature, "invalid_exact_evm_payload_signature"},
	{ErrNonceUsed, "invalid_exact_evm_nonce_already_used"},
	{ErrInsufficientFunds, "insufficient_funds"},
	{ErrVerifyFailed, "unexpected_verify_error"},
	{ErrSettleFailed, "unexpected_settle_error"},
	{ErrSignInInvalid, "invalid_siwx_proof"},
	{ErrSignInExpired, "siwx_proof_expired"},
	{ErrSignInDomain, "siwx_domain_mismatch"},
	{ErrSignInUnsupported, "siwx_unsupported_chain"},
	{ErrSignInSignature, "siwx_invalid_signature"},
}

// Code returns the x402 error code of err: the code of the first sentinel
// it wraps, or "unexpected_verify_error".
func Code(err error) string {
	for _, c := range codes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return "unexpected_verify_error"
}

// reasonError carries a reason string reported by a facilitator or chain
// together with the sentinel that classifies it.
type reasonError struct {
	sentinel error
	reason   string
}

func (e *reasonError) Error() string { return e.sentinel.Error() + ": " + e.reason }
func (e *reasonError) Unwrap() error { return e.sentinel }

// Reason returns the x402 reason to report for err: the facilitator's own
// reason when it gave one, else Code(err).
func Reason(err error) string {
	var re *reasonError
	if errors.As(err, &re) && re.reason != "" && isCode(re.reason) {
		return re.reason
	}
	return Code(err)
}

// isCode reports whether s looks like an x402 error code (lower-case
// letters, digits and underscores), so free text is never echoed.
func isCode(s string) bool {
	if len(s) == 0 || len(s) > 80 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
