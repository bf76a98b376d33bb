//! Names on the NATS side: the two JetStream streams, their subjects, the
//! headers, the durable consumers, and which partition a producer stream
//! goes to (docs/collector.md, "Scale-out through NATS JetStream").

/// The producers' documents, in the order each collector received them.
pub const STREAM: &str = "VIGIL";
pub const BATCH_SUBJECTS: &str = "vigil.b.>";
/// Each producer stream's hello with its whole event table so far.
pub const SCHEMA_STREAM: &str = "VIGIL_SCHEMA";
pub const SCHEMA_SUBJECTS: &str = "vigil.s.>";

pub const HDR_STREAM: &str = "Vigil-Stream";
pub const HDR_TYPE: &str = "Vigil-Type";
pub const HDR_MSG_ID: &str = "Nats-Msg-Id";

pub const DEFAULT_PARTITIONS: u32 = 8;

/// FNV-1a, 64 bits.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The partition of a producer stream: FNV-1a-64(stream id) % partitions.
pub fn partition(stream: &str, partitions: u32) -> u32 {
    (fnv1a64(stream.as_bytes()) % partitions.max(1) as u64) as u32
}

/// Where a partition's documents go: `vigil.b.<p>`.
pub fn batch_subject(p: u32) -> String {
    format!("vigil.b.{p}")
}

/// Where a producer stream's schema is kept: `vigil.s.<16 hex digits>`.
pub fn schema_subject(stream: &str) -> String {
    format!("vigil.s.{:016x}", fnv1a64(stream.as_bytes()))
}

/// A group member's durable consumer of partition `p`: `<group>-p<p>`.
pub fn consumer_name(group: &str, p: u32) -> String {
    format!("{group}-p{p}")
}

/// JetStream's duplicate detection key of a batch: `<stream id>/<seq>`.
pub fn msg_id(stream_header: &str, seq: i64) -> String {
    format!("{stream_header}/{seq}")
}

/// A stream id as a header value: `%`, control characters and non-ASCII
/// bytes as `%XX` (a stream id is whatever the producer sent).
pub fn escape_header(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        if b == b'%' || !(0x20..0x7f).contains(&b) {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push(b as char);
        }
    }
    out
}

/// [`escape_header`] undone; None when it is not such a value.
pub fn unescape_header(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The stream's description, which records its partition count (fixed
/// when the stream is created: a producer stream must keep its partition).
pub fn describe(partitions: u32) -> String {
    format!(
        "vigil collect: producers' event stream documents; partitions={partitions} \
         (subject vigil.b.<FNV-1a-64(stream id) % {partitions}>)"
    )
}

/// The partition count recorded by [`describe`].
pub fn partitions_in(description: &str) -> Option<u32> {
    let rest = &description[description.find("partitions=")? + "partitions=".len()..];
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok().filter(|&n| n > 0)
}

/// A consumer group's name is the prefix of its consumers' names.
pub fn check_group(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 200
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "--group {name:?}: expected letters, digits, `-` and `_` (it names the durable consumers <NAME>-p<P>)"
        ))
    }
}

/// `--member I/N`: member I of a group of N collectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    pub index: u32,
    pub count: u32,
}

impl Member {
    pub fn parse(s: &str) -> Result<Member, String> {
        let bad = || format!("--member {s:?}: expected I/N with 0 <= I < N, e.g. 0/2");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Member { index, count })
    }

    /// The partitions this member consumes: p % N == I.
    pub fn partitions(&self, partitions: u32) -> Vec<u32> {
        (0..partitions).filter(|p| p % self.count == self.index).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_and_subjects() {
        // The published FNV-1a-64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
        assert_eq!(schema_subject("foobar"), "vigil.s.85944171f73967e8");
        assert_eq!(partition("foobar", 8), (0x85944171f73967e8u64 % 8) as u32);
        assert_eq!(batch_subject(3), "vigil.b.3");
        assert_eq!(consumer_name("g", 3), "g-p3");
    }

    #[test]
    fn description_keeps_the_partition_count() {
        assert_eq!(partitions_in(&describe(8)), Some(8));
        assert_eq!(partitions_in(&describe(130)), Some(130));
        assert_eq!(partitions_in("made by hand"), None);
        assert_eq!(partitions_in("partitions=0"), None);
    }

    #[test]
    fn headers_escape_reversibly() {
        for s in ["host:1:2", "a%b", "line\r\nbreak", "ünï"] {
            let e = escape_header(s);
            assert!(e.bytes().all(|b| (0x20..0x7f).contains(&b)), "{e}");
            assert_eq!(unescape_header(&e).as_deref(), Some(s));
        }
        assert_eq!(escape_header("host:1:2"), "host:1:2");
        assert_eq!(unescape_header("%G0"), None);
    }

    #[test]
    fn members() {
        let m = Member::parse("1/3").unwrap();
        assert_eq!(m.partitions(8), vec![1, 4, 7]);
        assert_eq!(Member::parse("0/1").unwrap().partitions(2), vec![0, 1]);
        for bad in ["2/2", "1", "a/2", "0/0", "-1/2"] {
            assert!(Member::parse(bad).is_err(), "{bad}");
        }
        assert!(check_group("g-1_x").is_ok());
        assert!(check_group("a.b").is_err() && check_group("").is_err() && check_group("a b").is_err());
    }
}
