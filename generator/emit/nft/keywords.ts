/**
 * Words the nft scanner turns into keyword tokens (union of nftables 1.0.2 through current
 * `src/scanner.l`, including keywords only active in some scanner states). nft 1.0.x has no
 * quoting for table, chain or set names, so a name equal to one of these is a syntax error
 * (`chain accept {` → "unexpected accept, expecting string"); such names are rejected up front.
 * Only identifier-shaped words are listed: names may not contain `-` anyway. (Not formatted: a
 * word list reads better in paragraphs.)
 */
// prettier-ignore
export const NFT_KEYWORDS: ReadonlySet<string> = new Set([
  "abort", "accept", "ackseq", "add", "addr", "ah", "all", "and", "arp", "asconf", "avgpkt",
  "bridge", "burst", "bypass", "bytes", "cfi", "cgroup", "cgroupv2", "chain", "chains",
  "check", "checksum", "chunk", "classid", "code", "comment", "comp", "constant", "continue",
  "count", "counter", "counters", "cpi", "cpu", "create", "csumcov", "ct", "cwr", "daddr",
  "data", "day", "dccp", "define", "dei", "delete", "describe", "destroy", "device", "devices",
  "direction", "dnat", "doff", "dport", "drop", "dscp", "dst", "dup", "dynamic", "echo", "ecn",
  "ecne", "element", "elements", "eol", "eq", "error", "esp", "ether", "event", "exists",
  "expectation", "expiration", "expires", "export", "exthdr", "fanout", "fastopen", "fib",
  "flags", "flow", "flowlabel", "flowtable", "flowtables", "flush", "frag", "fullcone", "fwd",
  "gateway", "ge", "geneve", "get", "goto", "gre", "gretap", "group", "gt", "handle", "hbh",
  "hdrlength", "heartbeat", "helper", "helpers", "hlen", "hook", "hooks", "hoplimit", "hour",
  "htype", "ibriport", "ibrname", "icmp", "icmpv6", "icmpx", "id", "igmp", "iif", "iifgroup",
  "iifname", "iiftype", "import", "in", "inc", "include", "index", "inet", "init", "insert",
  "interval", "ip", "ip6", "ipsec", "jhash", "json", "jump", "l3proto", "label", "last", "le",
  "left", "length", "level", "limit", "limits", "list", "ll", "log", "lshift", "lsrr", "lt",
  "map", "maps", "mark", "masquerade", "maxseg", "md5sig", "memory", "meta", "meter", "meters",
  "mh", "minute", "missing", "mod", "monitor", "mptcp", "mrt", "mss", "mtu", "name", "ne",
  "netdev", "never", "nexthdr", "nexthop", "nftrace", "nh", "noop", "nop", "not", "notrack",
  "num", "numgen", "obriport", "obrname", "offload", "offset", "oif", "oifgroup", "oifname",
  "oiftype", "operation", "option", "options", "or", "original", "osf", "out", "over", "packets",
  "pcp", "performance", "persistent", "pkttype", "plen", "policy", "port", "position", "ppid",
  "prefix", "priority", "protocol", "ptr", "ptype", "queue", "quota", "quotas", "ra", "random",
  "rate", "redefine", "redirect", "reject", "rename", "replace", "reply", "reqid", "reserved",
  "reserved2", "reset", "return", "right", "rr", "rshift", "rt", "rt0", "rt2", "rtclassid", "rule",
  "rules", "ruleset", "sack", "sack0", "sack1", "sack2", "sack3", "saddr", "sctp", "secmark",
  "secmarks", "second", "seed", "seqno", "sequence", "set", "sets", "shutdown", "sid", "size",
  "skgid", "skuid", "snaplen", "snat", "socket", "spi", "spnum", "sport", "srh", "ssn", "ssrr",
  "state", "status", "stream", "subtype", "symhash", "synproxy", "synproxys", "table", "tables",
  "taddr", "tag", "tcp", "th", "time", "timeout", "timestamp", "to", "tos", "tproxy", "trace",
  "transparent", "tsecr", "tsn", "tsval", "ttl", "tunnel", "tunnels", "type", "typeof", "udp",
  "udplite", "undefine", "until", "update", "urgptr", "used", "value", "version", "vlan", "vm",
  "vmap", "vni", "vtag", "vxlan", "week", "wildcard", "window", "with", "wscale", "xml", "xor",
  "xt", "zone",
]);
