package x402

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Settler is a settlement backend. Verify checks what a server cannot check
// offline (the payer's balance, the nonce unused on chain, the whole payment
// for non-EVM networks); Settle moves the money and reports the
// transaction. Both are given a payload that Match paired with req.
type Settler interface {
	Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (payer string, err error)
	Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error)
}

// Facilitator settles through an x402 facilitator's POST /verify and POST
// /settle (x402 v2 spec §7).
type Facilitator struct {
	// URL is the facilitator's base URL, e.g. https://x402.org/facilitator.
	URL string
	// Client is the HTTP client; nil means one with a 30-second timeout.
	Client *http.Client
	// Headers are added to every request (e.g. an Authorization header of
	// a production facilitator). Never logged.
	Headers map[string]string
}

type facilitatorRequest struct {
	X402Version         int                 `json:"x402Version"`
	PaymentPayload      *PaymentPayload     `json:"paymentPayload"`
	PaymentRequirements PaymentRequirements `json:"paymentRequirements"`
}

// maxFacilitatorBody bounds a facilitator answer.
const maxFacilitatorBody = 64 << 10

func (f *Facilitator) post(ctx context.Context, path string, p *PaymentPayload, req PaymentRequirements, out any) (int, error) {
	body, err := json.Marshal(facilitatorRequest{X402Version: Version, PaymentPayload: p, PaymentRequirements: req})
	if err != nil {
		return 0, fmt.Errorf("cannot encode the facilitator request: %w", err)
	}
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(f.URL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("cannot build the facilitator request: %w", err)
	}
	r.Header.Set("Content-Type", "application/json")
	for k, v := range f.Headers {
		r.Header.Set(k, v)
	}
	c := f.Client
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := c.Do(r)
	if err != nil {
		return 0, fmt.Errorf("cannot reach the facilitator: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxFacilitatorBody))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("cannot read the facilitator answer: %w", err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return resp.StatusCode, fmt.Errorf("facilitator %s answered %d without JSON", path, resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// Verify calls POST /verify.
func (f *Facilitator) Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (string, error) {
	var v VerifyResponse
	status, err := f.post(ctx, "/verify", p, req, &v)
	if err != nil && v.InvalidReason == "" {
		return "", fmt.Errorf("%w: %v", ErrVerifyFailed, err)
	}
	if !v.IsValid || status != http.StatusOK {
		return v.Payer, &reasonError{sentinel: classify(v.InvalidReason, ErrVerifyFailed), reason: v.InvalidReason}
	}
	return v.Payer, nil
}

// Settle calls POST /settle.
func (f *Facilitator) Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error) {
	var s SettlementResponse
	status, err := f.post(ctx, "/settle", p, req, &s)
	if err != nil && s.ErrorReason == "" {
		return SettlementResponse{Network: req.Network}, fmt.Errorf("%w: %v", ErrSettleFailed, err)
	}
	if !s.Success || status != http.StatusOK {
		s.Success = false
		if s.Network == "" {
			s.Network = req.Network
		}
		return s, &reasonError{sentinel: classify(s.ErrorReason, ErrSettleFailed), reason: s.ErrorReason}
	}
	return s, nil
}

// classify maps a facilitator's reason to our sentinel, or fallback.
func classify(reason string, fallback error) error {
	switch {
	case reason == "":
		return fallback
	case strings.Contains(reason, "insufficient"):
		return ErrInsufficientFunds
	case strings.Contains(reason, "nonce"):
		return ErrNonceUsed
	case strings.Contains(reason, "valid_before"):
		return ErrValidBefore
	case strings.Contains(reason, "valid_after"):
		return ErrValidAfter
	case strings.Contains(reason, "signature"):
		return ErrInvalidSignature
	case strings.Contains(reason, "recipient"):
		return ErrRecipientMismatch
	case strings.Contains(reason, "value"):
		return ErrValueMismatch
	case strings.Contains(reason, "network"):
		return ErrInvalidNetwork
	}
	return fallback
}

// Router sends each network to its own backend (e.g. EVM networks to the
// relayer and Solana to a facilitator).
type Router struct {
	// ByNetwork maps a CAIP-2 network to its backend.
	ByNetwork map[string]Settler
	// Default serves networks not in ByNetwork; nil refuses them.
	Default Settler
}

func (r *Router) pick(network string) (Settler, error) {
	if s, ok := r.ByNetwork[network]; ok {
		return s, nil
	}
	if r.Default != nil {
		return r.Default, nil
	}
	return nil, fmt.Errorf("%w: no settlement backend for %s", ErrInvalidNetwork, network)
}

// Verify implements Settler.
func (r *Router) Verify(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (string, error) {
	s, err := r.pick(req.Network)
	if err != nil {
		return "", err
	}
	return s.Verify(ctx, p, req)
}

// Settle implements Settler.
func (r *Router) Settle(ctx context.Context, p *PaymentPayload, req PaymentRequirements) (SettlementResponse, error) {
	s, err := r.pick(req.Network)
	if err != nil {
		return SettlementResponse{Network: req.Network}, err
	}
	return s.Settle(ctx, p, req)
}

// FacilitatorHandler serves POST /verify and POST /settle of the x402
// facilitator API over s, so one deployment can settle for others (and the
// Facilitator client can be tested against a real settlement backend).
func FacilitatorHandler(s Settler) http.Handler {
	mux := http.NewServeMux()
	decode := func(w http.ResponseWriter, r *http.Request) (*facilitatorRequest, bool) {
		var req facilitatorRequest
		if err := json.NewDecoder(io.LimitReader(r.Body, maxFacilitatorBody)).Decode(&req); err != nil || req.PaymentPayload == nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"isValid":false,"success":false,"invalidReason":"invalid_payload","errorReason":"invalid_payload","transaction":"","network":""}`))
			return nil, false
		}
		return &req, true
	}
	reply := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /verify", func(w http.ResponseWriter, r *http.Request) {
		req, ok := decode(w, r)
		if !ok {
			return
		}
		payer, err := s.Verify(r.Context(), req.PaymentPayload, req.PaymentRequirements)
		resp := VerifyResponse{IsValid: err == nil, Payer: payer}
		if err != nil {
			resp.InvalidReason = Reason(err)
		}
		reply(w, resp)
	})
	mux.HandleFunc("POST /settle", func(w http.ResponseWriter, r *http.Request) {
		req, ok := decode(w, r)
		if !ok {
			return
		}
		resp, err := s.Settle(r.Context(), req.PaymentPayload, req.PaymentRequirements)
		if err != nil {
			resp.Success = false
			resp.ErrorReason = Reason(err)
		}
		if resp.Network == "" {
			resp.Network = req.PaymentRequirements.Network
		}
		reply(w, resp)
	})
	return mux
}
