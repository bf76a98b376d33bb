//! One line of ftrace text: the common header every event line has, in the
//! formats of `trace_pipe` / `trace` and of `trace-cmd report`:
//!
//! ```text
//!            bash-1234    [001] d..2.  5453.815765: sched_switch: prev_comm=...
//!            bash-1234    [001]  5453.815765: sched_switch: bash:1234 [120] S ==> ...
//!            bash-1234    (  1230) [001] d..2.  5453.815765: ...      (record-tgid)
//!  memfd:sealed-91-19576  [001] d..2.  5453.850554: ...               (comm with '-')
//! ```
//!
//! The comm may hold spaces, dashes and brackets: the cpu column is the
//! first `[digits]` whose left side ends in `-PID` (or `-PID (TGID)`), and
//! the pid is the number after the last `-` before it.  The flags column is
//! optional.  Everything works on bytes.

/// The common part of an event line; the slices borrow the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header<'a> {
    pub comm: &'a [u8],
    pub pid: i64,
    /// From the `(TGID)` column (`record-tgid` option), when present.
    pub tgid: Option<i64>,
    pub cpu: i64,
    pub timestamp: &'a [u8],
    pub event: &'a [u8],
    /// The event's own text, after `event: `.
    pub fields: &'a [u8],
}

#[inline]
pub fn find_byte(s: &[u8], b: u8) -> Option<usize> {
    s.iter().position(|&c| c == b)
}

#[inline]
pub fn rfind_byte(s: &[u8], b: u8) -> Option<usize> {
    s.iter().rposition(|&c| c == b)
}

/// First occurrence of `needle` in `hay`.
pub fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    let first = needle[0];
    let mut from = 0;
    while from + needle.len() <= hay.len() {
        let i = from + find_byte(&hay[from..=hay.len() - needle.len()], first)?;
        if &hay[i..i + needle.len()] == needle {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// Last occurrence of `needle` in `hay`.
pub fn rfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() > hay.len() {
        return None;
    }
    (0..=hay.len() - needle.len())
        .rev()
        .find(|&i| &hay[i..i + needle.len()] == needle)
}

#[inline]
pub fn trim_start(s: &[u8]) -> &[u8] {
    let i = s
        .iter()
        .position(|&c| c != b' ' && c != b'\t')
        .unwrap_or(s.len());
    &s[i..]
}

#[inline]
pub fn trim_end(s: &[u8]) -> &[u8] {
    let i = s
        .iter()
        .rposition(|&c| c != b' ' && c != b'\t' && c != b'\n' && c != b'\r')
        .map_or(0, |i| i + 1);
    &s[..i]
}

#[inline]
pub fn trim(s: &[u8]) -> &[u8] {
    trim_start(trim_end(s))
}

/// An unsigned decimal number that is the whole of `s`.
#[inline]
pub fn parse_dec(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 18 {
        return None;
    }
    let mut v: i64 = 0;
    for &c in s {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as i64;
    }
    Some(v)
}

/// A whole field value as a number: decimal (leading zeros allowed, as in
/// `target_cpu=001`), `0x` hex, optionally negative.  Hex values up to
/// 2^64-1 keep their bits (addresses).
#[inline]
pub fn parse_int(s: &[u8]) -> Option<i64> {
    if let Some(v) = parse_dec(s) {
        return Some(v);
    }
    let (neg, digits) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let v: u64 = if digits.len() > 2 && digits[0] == b'0' && (digits[1] | 0x20) == b'x' {
        let hex = &digits[2..];
        if hex.len() > 16 {
            return None;
        }
        let mut v: u64 = 0;
        for &c in hex {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return None,
            };
            v = v << 4 | d as u64;
        }
        v
    } else {
        if digits.is_empty() || digits.len() > 20 {
            return None;
        }
        let mut v: u64 = 0;
        for &c in digits {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v.checked_mul(10)?.checked_add(d as u64)?;
        }
        if v > i64::MAX as u64 && !(neg && v == 1 << 63) {
            return None;
        }
        v
    };
    Some(if neg {
        (v as i64).wrapping_neg()
    } else {
        v as i64
    })
}

/// `COMM-PID` or `COMM-PID (TGID)` (right-trimmed `left`), as
/// (comm, pid, tgid).
fn parse_task(left: &[u8]) -> Option<(&[u8], i64, Option<i64>)> {
    let mut left = trim_end(left);
    let mut tgid = None;
    if left.last() == Some(&b')') {
        let open = rfind_byte(left, b'(')?;
        let inner = trim(&left[open + 1..left.len() - 1]);
        if !inner.iter().all(|&c| c == b'-') {
            tgid = Some(parse_dec(inner)?);
        }
        left = trim_end(&left[..open]);
    }
    let digits = left.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits == left.len() {
        return None;
    }
    let dash = left.len() - digits - 1;
    if left[dash] != b'-' {
        return None;
    }
    let pid = parse_dec(&left[dash + 1..])?;
    Some((trim_start(&left[..dash]), pid, tgid))
}

/// A header's timestamp (`5453.816000`, seconds with up to nine decimals)
/// in nanoseconds.
pub fn timestamp_ns(t: &[u8]) -> Option<u64> {
    let (secs, frac) = match t.iter().position(|&b| b == b'.') {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => (t, &t[..0]),
    };
    if secs.is_empty() || frac.len() > 9 || !secs.iter().chain(frac).all(u8::is_ascii_digit) {
        return None;
    }
    let mut s: u64 = 0;
    for &d in secs {
        s = s.checked_mul(10)?.checked_add((d - b'0') as u64)?;
    }
    let mut f: u64 = 0;
    for i in 0..9 {
        f = f * 10 + frac.get(i).map_or(0, |d| (d - b'0') as u64);
    }
    s.checked_mul(1_000_000_000)?.checked_add(f)
}

/// Nanoseconds as a trace writes them: six decimals when whole
/// microseconds, else nine.
pub fn format_ns(ns: u64) -> String {
    let (s, f) = (ns / 1_000_000_000, ns % 1_000_000_000);
    if f % 1000 == 0 {
        format!("{s}.{:06}", f / 1000)
    } else {
        format!("{s}.{f:09}")
    }
}

/// Parse an event line's header; `None` for anything that is not one.
pub fn parse_header(line: &[u8]) -> Option<Header<'_>> {
    let mut from = 0;
    let (comm, pid, tgid, cpu, mut rest) = loop {
        let open = from + find_byte(&line[from..], b'[')?;
        let digits = line[open + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let close = open + 1 + digits;
        if digits > 0 && line.get(close) == Some(&b']') {
            if let Some((comm, pid, tgid)) = parse_task(&line[..open]) {
                let cpu = parse_dec(&line[open + 1..close])?;
                break (comm, pid, tgid, cpu, &line[close + 1..]);
            }
        }
        from = open + 1;
    };
    // [flags] timestamp:
    rest = trim_start(rest);
    let sp = find_byte(rest, b' ').unwrap_or(rest.len());
    let mut tok = &rest[..sp];
    rest = &rest[sp..];
    if tok.last() != Some(&b':') {
        // That was the flags column.
        rest = trim_start(rest);
        let sp = find_byte(rest, b' ').unwrap_or(rest.len());
        tok = &rest[..sp];
        rest = &rest[sp..];
        if tok.last() != Some(&b':') {
            return None;
        }
    }
    let timestamp = &tok[..tok.len() - 1];
    if !timestamp.first()?.is_ascii_digit() {
        return None;
    }
    // event:
    rest = trim_start(rest);
    let colon = find_byte(rest, b':')?;
    let event = &rest[..colon];
    if event.is_empty() || event.contains(&b' ') {
        return None;
    }
    let fields = trim_start(&rest[colon + 1..]);
    Some(Header {
        comm,
        pid,
        tgid,
        cpu,
        timestamp,
        event,
        fields,
    })
}

/// A lost-events marker: `CPU:3 [LOST 120 EVENTS]` (ftrace),
/// `CPU:3 [120 EVENTS DROPPED]` or `CPU:3 [EVENTS DROPPED]` (trace-cmd).
/// Returns the number of events lost when the marker says.
pub fn lost_marker(line: &[u8]) -> Option<Option<u64>> {
    let l = trim(line);
    let rest = l.strip_prefix(b"CPU:")?;
    let rest = trim_start(rest);
    let d = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if d == 0 {
        return None;
    }
    let inner = trim(&rest[d..]).strip_prefix(b"[")?.strip_suffix(b"]")?;
    if let Some(n) = inner
        .strip_prefix(b"LOST ")
        .and_then(|x| x.strip_suffix(b" EVENTS"))
    {
        return Some(Some(parse_dec(n)? as u64));
    }
    if inner == b"EVENTS DROPPED" {
        return Some(None);
    }
    if let Some(n) = inner.strip_suffix(b" EVENTS DROPPED") {
        return Some(Some(parse_dec(n)? as u64));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(timestamp_ns(b"5453.816000"), Some(5_453_816_000_000));
        assert_eq!(timestamp_ns(b"1.000000001"), Some(1_000_000_001));
        assert_eq!(timestamp_ns(b"12"), Some(12_000_000_000));
        assert_eq!(timestamp_ns(b"1.0000000001"), None);
        assert_eq!(timestamp_ns(b"1.5x"), None);
        assert_eq!(timestamp_ns(b"99999999999999999999.1"), None);
        assert_eq!(format_ns(5_453_816_000_000), "5453.816000");
        assert_eq!(format_ns(1_000_000_001), "1.000000001");
    }

    fn h(line: &str) -> Header<'_> {
        parse_header(line.as_bytes()).unwrap_or_else(|| panic!("no header in {line:?}"))
    }

    #[test]
    fn trace_pipe_line() {
        let x = h("          <idle>-0       [000] d..2.  5453.815700: sched_switch: prev_comm=swapper/0 prev_pid=0");
        assert_eq!(x.comm, b"<idle>");
        assert_eq!(x.pid, 0);
        assert_eq!(x.tgid, None);
        assert_eq!(x.cpu, 0);
        assert_eq!(x.timestamp, b"5453.815700");
        assert_eq!(x.event, b"sched_switch");
        assert_eq!(x.fields, b"prev_comm=swapper/0 prev_pid=0");
    }

    #[test]
    fn comm_with_dashes_spaces_and_brackets() {
        let x = h(" memfd:sealed-91-19576   [001] d..2.  5453.850554: sched_switch: x=1");
        assert_eq!((x.comm, x.pid, x.cpu), (&b"memfd:sealed-91"[..], 19576, 1));
        let x = h("Web Content-4242 [003] ..... 1.5: sched_wakeup: comm=a pid=1");
        assert_eq!((x.comm, x.pid, x.cpu), (&b"Web Content"[..], 4242, 3));
        let x = h("  a [7] b-c-77 [012] d.h1. 10.000001: irq_handler_entry: irq=3 name=x");
        assert_eq!((x.comm, x.pid, x.cpu), (&b"a [7] b-c"[..], 77, 12));
        assert_eq!(x.event, b"irq_handler_entry");
    }

    #[test]
    fn no_flags_column_and_trace_cmd() {
        let x = h("            bash-1234  [001]  1234.567890: sched_wakeup:         sshd:567 [120] CPU:003");
        assert_eq!((x.comm, x.pid, x.cpu), (&b"bash"[..], 1234, 1));
        assert_eq!(x.timestamp, b"1234.567890");
        assert_eq!(x.fields, b"sshd:567 [120] CPU:003");
        let x = h("bash-1 [0] 5: e:");
        assert_eq!(
            (x.timestamp, x.event, x.fields),
            (&b"5"[..], &b"e"[..], &b""[..])
        );
    }

    #[test]
    fn tgid_column() {
        let x = h("            bash-1234    (   1230) [001] d..2.  5453.815765: sched_switch: a=1");
        assert_eq!((x.pid, x.tgid, x.cpu), (1234, Some(1230), 1));
        let x = h("          <idle>-0       (-------) [001] d..2.  5453.815765: sched_switch: a=1");
        assert_eq!((x.pid, x.tgid), (0, None));
    }

    #[test]
    fn not_event_lines() {
        for l in [
            "",
            "# tracer: nop",
            "cpus=2",
            "CPU:1 [LOST 12 EVENTS]",
            "bash [001] 1.0: e: x",
            "bash-12 [001] d..2 x.0: e: x",
            "bash-12 [001] 1.0 e x",
            "bash-12 [001]",
            "bash-x [001] 1.0: e: x",
        ] {
            assert_eq!(parse_header(l.as_bytes()), None, "{l:?}");
        }
    }

    #[test]
    fn lost_markers() {
        assert_eq!(lost_marker(b"CPU:1 [LOST 12 EVENTS]"), Some(Some(12)));
        assert_eq!(lost_marker(b"  CPU:12 [LOST 3 EVENTS]\n"), Some(Some(3)));
        assert_eq!(lost_marker(b"CPU:0 [120 EVENTS DROPPED]"), Some(Some(120)));
        assert_eq!(lost_marker(b"CPU:0 [EVENTS DROPPED]"), Some(None));
        assert_eq!(lost_marker(b"CPU:0 [LOST x EVENTS]"), None);
        assert_eq!(lost_marker(b"CPU 0 is empty"), None);
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_int(b"001"), Some(1));
        assert_eq!(parse_int(b"-12"), Some(-12));
        assert_eq!(parse_int(b"0x7fff"), Some(0x7fff));
        assert_eq!(parse_int(b"0xffffffffffffffff"), Some(-1));
        assert_eq!(parse_int(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int(b"9223372036854775808"), None);
        assert_eq!(parse_int(b""), None);
        assert_eq!(parse_int(b"-"), None);
        assert_eq!(parse_int(b"12a"), None);
        assert_eq!(parse_int(b"0x"), None);
        assert_eq!(find(b"a ==> b", b" ==> "), Some(1));
        assert_eq!(rfind(b"a:b:c", b":"), Some(3));
        assert_eq!(find(b"ab", b"abc"), None);
    }
}
