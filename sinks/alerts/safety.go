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

// specialIPv4 is every block of the IANA IPv4 Special-Purpose Address
// Registry (RFC 6890 and its updates), plus multicast and the limited
// broadcast address. A webhook may reach none of them, not even the few
// the registry marks globally reachable (anycast services, AS112, AMT):
// none of them is a webhook receiver.
var specialIPv4 = []special{
	sp("0.0.0.0/8", `"this network"`),
	sp("10.0.0.0/8", "private-use"),
	sp("100.64.0.0/10", "shared address space (CGNAT)"),
	sp("127.0.0.0/8", "loopback"),
	sp("169.254.0.0/16", "link-local (includes cloud metadata 169.254.169.254)"),
	sp("172.16.0.0/12", "private-use"),
	sp("192.0.0.0/24", "IETF protocol assignments"),
	sp("192.0.2.0/24", "documentation (TEST-NET-1)"),
	sp("192.31.196.0/24", "AS112-v4"),
	sp("192.52.193.0/24", "AMT"),
	sp("192.88.99.0/24", "deprecated 6to4 relay anycast"),
	sp("192.168.0.0/16", "private-use"),
	sp("192.175.48.0/24", "direct delegation AS112 service"),
	sp("198.18.0.0/15", "benchmarking"),
	sp("198.51.100.0/24", "documentation (TEST-NET-2)"),
	sp("203.0.113.0/24", "documentation (TEST-NET-3)"),
	sp("224.0.0.0/4", "multicast"),
	sp("240.0.0.0/4", "reserved"),
	sp("255.255.255.255/32", "limited broadcast"),
}

// embeddedIPv4 are the IPv6 forms that carry an IPv4 address, which is
// decoded and checked by the IPv4 rules (offset: its first byte in the
// IPv6 address). Whatever the IPv6 route, such an address can end at the
// embedded IPv4 one (NAT64 gateways, SIIT translators, 6to4 relays, hosts
// that map IPv4 into IPv6 sockets).
var embeddedIPv4 = []struct {
	prefix netip.Prefix
	name   string
	offset int
	// socket: dialing it reaches the IPv4 address on this host's own
	// stack (so it is loopback when that is), rather than through a
	// translator.
	socket bool
}{
	{netip.MustParsePrefix("::ffff:0:0/96"), "IPv4-mapped", 12, true},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated (SIIT)", 12, false},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 well-known prefix", 12, false},
	{netip.MustParsePrefix("2002::/16"), "6to4", 2, false},
	// Last: ::/96 also holds :: and ::1, which are checked before.
	{netip.MustParsePrefix("::/96"), "IPv4-compatible (deprecated)", 12, false},
}

// specialIPv6 is every block of the IANA IPv6 Special-Purpose Address
// Registry that does not embed a checkable IPv4 address, plus the other
// non-global space a webhook must not reach. An address outside 2000::/3
// (global unicast) that no rule matched is refused too.
var specialIPv6 = []special{
	sp("::/128", "unspecified"),
	sp("::1/128", "loopback"),
	sp("64:ff9b:1::/48", "local-use NAT64 (RFC 8215: the IPv4 address may sit at any offset)"),
	sp("100::/64", "discard-only"),
	sp("100:0:0:1::/64", "dummy IPv6 prefix"),
	sp("2001::/23", "IETF protocol assignments (includes Teredo 2001::/32, benchmarking 2001:2::/48, ORCHIDv2)"),
	sp("2001:db8::/32", "documentation"),
	sp("2620:4f:8000::/48", "direct delegation AS112 service"),
	sp("3fff::/20", "documentation"),
	sp("5f00::/16", "segment routing (SRv6) SIDs"),
	sp("fc00::/7", "unique local (includes fd00:ec2::254, cloud metadata)"),
	sp("fe80::/10", "link-local"),
	sp("fec0::/10", "site-local (deprecated)"),
	sp("ff00::/8", "multicast"),
}

// globalUnicast is the IPv6 global unicast space (RFC 4291).
var globalUnicast = netip.MustParsePrefix("2000::/3")

// special is one refused block and its registry name.
type special struct {
	prefix netip.Prefix
	name   string
}

func sp(prefix, name string) special { return special{netip.MustParsePrefix(prefix), name} }

// CheckIP returns ErrUnsafeTarget (wrapped, naming the block) unless ip is a
// public unicast address: outside every block of the IANA special-purpose
// registries (specialIPv4, specialIPv6), and, for an IPv6 address that
// embeds an IPv4 one (IPv4-mapped ::ffff:0:0/96, IPv4-translated
// ::ffff:0:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96, 6to4
// 2002::/16), with the embedded address public too. AllowLoopback admits
// 127.0.0.0/8, ::1 and IPv4-mapped loopback, nothing else.
func (s Safety) CheckIP(ip netip.Addr) error {
	if !ip.IsValid() {
		return fmt.Errorf("%w: invalid address", ErrUnsafeTarget)
	}
	ip = ip.WithZone("")
	if ip.Is4() {
		return s.checkIPv4(ip, true)
	}
	if ip == netip.IPv6Loopback() && s.AllowLoopback {
		return nil
	}
	for _, e := range specialIPv6[:2] { // :: and ::1 before ::/96
		if e.prefix.Contains(ip) {
			return reserved(ip, e)
		}
	}
	for _, e := range embeddedIPv4 {
		if e.prefix.Contains(ip) {
			b := ip.As16()
			v4 := netip.AddrFrom4([4]byte(b[e.offset : e.offset+4]))
			if err := s.checkIPv4(v4, e.socket); err != nil {
				return fmt.Errorf("%w (embedded in %s, %s %s)", err, ip, e.prefix, e.name)
			}
			return nil
		}
	}
	for _, e := range specialIPv6[2:] {
		if e.prefix.Contains(ip) {
			return reserved(ip, e)
		}
	}
	if !globalUnicast.Contains(ip) {
		return fmt.Errorf("%w: %s is not a global unicast address (outside 2000::/3)", ErrUnsafeTarget, ip)
	}
	return nil
}

// checkIPv4 applies the IPv4 rules; loopbackOK says whether AllowLoopback
// may admit a loopback address here.
func (s Safety) checkIPv4(ip netip.Addr, loopbackOK bool) error {
	if s.AllowLoopback && loopbackOK && ip.IsLoopback() {
		return nil
	}
	for _, e := range specialIPv4 {
		if e.prefix.Contains(ip) {
			return reserved(ip, e)
		}
	}
	return nil
}

func reserved(ip netip.Addr, e special) error {
	return fmt.Errorf("%w: %s is in %s (%s)", ErrUnsafeTarget, ip, e.prefix, e.name)
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
