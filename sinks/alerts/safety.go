package alerts

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// ErrUnsafeTarget: a webhook URL or the address it resolves to is not a
// public HTTPS endpoint.
var ErrUnsafeTarget = errors.New("webhook target is not a public HTTPS endpoint")

// Safety decides which webhook targets are allowed. The zero value allows
// only public addresses.
type Safety struct {
	// AllowLoopback admits loopback addresses (127.0.0.0/8, ::1). It exists
	// for tests that run an httptest TLS receiver and must never be set in
	// production.
	AllowLoopback bool
	// Lookup resolves host names; nil means net.DefaultResolver. It is
	// asked again at every connect, and its answer checked again.
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// blocked are the prefixes never reachable by a webhook, beyond what the
// netip predicates cover.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // CGNAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // TEST-NET-1
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // TEST-NET-2
	netip.MustParsePrefix("203.0.113.0/24"),  // TEST-NET-3
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("100::/64"),       // discard
}

// CheckIP returns ErrUnsafeTarget (wrapped, naming the reason) unless ip is
// a public unicast address.
func (s Safety) CheckIP(ip netip.Addr) error {
	ip = ip.Unmap()
	reason := ""
	switch {
	case !ip.IsValid():
		reason = "invalid address"
	case ip.IsLoopback():
		if s.AllowLoopback {
			return nil
		}
		reason = "loopback address"
	case ip.IsUnspecified():
		reason = "unspecified address"
	case ip.IsPrivate():
		reason = "private address"
	case ip.IsLinkLocalUnicast():
		reason = "link-local address (includes cloud metadata 169.254.169.254)"
	case ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast(), ip.IsMulticast():
		reason = "multicast address"
	}
	if reason == "" {
		for _, p := range blocked {
			if p.Contains(ip) {
				reason = "reserved address " + p.String()
				break
			}
		}
	}
	if reason == "" && ip.Is6() && ip.As16()[0] == 0x20 && ip.As16()[1] == 0x02 {
		// 6to4 embeds an IPv4 address; check it.
		b := ip.As16()
		return s.CheckIP(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	if reason != "" {
		return fmt.Errorf("%w: %s is a %s", ErrUnsafeTarget, ip, reason)
	}
	return nil
}

// CheckURL validates a webhook URL before it is stored: https scheme, a
// host, no user info, and every address the host resolves to public.
func (s Safety) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: cannot parse the URL: %v", ErrUnsafeTarget, err)
	}
	if u.Scheme != "https" {
		return fmt.Errorf("%w: the scheme must be https, not %q", ErrUnsafeTarget, u.Scheme)
	}
	if u.User != nil {
		return fmt.Errorf("%w: the URL must not carry user info", ErrUnsafeTarget)
	}
	host := u.Hostname()
	if host == "" {
		return fmt.Errorf("%w: the URL has no host", ErrUnsafeTarget)
	}
	if len(raw) > 2048 {
		return fmt.Errorf("%w: the URL is longer than 2048 characters", ErrUnsafeTarget)
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		if !s.AllowLoopback {
			return fmt.Errorf("%w: %s is a loopback name", ErrUnsafeTarget, host)
		}
	}
	_, err = s.resolve(ctx, host)
	return err
}

// resolve returns the addresses of host, all checked; an error if any is
// not allowed or none exists.
func (s Safety) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, s.CheckIP(ip)
	}
	lookup := s.Lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	ips, err := lookup(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot resolve %s: %v", ErrUnsafeTarget, host, err)
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("%w: %s has no address", ErrUnsafeTarget, host)
	}
	for _, ip := range ips {
		if err := s.CheckIP(ip); err != nil {
			return nil, fmt.Errorf("%s resolves to a forbidden address: %w", host, err)
		}
	}
	return ips, nil
}

// DialContext dials addr only after checking the resolved address, and the
// dialer's Control hook checks the address actually connected to again, so
// a name that resolves differently at connect time (DNS rebinding) cannot
// reach a forbidden address.
func (s Safety) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("cannot dial %s: %w", addr, err)
	}
	ips, err := s.resolve(ctx, host)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{
		Control: func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot parse %s", ErrUnsafeTarget, address)
			}
			return s.CheckIP(ap.Addr())
		},
	}
	var last error
	for _, ip := range ips {
		c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}
