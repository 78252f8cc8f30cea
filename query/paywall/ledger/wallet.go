package ledger

import (
	"errors"
	"fmt"
	"strings"
)

// Wallet namespaces: the CAIP-2 namespaces whose wallets can hold credit.
const (
	NamespaceEVM    = "eip155"
	NamespaceSolana = "solana"
)

// ErrInvalidWallet: a wallet id or address is not one the ledger keys
// credit by.
var ErrInvalidWallet = errors.New("invalid wallet")

// base58Alphabet is the Bitcoin alphabet Solana addresses are written in.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// WalletID returns the key under which the ledger holds a wallet's credit:
// the CAIP-2 namespace of network, a colon and the address, e.g.
// "eip155:0xf39f…2266" or "solana:9WzD…AWWM". network is a CAIP-2 chain id
// ("eip155:8453") or a bare namespace ("solana"). EVM addresses must be
// 0x and 40 hex digits and are lower-cased, so the same key is one wallet
// on every EVM chain; Solana addresses must be 32 to 44 base58 characters
// and keep their case. Because the namespace is part of the id, an EVM
// wallet and a Solana wallet can never share credit, whatever their
// address strings look like. ErrInvalidWallet for anything else.
func WalletID(network, address string) (string, error) {
	ns, _, _ := strings.Cut(network, ":")
	switch ns {
	case NamespaceEVM:
		if len(address) != 42 || (address[:2] != "0x" && address[:2] != "0X") || !isHex(address[2:]) {
			return "", fmt.Errorf("%w: %q is not a 0x EVM address", ErrInvalidWallet, address)
		}
		return NamespaceEVM + ":0x" + strings.ToLower(address[2:]), nil
	case NamespaceSolana:
		if len(address) < 32 || len(address) > 44 || strings.Trim(address, base58Alphabet) != "" {
			return "", fmt.Errorf("%w: %q is not a base58 Solana address", ErrInvalidWallet, address)
		}
		return NamespaceSolana + ":" + address, nil
	}
	return "", fmt.Errorf("%w: namespace %q holds no credit", ErrInvalidWallet, ns)
}

// ParseWalletID checks a wallet id as WalletID writes it and returns it in
// canonical form (an EVM address lower-cased).
func ParseWalletID(id string) (string, error) {
	ns, addr, ok := strings.Cut(strings.TrimSpace(id), ":")
	if !ok {
		return "", fmt.Errorf("%w: %q lacks its namespace (eip155: or solana:)", ErrInvalidWallet, id)
	}
	return WalletID(ns, addr)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// normalizePayer lower-cases a 0x (EVM) payer of a payment nonce and leaves
// any other address (Solana base58 is case-sensitive) as it is.
func normalizePayer(w string) string {
	w = strings.TrimSpace(w)
	if len(w) > 2 && (w[:2] == "0x" || w[:2] == "0X") {
		return strings.ToLower(w)
	}
	return w
}
